/**
 * Reading what `pulumi preview --json` prints (CLI 3.x: one JSON document with `steps`,
 * `diagnostics`, `changeSummary`, …) into the key transitions and workspace moves the analysis
 * reads: the planned change, and with `--refresh` what changed on the broker outside Pulumi.
 *
 * What the engine puts there (read in `pkg/backend/display/json.go` of CLI 3.259 and checked
 * against real previews):
 * - each step has `op`, `urn`, `oldState`/`newState` (a resource's `type`, checked `inputs`,
 *   `outputs`, `parent`, `propertyDependencies`), `diffReasons`, `replaceReasons`, `detailedDiff`;
 *   replacements show as one logical `replace` step (`create-replacement`/`delete-replaced` only
 *   with `--show-replacement-steps`), `same` steps only with `--show-sames`; the root stack's step
 *   is always there, so a preview that ran has at least one step;
 * - a secret value is the string `[secret]` (a state written with its signature object,
 *   `{"4dabf18193072939515e22adb298388d": …}`, is read the same way); a value not known until `up`
 *   is the string `04da6b54-80e4-46f7-96ec-b56ff0331ba9`;
 * - with `--refresh`, the engine first refreshes every resource of the last `up` (one step per
 *   resource, `refresh`; the engine rewrites it to `update` or `delete` only when the provider gave
 *   a detailed diff, which the dynamic door never does, and then both its states are the old one),
 *   then runs the program, whose steps start from the refreshed state: the refresh steps are the
 *   steps before the first URN that repeats (the root stack's, which both phases show); drift is
 *   read from them and the program's `oldState`s (see `driftTransitions`).
 * Any other resource (another provider's, a component such as `Environment` or `BrokerConfig`) is
 * passed over: a component's children are ordinary steps of their own.
 */
import { brokerResourceOfType } from "../core/declarations";
import { effectiveOnDelete, isAccessKeyType, isOnDelete, isPlainObject, type OnDelete } from "../model";
import type { KeyOperation, KeyTransition, WorkspaceTransition } from "./analyze";
import { ReviewInputError } from "./errors";
import type { KeyAccess, UnknownValue } from "./report";

/** The value the engine writes for a value not known until `up`. */
export const UNKNOWN_SENTINEL = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** The key that marks a secret value in serialized state. */
export const SECRET_SIGNATURE = "4dabf18193072939515e22adb298388d";

/** How a preview shows a secret value. */
export const SECRET_TEXT = "[secret]";

/** What a workspace path reads when part of it is not known until `up`. */
export const KNOWN_AFTER_UP = "(known after up)";

/** The access changes a preview carries. */
export interface PreviewReading {
  /** The change the program plans. */
  planned: { keys: KeyTransition[]; workspaces: WorkspaceTransition[] };
  /** With `--refresh`: what changed on the broker since the last `up`. */
  drift?: { keys: KeyTransition[]; workspaces: WorkspaceTransition[] };
}

/** A resource's state in a step, as far as the review reads it. */
interface StateView {
  type: string;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown>;
  propertyDependencies: Record<string, unknown>;
}

/** A step, as far as the review reads it. */
interface StepView {
  op: string;
  urn: string;
  old?: StateView;
  new?: StateView;
  replaceReasons: string[];
}

const UNKNOWN: UnknownValue = { unknown: true };
const SECRET: UnknownValue = { unknown: true, secret: true };

/** What the review expects, appended to every refusal of the input. */
const EXPECTED = "expected the output of `pulumi preview --json` (or `pulumi preview --refresh --json`)";

/**
 * Reads the text `pulumi preview --json` printed.
 *
 * @throws ReviewInputError (one line naming what was expected) for anything else: not JSON, a
 *   truncated file, the streaming format, a `pulumi stack export`, a preview that failed (error
 *   diagnostics, or no steps), steps of an unknown shape (an old CLI's).
 */
