/**
 * The one rule that says which object on the broker a create made, when its answer never reached us
 * (a lost response, a provider killed mid-create, an `up` killed with the create pending).
 *
 * Key names are not unique, and a workspace create answers no id, so the object is recognised by
 * what the create asked for: its name and type and permissions (a key) or its name and parent (a
 * workspace), created at or after the moment the create was sent (less the clock skew the broker's
 * clock may have), and not already claimed by another resource or create. The client's search
 * (`findCreated`), the intents of a dead provider and `broker-config recover` all ask this function.
 */
import { samePermissions, type PermissionsInput } from "./permissions";

/**
 * How far the broker's clock may be behind ours: an object created up to this long before the
 * create was sent (by our clock) still counts as the one it made.
 */
export const CLOCK_SKEW_MARGIN_MS = 5_000;

/** What a create asked the broker to make: how the object it made is recognised. */
export type CreateRequested =
  | {
      readonly kind: "AccessKey";
      readonly name: string;
      readonly type: string;
      readonly permissions: PermissionsInput;
    }
  | {
      readonly kind: "Workspace";
      readonly name: string;
      /** 0 for top level. */
      readonly parentId: number;
    };

/** An object found on the broker, as its record shows it. */
export interface CreatedCandidate {
  readonly id: number;
  readonly name: string;
  /** An access key's type. */
  readonly type?: string;
  /** A workspace's parent (0 or absent at the top). */
  readonly parentId?: number;
  /** An access key's permissions as stored. */
  readonly permissions?: PermissionsInput;
  /** When the broker made it (ISO 8601); a record without a readable time is never excluded by it. */
  readonly createdAt?: string;
}

/** Where a search for what a create made starts and what it leaves out. */
export interface CreatedByRule {
  /**
   * The earliest creation time (ms since the epoch, the broker's clock) the object can carry: the
   * create's send time less {@link CLOCK_SKEW_MARGIN_MS} ({@link notBeforeOf}). `undefined` when the
   * send time is not known (a pending create `recover` finds without an intent): any age fits.
   */
  readonly notBefore: number | undefined;
  /** Ids already taken: by other creates of the process, or owned by resources of the stack. */
  readonly claimed: ReadonlySet<number>;
}

/** The earliest creation time an object made by a create sent at `sentAtMs` (our clock) can carry. */
export function notBeforeOf(sentAtMs: number): number {
  return sentAtMs - CLOCK_SKEW_MARGIN_MS;
}

/**
 * Whether `candidate` was created before `notBefore`. Keys are listed newest first, so a search
 * stops at the first one for which this holds.
 */
export function createdBefore(
  candidate: Pick<CreatedCandidate, "createdAt">,
  notBefore: number | undefined,
): boolean {
  if (notBefore === undefined || candidate.createdAt === undefined) return false;
  const createdAt = Date.parse(candidate.createdAt);
  return Number.isFinite(createdAt) && createdAt < notBefore;
}

/**
 * Whether `candidate` can be the object the create `requested` made, by the rule above: same name;
 * a key's type and its permissions compared as sets (a key revoked by a destroy, or changed by hand,
 * is not it); a workspace's parent; created at or after `rule.notBefore`; not in `rule.claimed`.
 */
export function isCreatedBy(
  requested: CreateRequested,
  candidate: CreatedCandidate,
  rule: CreatedByRule,
): boolean {
  if (candidate.name !== requested.name || rule.claimed.has(candidate.id)) return false;
  if (createdBefore(candidate, rule.notBefore)) return false;
  if (requested.kind === "Workspace") return (candidate.parentId ?? 0) === requested.parentId;
  return candidate.type === requested.type && samePermissions(candidate.permissions, requested.permissions);
}

/** The order a search tries what a create may have made: the newest first, then the highest id. */
export function newestFirst(
  a: { createdAt: string; id: number },
  b: { createdAt: string; id: number },
): number {
  const byTime = (Date.parse(b.createdAt) || 0) - (Date.parse(a.createdAt) || 0);
  return byTime !== 0 ? byTime : b.id - a.id;
}
