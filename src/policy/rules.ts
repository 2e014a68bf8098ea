/**
 * The rules of the broker policy pack, as pure functions over the properties the Pulumi engine
 * hands an analyzer (a resource's checked inputs). Each returns the messages of its violations,
 * each naming the resource, the offending path or value, and what to change. The grammar of event
 * paths and the kinds of keys come from the domain model (`../model`), so the pack reads paths
 * exactly as the providers' `check` does.
 *
 * `./pack.ts` wires them into `@pulumi/policy` policies; these functions know nothing of it, which
 * keeps them testable on plain objects.
 */
import { eventPathScope, isPlainObject, normalizePermissions } from "../model";
import type { BrokerResourceKind } from "./resources";

/** The permission lists the rules read, in the order messages name them. */
const DIRECTIONS = ["send", "receive"] as const;
type Direction = (typeof DIRECTIONS)[number];

/** What a direction allows, as the messages say it. */
const VERB: Record<Direction, string> = { send: "send to", receive: "receive from" };

/** A resource as the rules see it: its kind, its logical name in the program, its checked inputs. */
export interface BrokerResourceView {
  /** Which broker resource it is (either door). */
  kind: BrokerResourceKind;
  /** The resource's logical name in the program (the name in its URN). */
  resourceName: string;
  /** The resource's inputs as the engine passes them to the analyzer. */
  props: Record<string, unknown>;
}

/** An event path of a key's permissions, with the property path it sits at. */
interface PermissionPath {
  direction: Direction;
  path: string;
  /**
   * Where the program wrote it: `permissions.send[1]` when its index in the program's list is known,
   * else `permissions.send` (see {@link programIndexKnown}).
   */
  property: string;
}

/** How a message names a resource: `AccessKey "orders-service"`. */
function label(resource: { kind: BrokerResourceKind; resourceName: string }): string {
  return `${resource.kind} ${JSON.stringify(resource.resourceName)}`;
}

/** The event paths of an AccessKey's `permissions` (none for other resources, or non-string entries). */
function permissionPaths(resource: BrokerResourceView): PermissionPath[] {
  if (resource.kind !== "AccessKey") return [];
  const permissions = resource.props["permissions"];
  if (!isPlainObject(permissions)) return [];
  const paths: PermissionPath[] = [];
  for (const direction of DIRECTIONS) {
    const list = permissions[direction];
    if (!Array.isArray(list)) continue;
    const indexed = programIndexKnown(list);
    for (const [index, path] of list.entries()) {
      if (typeof path === "string")
        paths.push({
          direction,
          path,
          property: indexed ? `permissions.${direction}[${index}]` : `permissions.${direction}`,
        });
    }
  }
  return paths;
}

/**
 * Whether an index into `list`, a permission list as the analyzer sees it, is also the index of the
 * path in the program's own list. The engine hands a policy the inputs `check` returned, and `check`
 * of both doors sorts a list and drops repeats (the model's `normalizePermissions`): the program's
 * `["billing/invoiced", "audit/*"]` reaches the pack as `["audit/*", "billing/invoiced"]`, where
 * index 0 is not where the program wrote `audit/*`. The index is known only when
 * - the list holds one path: the program's held that path alone (perhaps repeated), first at 0; or
 * - the list is not in `check`'s order: `check` refused the inputs, and the engine passed on the
 *   program's own list (both doors return the program's inputs with their failures).
 * Otherwise a message names the list without an index.
 */
function programIndexKnown(list: readonly unknown[]): boolean {
  if (list.length <= 1) return true;
  if (!list.every((path): path is string => typeof path === "string")) return true;
  const canonical = normalizePermissions({ send: list }).send;
  return canonical.length !== list.length || canonical.some((path, index) => path !== list[index]);
}

/**
 * `broker-no-all-event-paths`: a key may not `send` or `receive` `*`, every event path of the
 * broker. (The providers' `check` refuses `*` too; the pack reports it as a policy violation in the
 * summary a reviewer reads, for either door.)
 */