export function readPreview(text: string): PreviewReading {
  const steps = parseSteps(text);
  const phaseEnd = refreshPhaseEnd(steps);
  const planned = steps.slice(phaseEnd);
  const reading: PreviewReading = { planned: transitionsOf(planned, steps) };
  if (phaseEnd > 0)
    reading.drift = { keys: driftTransitions(steps.slice(0, phaseEnd), planned), workspaces: [] };
  return reading;
}

/**
 * What changed on the broker since the last `up`, per access key of the refresh phase: its state
 * then is the refresh step's `oldState`. Its state now is the refresh step's `newState` when the
 * engine rewrote the step to `update` (or gone, to `delete`); otherwise (CLI 3.259 leaves a refresh
 * of a dynamic resource as `refresh`, both states the old one) it is the `oldState` the program's
 * step for the same URN starts from, which is the refreshed state; a program step that must
 * `create` the key again (no `oldState`) means the key is gone. A key the program leaves `same` is
 * not shown without `--show-sames`, and then reads as unchanged.
 */
function driftTransitions(
  refreshSteps: readonly StepView[],
  programSteps: readonly StepView[],
): KeyTransition[] {
  const programByUrn = new Map<string, StepView>();
  for (const step of programSteps) if (!programByUrn.has(step.urn)) programByUrn.set(step.urn, step);
  const transitions: KeyTransition[] = [];
  for (const step of refreshSteps) {
    const last = step.old ?? step.new;
    if (last === undefined) continue;
    const resource = brokerResourceOfType(last.type);
    if (resource?.kind !== "AccessKey") continue;
    let now: StateView | undefined;
    let gone = step.op === "delete";
    if (step.op === "update" && step.new !== undefined) now = step.new;
    else if (!gone) {
      const program = programByUrn.get(step.urn);
      if (program?.old !== undefined) now = program.old;
      else if (program?.op === "create") gone = true;
      // `refresh` with a new state of its own (an engine that shows the refreshed state there).
      else if (step.new !== undefined) now = step.new;
    }
    if (!gone && now === undefined) continue;
    const transition: KeyTransition = {
      name: keyName(last, step.urn),
      source: step.urn,
      door: resource.door,
      operation: gone ? "delete" : "update",
      before: accessOf(last, "outputs"),
    };
    if (gone) transition.onDelete = "revoke";
    else if (now !== undefined) transition.after = accessOf(now, "outputs");
    transitions.push(transition);
  }
  return transitions;
}

/** The steps of the preview's JSON, or the one-line refusal of what it is instead. */
function parseSteps(text: string): StepView[] {
  const trimmed = text.trim();
  if (trimmed === "") throw new ReviewInputError(`the input is empty; ${EXPECTED}`);
  let document: unknown;
  try {
    document = JSON.parse(trimmed);
  } catch {
    throw new ReviewInputError(notJsonMessage(trimmed));
  }
  if (!isPlainObject(document))
    throw new ReviewInputError(`the input is JSON but not an object; ${EXPECTED}`);
  if ("deployment" in document && "version" in document)
    throw new ReviewInputError(
      `the input is a \`pulumi stack export\` (the state), not a preview; ${EXPECTED}`,
    );
  if ("sequence" in document && "timestamp" in document) throw new ReviewInputError(streamingMessage());
  const failure = previewFailure(document["diagnostics"]);
  if (failure !== undefined)
    throw new ReviewInputError(
      `the preview failed (${failure}); fix it and pass the output of a preview that succeeded`,
    );
  const steps = document["steps"];
  if (steps === undefined) {
    if (!("changeSummary" in document) && !("diagnostics" in document) && !("duration" in document))
      throw new ReviewInputError(`the input is JSON without preview steps; ${EXPECTED}`);
    throw new ReviewInputError(
      `the preview has no steps: it did not run the program (a preview that ran lists at least the stack); ${EXPECTED}`,
    );
  }
  if (!Array.isArray(steps) || steps.length === 0)
    throw new ReviewInputError(`the preview has no steps (\`steps\` is empty or not a list); ${EXPECTED}`);
  return steps.map((step, index) => stepView(step, index));
}

