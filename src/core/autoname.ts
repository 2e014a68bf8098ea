/**
 * Autonaming: the name of a Workspace or AccessKey whose program gives none, chosen once by `check`
 * and recorded in the checked inputs, so that it never changes on its own.
 *
 * Both doors ask this module, with what their engine tells them: the native plugin the URN's
 * logical name and, from engines that send it, the stack's `pulumi:autonaming` proposal; the dynamic
 * providers the logical name their resource classes pass along. The form of a name and its
 * validity are the model's ({@link autoname}).
 */
import { randomBytes } from "node:crypto";
import { AUTONAME_RANDOM_LENGTH, autoname, type NameKind } from "../model";
import { defaultIntentStore, type CreateOrigin, type IntentKind } from "./intents";
import type { CheckFailure } from "./results";
import type { PropertyBag } from "./state";

/**
 * What the engine's autonaming configuration (`pulumi:autonaming` in stack config) asks of one
 * resource, as a native provider's `Check` receives it.
 * - `propose`: use `proposedName` when the program gives no name.
 * - `enforce`: the same, exactly as proposed (a verbatim or enforced pattern).
 * - `disable`: the program must give a name.
 */
export interface AutonamingProposal {
  readonly mode: "propose" | "enforce" | "disable";
  /** The name the engine made from its pattern; empty with `disable`. */
  readonly proposedName: string;
}

/** Where a name comes from when the program gives none; every member is optional. */
export interface NameSource {
  /** The resource's logical name (the last part of its URN). */
  readonly logicalName?: string;
  /** The inputs the previous `check` recorded (absent on create, and on the engine's re-check before a replacement). */
  readonly oldInputs?: PropertyBag;
  /** The engine's autonaming proposal, from engines that send one to providers that accept it. */
  readonly autonaming?: AutonamingProposal;
  /**
   * The name an interrupted create of this resource chose: its intent's (see {@link withInterruptedName}),
   * so that the next `up` asks for the same object and takes over the one that create made.
   */
  readonly interruptedName?: string;
}

/** The random part of a chosen name: {@link AUTONAME_RANDOM_LENGTH} lowercase hexadecimal digits. */
function randomPart(): string {
  return randomBytes(Math.ceil(AUTONAME_RANDOM_LENGTH / 2))
    .toString("hex")
    .slice(0, AUTONAME_RANDOM_LENGTH);
}

/**
 * `news` with its `name` filled in when the program gave none, or the failure that says why none
 * can be chosen. In order:
 * 1. A name the program gives (or one not known yet) is kept exactly as it is.
 * 2. The name the previous `check` recorded, so an update never renames. The engine checks again
 *    without old inputs before a replacement, so a replacement gets a new name (and can be created
 *    before the old object is revoked or forgotten).
 * 3. The name an interrupted create of the same resource chose ({@link NameSource.interruptedName}),
 *    unless the engine's autonaming configuration enforces its own or disables autonaming.
 * 4. The engine's autonaming proposal (`propose`/`enforce`), or a failure when it disables autonaming.
 * 5. `<logical name>-<7 random characters>` ({@link autoname}).
 *
 * @param kind whose name rules apply to a name made from the logical name.
 */
export function withChosenName(
  news: PropertyBag,
  source: NameSource,
  kind: NameKind,
):
  | { readonly inputs: PropertyBag; readonly failures: readonly [] }
  | {
      readonly inputs: undefined;
      readonly failures: readonly CheckFailure[];
    } {
  const given = news["name"];
  if (given !== undefined && given !== null) return { inputs: news, failures: [] };
  const recorded = source.oldInputs?.["name"];
  if (typeof recorded === "string") return { inputs: { ...news, name: recorded }, failures: [] };
  const { autonaming, logicalName, interruptedName } = source;
  // An engine's proposal is made anew each run (its pattern's random part from a random seed), so it
  // would not find what the interrupted create made; an enforced one is the user's to choose.
  if (interruptedName !== undefined && (autonaming === undefined || autonaming.mode === "propose"))
    return { inputs: { ...news, name: interruptedName }, failures: [] };
  if (autonaming?.mode === "disable") {
    return refused(
      "is required: the stack's pulumi:autonaming configuration turns autonaming off for this resource; give it a name, or change that configuration",
    );
  }
  if (autonaming !== undefined && autonaming.proposedName !== "")
    return { inputs: { ...news, name: autonaming.proposedName }, failures: [] };
  if (logicalName !== undefined)
    return { inputs: { ...news, name: autoname(logicalName, kind, randomPart()) }, failures: [] };
  return refused("is required");
}

/**
 * `naming` with the name an interrupted create of the resource chose, when `check` will choose one
 * (the program gives no name and none was recorded) and the resource's intent records one: a create
 * whose provider died on the wire left its record (`src/core/intents.ts`), and without the same name
 * the next `up` would make a second object and leave the first unmanaged. Reads one small file, and
 * only then.
 * @param kind the resource's type name (`AccessKey`, `Workspace`); other types keep `naming` as is.
 */
export async function withInterruptedName(
  naming: NameSource,
  news: PropertyBag,
  origin: CreateOrigin | undefined,
  kind: string,
): Promise<NameSource> {
  const given = news["name"];
  if (origin === undefined || (given !== undefined && given !== null)) return naming;
  if (typeof naming.oldInputs?.["name"] === "string" || !isIntentKind(kind)) return naming;
  const intent = await (origin.intents ?? defaultIntentStore()).read(origin.urn);
  return intent?.kind === kind ? { ...naming, interruptedName: intent.object.name } : naming;
}

function isIntentKind(kind: string): kind is IntentKind {
  return kind === "AccessKey" || kind === "Workspace";
}

function refused(reason: string): { readonly inputs: undefined; readonly failures: readonly CheckFailure[] } {
  return { inputs: undefined, failures: [{ property: "name", reason }] };
}
