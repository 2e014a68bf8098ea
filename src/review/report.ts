/**
 * The access review of a change: what a `pulumi preview` (or a pair of configuration documents, or a
 * document against the live broker) grants and revokes, key by key and path by path.
 *
 * This is the one data shape of the review. The analysis (`analyze.ts`) builds it from the access
 * before and after; the renderers (`markdown.ts`, `json.ts`) only print it. `--format json` prints it
 * as it is, so every field here is part of a documented, versioned schema
 * (`REVIEW_SCHEMA_VERSION`, `docs/access-review-format.md`): add fields freely, never rename or remove one
 * without raising the version.
 */

/** The version of the JSON document `broker-config review --format json` prints. */
export const REVIEW_SCHEMA_VERSION = 1;

/** A permission direction of an access key. */
export type Direction = "send" | "receive";

/** How a change moves a key's (or the whole change's) access, judged by the event path grammar. */
export type AccessVerdict =
  /** Some event path may be sent to or received from that could not be before. */
  | "broadens"
  /** Nothing new is reachable and something that was reachable no longer is. */
  | "narrows"
  /** The same events are reachable as before (nothing changed, or only the spelling did). */
  | "unchanged";

/** A value the preview cannot know yet (computed from other resources during `up`). */
export interface UnknownValue {
  /** Always `true`: renders as "known after up", never as a removal. */
  unknown: true;
  /** `true` when the value is a secret the preview does not show: renders as `[secret]`. */
  secret?: true;
}

/** The access of one key at one moment: `undefined` lists are unknown until `up`. */
export interface KeyAccess {
  /** `"SERVICE"` or `"ACCOUNT"`, or unknown. */
  type: "SERVICE" | "ACCOUNT" | UnknownValue;
  /** Event paths the key may send to, sorted; unknown when computed from other resources. */
  send: string[] | UnknownValue;
  /** Event paths the key may receive from, sorted; unknown when computed from other resources. */
  receive: string[] | UnknownValue;
}

/** What happened to a key in the change. */
export type KeyChangeKind =
  | "created"
  | "revoked" // deleted from the stack with onDelete "revoke": its permissions are emptied
  | "retained" // deleted from the stack with onDelete "retain" (or adopted, without "revoke"): the broker keeps its access
  | "replaced"
  | "rotated" // replaced only to get a new value (rotationTriggers): access the same
  | "updated";

/** One access key whose access (or value) the change touches. */
export interface KeyChange {
  /** The key's name on the broker, or `"[secret]"` when the name is a secret. */
  name: string;
  /** Where it is declared: the resource's URN in a preview, `accessKeys[3]` in a document. */
  source: string;
  /** Which door declared it, when known from a preview. */
  door?: "native" | "dynamic" | "document";
  kind: KeyChangeKind;
  /** The access before the change (absent for a created key). */
  before?: KeyAccess;
  /** The access after the change (absent for a revoked key). */
  after?: KeyAccess;
  /** Paths added to and removed from each direction (as spelled; `unknown` when after is unknown). */
  added: Record<Direction, string[]>;
  removed: Record<Direction, string[]>;
  /** Whether the lists after are not yet known (the preview cannot tell what is added). */
  unknown: boolean;
  /** The verdict for this key alone. */
  verdict: AccessVerdict;
}

/** An event path (or wildcard area) that gains a sender or receiver, with who gains it. */
export interface PathGain {
  /** The event path or wildcard as granted, such as `payments/*`. */
  path: string;
  direction: Direction;
  /** Names of the keys that gain it (that could not reach all of it before). */
  keys: string[];
}

/** A workspace renamed or moved: the paths under it change with it. */
export interface WorkspaceMove {
  /** Its workspace path before, such as `platform/orders`. */
  from: string;
  /** Its workspace path after; a part not known until `up` reads `(known after up)`. */
  to: string;
  /** `true` when part of `to` is not known until `up` (a parent created in the same change). */
  unknown: boolean;
  /** Where it is declared: the resource's URN in a preview. */
  source: string;
}

/** The counts a reader sees first. */
export interface ReviewSummary {
  keysCreated: number;
  keysRevoked: number;
  keysReplaced: number;
  keysRotated: number;
  keysUpdated: number;
  /** Keys removed from the stack with `onDelete: "retain"` (or adopted, without `"revoke"`): the broker keeps them and their access. */
  keysRetained: number;
  grantsAdded: number;
  grantsRemoved: number;
}

/** One section of the review: the planned change, or what changed outside Pulumi (drift). */
export interface AccessChange {
  summary: ReviewSummary;
  /** The verdict of the section as a whole: `broadens` when any key's access broadens. */
  verdict: AccessVerdict;
  keys: KeyChange[];
  /** The inverted view: each path that gains a sender or receiver. */
  gains: PathGain[];
  workspaces: WorkspaceMove[];
}

/** The whole review, as `--format json` prints it. */
export interface AccessReview {
  schemaVersion: typeof REVIEW_SCHEMA_VERSION;
  /** What was compared. */
  source: "preview" | "documents" | "broker";
  /** The change the preview (or the documents) plans. */
  planned: AccessChange;
  /** What changed on the broker outside Pulumi since the last `up` (`preview --refresh` only). */
  drift?: AccessChange;
  /** True when either section broadens access: what `--fail-on broadening` reads. */
  broadens: boolean;
}