/** Why text that is not one JSON document was refused: streaming events, a cut-off file, plain text. */
function notJsonMessage(text: string): string {
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  const first = lines[0] ?? "";
  if (lines.length > 1 && /^\{\s*"sequence"\s*:/u.test(first)) return streamingMessage();
  if (text.startsWith("{") || text.startsWith("["))
    return `the input is not complete JSON (cut off, or not one document); ${EXPECTED}`;
  return `the input is not JSON (did the preview run without --json?); ${EXPECTED}`;
}

function streamingMessage(): string {
  return "the input is a stream of engine events (a preview with PULUMI_ENABLE_STREAMING_JSON_PREVIEW set, or `pulumi up --json`), which the review does not read; unset that variable and pass what `pulumi preview --json` prints";
}

/** The first error diagnostic's message (one line, shortened), or `undefined` when none failed. */
function previewFailure(diagnostics: unknown): string | undefined {
  if (!Array.isArray(diagnostics)) return undefined;
  for (const diagnostic of diagnostics) {
    if (!isPlainObject(diagnostic) || diagnostic["severity"] !== "error") continue;
    const message = typeof diagnostic["message"] === "string" ? diagnostic["message"] : "an error";
    const line = message.replace(/\s+/gu, " ").trim();
    return line.length > 200 ? `${line.slice(0, 199)}…` : line;
  }
  return undefined;
}

/** One step read strictly enough to refuse an unknown shape, loosely enough to ignore new fields. */
function stepView(step: unknown, index: number): StepView {
  if (!isPlainObject(step) || typeof step["op"] !== "string" || typeof step["urn"] !== "string")
    throw new ReviewInputError(
      `steps[${index}] has no \`op\` and \`urn\` (a format of another tool, or of an old Pulumi CLI); ${EXPECTED} from Pulumi CLI 3.x`,
    );
  const view: StepView = {
    op: step["op"],
    urn: step["urn"],
    replaceReasons: Array.isArray(step["replaceReasons"])
      ? step["replaceReasons"].filter((reason): reason is string => typeof reason === "string")
      : [],
  };
  const oldState = stateView(step["oldState"]);
  const newState = stateView(step["newState"]);
  if (oldState !== undefined) view.old = oldState;
  if (newState !== undefined) view.new = newState;
  return view;
}

function stateView(state: unknown): StateView | undefined {
  if (!isPlainObject(state) || typeof state["type"] !== "string") return undefined;
  const object = (value: unknown): Record<string, unknown> => (isPlainObject(value) ? value : {});
  return {
    type: state["type"],
    inputs: object(state["inputs"]),
    outputs: object(state["outputs"]),
    propertyDependencies: object(state["propertyDependencies"]),
  };
}

/**
 * How many leading steps are the refresh of `preview --refresh`: none unless a step is a `refresh`;
 * else the steps before the first URN seen twice (the program's phase shows the root stack again).
 */
function refreshPhaseEnd(steps: readonly StepView[]): number {
  if (!steps.some((step) => step.op === "refresh")) return 0;
  const seen = new Set<string>();
  for (const [index, step] of steps.entries()) {
    if (seen.has(step.urn)) return index;
    seen.add(step.urn);
  }
  return steps.length;
}

/** The logical name at the end of a URN (`urn:pulumi:dev::proj::broker:index:AccessKey::orders`). */
function logicalName(urn: string): string {
  const at = urn.lastIndexOf("::");
  return at < 0 ? urn : urn.slice(at + 2);
}

function isSecretValue(value: unknown): boolean {
  return value === SECRET_TEXT || (isPlainObject(value) && SECRET_SIGNATURE in value);
}

/** An event path list of a state: sorted, without repeats; unknown or secret as such. */
function pathList(value: unknown): string[] | UnknownValue {
  if (value === undefined || value === null) return [];
  if (value === UNKNOWN_SENTINEL) return UNKNOWN;
  if (isSecretValue(value)) return SECRET;
  if (!Array.isArray(value)) return UNKNOWN;
  const paths: string[] = [];
  for (const entry of value) {
    // One entry not known (or secret) makes the whole list so: the review never guesses a removal.
    if (isSecretValue(entry)) return SECRET;
    if (entry === UNKNOWN_SENTINEL || typeof entry !== "string") return UNKNOWN;
    paths.push(entry);
  }
  return [...new Set(paths)].sort();
}

/** A key's access from one side of its state: the checked inputs, or the outputs the broker returned. */
function accessOf(state: StateView, side: "inputs" | "outputs"): KeyAccess {
  const primary = state[side];
  // Outputs lack what a create has not made yet; fall back to the inputs, which every state has.
  const source = "permissions" in primary || "type" in primary ? primary : state.inputs;
  const type = source["type"] ?? state.inputs["type"];
  let permissions = source["permissions"];
  if (permissions === undefined && side === "outputs") permissions = state.inputs["permissions"];
  let send: string[] | UnknownValue;
  let receive: string[] | UnknownValue;
  if (permissions === UNKNOWN_SENTINEL) send = receive = UNKNOWN;
  else if (isSecretValue(permissions)) send = receive = SECRET;
  else if (permissions === undefined || permissions === null) send = receive = [];
  else if (isPlainObject(permissions)) {
    send = pathList(permissions["send"]);
    receive = pathList(permissions["receive"]);
  } else send = receive = UNKNOWN;
  return {
    type: isAccessKeyType(type) ? type : isSecretValue(type) ? SECRET : UNKNOWN,
    send,
    receive,
  };
}

/** A key's name from its state: `[secret]` when secret, the logical name when not known yet. */
function keyName(state: StateView | undefined, urn: string): string {
  const name = state?.inputs["name"] ?? state?.outputs["name"];
  if (isSecretValue(name)) return SECRET_TEXT;
  if (typeof name === "string" && name !== UNKNOWN_SENTINEL) return name;
  return logicalName(urn);
}

/** The review's reading of a step's op: planned ops, and the ops a refresh is rewritten to. */
function keyOperation(op: string): KeyOperation | undefined {
  switch (op) {
    case "create":
      return "create";
    case "update":
      return "update";
    case "delete":
    case "discard":
      return "delete";
    case "replace":
    case "create-replacement":
    case "delete-replaced":
      return "replace";
    default:
      // same, read, refresh, import, remove-pending-replace, …: no change to access.
      return undefined;
  }
}

/** The key transitions and workspace moves the program's steps plan (`all` resolves workspace parents). */
function transitionsOf(
  steps: readonly StepView[],
  all: readonly StepView[],
): { keys: KeyTransition[]; workspaces: WorkspaceTransition[] } {
  // A replacement may show as several steps (with --show-replacement-steps): one transition per URN.
  const keys = new Map<string, KeyTransition>();
  const workspaces: WorkspaceTransition[] = [];
  const resolver = new WorkspacePaths(all);
  for (const step of steps) {
    const state = step.new ?? step.old;
    if (state === undefined) continue;
    const resource = brokerResourceOfType(state.type);
    if (resource === undefined) continue;
    const operation = keyOperation(step.op);
    if (operation === undefined) continue;
    if (resource.kind === "Workspace") {
      if (operation === "replace") {
        const move = resolver.move(step);
        if (move !== undefined && !workspaces.some((w) => w.source === move.source)) workspaces.push(move);
      }
      continue;
    }
    if (resource.kind !== "AccessKey" || keys.has(step.urn)) continue;
    // The plan compares the program's checked inputs (drift compares what the broker returned).
    const side = "inputs";
    const transition: KeyTransition = {
      name: keyName(step.new ?? step.old, step.urn),
      source: step.urn,
      door: resource.door,
      operation,
    };
    if (step.old !== undefined && operation !== "create") transition.before = accessOf(step.old, side);
    if (step.new !== undefined && operation !== "delete") transition.after = accessOf(step.new, side);
    if (operation === "delete") transition.onDelete = onDeleteOf(step.old);
    if (operation === "replace") transition.rotation = step.replaceReasons.includes("rotationTriggers");
    keys.set(step.urn, transition);
  }
  return { keys: [...keys.values()], workspaces };
}

/**
 * What a planned delete does to the key: its `onDelete`, or the default for a key the stack created
 * (revoke) or adopted (left as found), as the provider decides it (the model's `effectiveOnDelete`).
 */
function onDeleteOf(state: StateView | undefined): OnDelete {
  const value = state?.inputs["onDelete"] ?? state?.outputs["onDelete"];
  return effectiveOnDelete(isOnDelete(value) ? value : undefined, state?.outputs["adopted"] === true);
}

/** Workspace paths before and after the change, from the workspaces' states across every step. */
class WorkspacePaths {
  /** The new state of each workspace step, by URN. */
  private readonly planned = new Map<string, StateView>();
  /** Known paths by workspace id (from any state's outputs). */
  private readonly byId = new Map<number, string>();

  constructor(steps: readonly StepView[]) {
    for (const step of steps) {
      for (const state of [step.old, step.new]) {
        if (state === undefined || brokerResourceOfType(state.type)?.kind !== "Workspace") continue;
        const id = state.outputs["workspaceId"];
        const path = state.outputs["path"];
        if (typeof path !== "string" || path === UNKNOWN_SENTINEL) continue;
        if (typeof id === "number") this.byId.set(id, path);
        // A workspace's path also names its parent's: the parent's path is all but its last segment
        // (so a parent the preview does not list, being unchanged, is still found).
        const parentId = state.inputs["parentId"];
        const cut = path.lastIndexOf("/");
        if (typeof parentId === "number" && parentId !== 0 && cut > 0 && !this.byId.has(parentId))
          this.byId.set(parentId, path.slice(0, cut));
      }
      if (step.new !== undefined && brokerResourceOfType(step.new.type)?.kind === "Workspace")
        this.planned.set(step.urn, step.new);
    }
  }

  /** The move of a replaced workspace, or `undefined` when its path stays the same. */
  move(step: StepView): WorkspaceTransition | undefined {
    const from = step.old?.outputs["path"];
    if (typeof from !== "string" || step.new === undefined) return undefined;
    const to = this.pathOf(step.new, new Set([step.urn]));
    if (to === from) return undefined;
    return { from, to, unknown: to.includes(KNOWN_AFTER_UP), source: step.urn };
  }

  /** The path a workspace state will have: its parent's path, then its name. */
  private pathOf(state: StateView, visiting: Set<string>): string {
    const name = state.inputs["name"];
    const own =
      typeof name === "string" && name !== UNKNOWN_SENTINEL
        ? isSecretValue(name)
          ? SECRET_TEXT
          : name
        : KNOWN_AFTER_UP;
    return `${this.parentPath(state, visiting)}/${own}`;
  }

  private parentPath(state: StateView, visiting: Set<string>): string {
    const parentId = state.inputs["parentId"];
    if (parentId === undefined || parentId === null || parentId === 0) return "";
    if (typeof parentId === "number") return this.byId.get(parentId) ?? KNOWN_AFTER_UP;
    // Not known yet: the parent is made (or replaced) in this change; its URN is in the dependencies.
    const dependencies = state.propertyDependencies["parentId"];
    const parentUrn =
      Array.isArray(dependencies) && typeof dependencies[0] === "string" ? dependencies[0] : undefined;
    const parent = parentUrn === undefined ? undefined : this.planned.get(parentUrn);
    if (parentUrn === undefined || parent === undefined || visiting.has(parentUrn)) return KNOWN_AFTER_UP;
    return this.pathOf(parent, new Set([...visiting, parentUrn]));
  }
}