export function allEventPathsViolations(resource: BrokerResourceView): string[] {
  return permissionPaths(resource)
    .filter(({ path }) => eventPathScope(path) === "all")
    .map(
      ({ direction, path, property }) =>
        `${label(resource)} may ${VERB[direction]} ${JSON.stringify(path)} (${property}), every event path of the broker: ` +
        `list the paths it needs instead, such as "orders/created" or "orders/*".`,
    );
}

/** Configuration of {@link topLevelWildcardViolations}. */
export interface TopLevelWildcardConfig {
  /** Top-level wildcards that are allowed, such as `"audit/*"`. */
  allowedPaths: readonly string[];
}

/**
 * `broker-no-top-level-wildcards`: a wildcard directly under the root (`orders/*`) grants every
 * event of a whole area; allowed per path through `allowedPaths`.
 */
export function topLevelWildcardViolations(
  resource: BrokerResourceView,
  config: TopLevelWildcardConfig,
): string[] {
  return permissionPaths(resource)
    .filter(({ path }) => eventPathScope(path) === "top-level" && !config.allowedPaths.includes(path))
    .map(({ direction, path, property }) => {
      const area = path.split("/")[0] ?? path;
      return (
        `${label(resource)} may ${VERB[direction]} ${JSON.stringify(path)} (${property}), every event under the top-level path ${JSON.stringify(area)}: ` +
        `name the paths below it that the key needs (such as "${area}/created"), or allow ${JSON.stringify(path)} in this policy's allowedPaths.`
      );
    });
}

/**
 * `broker-no-account-keys`: an ACCOUNT key can change the whole broker configuration through the
 * API; a stack that creates one hands that power to whoever reads its outputs. A key the stack
 * adopted (`adopt: true`) was not created by it and is not reported.
 */
export function accountKeyViolations(resource: BrokerResourceView): string[] {
  if (resource.kind !== "AccessKey" || resource.props["type"] !== "ACCOUNT") return [];
  if (resource.props["adopt"] === true) return [];
  return [
    `${label(resource)} creates an ACCOUNT key (type: "ACCOUNT"), which may change the whole broker configuration through the API: ` +
      `use type "SERVICE" for a key that connects clients to the broker, or create ACCOUNT keys outside the stack.`,
  ];
}

/**
 * `broker-no-send-and-receive-wildcard`: one key that both publishes and subscribes to the same
 * wildcard (`orders/*` in `send` and in `receive`) can read back and forge every event of that area.
 */
export function sendAndReceiveWildcardViolations(resource: BrokerResourceView): string[] {
  const paths = permissionPaths(resource).filter(({ path }) => eventPathScope(path) !== "exact");
  const sent = new Map<string, string>();
  for (const { direction, path, property } of paths) if (direction === "send") sent.set(path, property);
  const messages: string[] = [];
  const reported = new Set<string>();
  for (const { direction, path, property } of paths) {
    const sendProperty = sent.get(path);
    if (direction !== "receive" || sendProperty === undefined || reported.has(path)) continue;
    reported.add(path);
    messages.push(
      `${label(resource)} may both send to and receive from the wildcard ${JSON.stringify(path)} (${sendProperty}, ${property}): ` +
        `give publishing and subscribing to separate keys, or narrow one of the lists to the paths it needs.`,
    );
  }
  return messages;
}

/** Configuration of {@link namePatternViolations}: regular expressions (ECMAScript, `u` flag). */
export interface NamePatternConfig {
  /** The pattern a Workspace's `name` must match. */
  workspaceNamePattern: string;
  /** The pattern an AccessKey's `name` must match. */
  keyNamePattern: string;
}

/**
 * The default name patterns: lowercase letters and digits, in words joined by `-`, `_` or `.`
 * (`orders`, `orders-service`, and the generated `orders-service-1a2b3c4`).
 */
export const DEFAULT_NAME_PATTERN = "^[a-z0-9]+(?:[-_.][a-z0-9]+)*$";

/**
 * `broker-names-match-pattern`: workspace and key names follow the team's convention. A name the
 * program leaves to the provider is checked as generated (checked inputs hold it).
 */
export function namePatternViolations(resource: BrokerResourceView, config: NamePatternConfig): string[] {
  const setting =
    resource.kind === "Workspace"
      ? "workspaceNamePattern"
      : resource.kind === "AccessKey"
        ? "keyNamePattern"
        : undefined;
  if (setting === undefined) return [];
  const name = resource.props["name"];
  if (typeof name !== "string") return [];
  const pattern = config[setting];
  let regex: RegExp;
  try {
    regex = new RegExp(pattern, "u");
  } catch (error) {
    return [
      `the policy config's ${setting} ${JSON.stringify(pattern)} is not a valid regular expression (${(error as Error).message}): ` +
        `fix it in the policy config file, so that ${label(resource)} can be checked.`,
    ];
  }
  if (regex.test(name)) return [];
  return [
    `${label(resource)} is named ${JSON.stringify(name)} (name), which does not match ${setting} ${JSON.stringify(pattern)}: ` +
      `rename it to match (a new name replaces the object), or change ${setting} in the policy config.`,
  ];
}

/**
 * A resource of a stack as the keys-per-workspace rule sees it: its kind (`undefined` for a resource
 * that is not the broker's, such as a component between a workspace and its keys) and its parent.
 */
export interface StackResourceView {
  /** Which broker resource it is, or `undefined` for any other resource. */
  kind: BrokerResourceKind | undefined;
  /** The resource's logical name in the program. */
  resourceName: string;
  /** The URN of the resource. */
  urn: string;
  /** The URN of its Pulumi parent, if any. */
  parentUrn?: string | undefined;
}

/** Configuration of {@link keysPerWorkspaceViolations}. */
export interface KeysPerWorkspaceConfig {
  /** The most access keys one workspace may hold. */
  maxKeys: number;
}

/**
 * `broker-max-keys-per-workspace`: more than `maxKeys` access keys in one workspace is hard to
 * review. The API does not tie keys to workspaces, so the program does: a key belongs to the nearest
 * Workspace among its Pulumi parents (`{ parent: workspace }`); keys with none count together as the
 * stack's keys outside any workspace.
 */
export function keysPerWorkspaceViolations(
  resources: readonly StackResourceView[],
  config: KeysPerWorkspaceConfig,
): string[] {
  const byUrn = new Map(resources.map((resource) => [resource.urn, resource]));
  const counts = new Map<
    string,
    { workspace: (StackResourceView & { kind: "Workspace" }) | undefined; keys: string[] }
  >();
  for (const resource of resources) {
    if (resource.kind !== "AccessKey") continue;
    let workspace: (StackResourceView & { kind: "Workspace" }) | undefined;
    const seen = new Set<string>();
    for (let parent = resource.parentUrn; parent !== undefined && !seen.has(parent);) {
      seen.add(parent);
      const candidate = byUrn.get(parent);
      if (candidate === undefined) break;
      if (candidate.kind === "Workspace") {
        workspace = { ...candidate, kind: "Workspace" };
        break;
      }
      parent = candidate.parentUrn;
    }
    const key = workspace?.urn ?? "";
    const entry = counts.get(key) ?? { workspace, keys: [] };
    entry.keys.push(resource.resourceName);
    counts.set(key, entry);
  }
  const messages: string[] = [];
  // Keys are listed sorted: the engine registers resources in no fixed order.
  for (const { workspace, keys } of counts.values()) {
    if (keys.length <= config.maxKeys) continue;
    const where =
      workspace === undefined
        ? "The stack holds"
        : `${label(workspace)} holds (as the Pulumi parent of each)`;
    const what = workspace === undefined ? " outside any workspace" : "";
    messages.push(
      `${where} ${keys.length} access keys${what}, more than maxKeys (${config.maxKeys}): ${[...keys]
        .sort()
        .map((k) => JSON.stringify(k))
        .join(", ")}. ` +
        `Share keys between services that need the same paths, split the workspace, or raise maxKeys in the policy config.`,
    );
  }
  return messages;
}
