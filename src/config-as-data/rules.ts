/**
 * The rules a JSON Schema cannot state: event paths in the form the API accepts, unique access key
 * names and unique sibling workspace names (each becomes a Pulumi resource name, see `plan.ts`), and
 * no ACCOUNT key unless the document says `allowAccountKeys: true`.
 *
 * They run on any value, valid or not, so that one run reports schema and rule problems together:
 * every part of the value whose shape is wrong is skipped here (the schema already reports it).
 */
import { accountKeyNotAllowedMessage, eventPathMessage, workspacePath } from "../model";
import { formatPath, type PathSegment } from "./paths";

/** A rule violation: where (as path segments) and what. */
export interface RuleViolation {
  segments: PathSegment[];
  message: string;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function itemsOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** Every rule violation in `value` (a document, or something meant to be one). */
export function ruleViolations(value: unknown): RuleViolation[] {
  if (!isObject(value)) return [];
  const violations: RuleViolation[] = [];
  checkWorkspaces(value["workspaces"], ["workspaces"], "/", violations);
  checkAccessKeys(value["accessKeys"], value["allowAccountKeys"] === true, violations);
  return violations;
}

function checkWorkspaces(value: unknown, at: PathSegment[], parentPath: string, out: RuleViolation[]): void {
  const firstByName = new Map<string, PathSegment[]>();
  for (const [index, workspace] of itemsOf(value).entries()) {
    if (!isObject(workspace)) continue;
    const here = [...at, index];
    const name = workspace["name"];
    if (typeof name !== "string") continue;
    const first = firstByName.get(name);
    if (first === undefined) firstByName.set(name, here);
    else {
      out.push({
        segments: [...here, "name"],
        message: `duplicate workspace name ${JSON.stringify(name)} under ${parentPath} (first at ${formatPath(first)}); sibling names must be unique`,
      });
      continue;
    }
    const path = workspacePath(parentPath, name);
    checkWorkspaces(workspace["children"], [...here, "children"], path, out);
  }
}

function checkAccessKeys(value: unknown, allowAccountKeys: boolean, out: RuleViolation[]): void {
  const firstByName = new Map<string, PathSegment[]>();
  for (const [index, key] of itemsOf(value).entries()) {
    if (!isObject(key)) continue;
    const here: PathSegment[] = ["accessKeys", index];
    const name = key["name"];
    if (typeof name === "string") {
      const first = firstByName.get(name);
      if (first === undefined) firstByName.set(name, here);
      else
        out.push({
          segments: [...here, "name"],
          message: `duplicate access key name ${JSON.stringify(name)} (first at ${formatPath(first)}); names must be unique`,
        });
    }
    if (key["type"] === "ACCOUNT" && !allowAccountKeys)
      out.push({
        segments: [...here, "type"],
        message: accountKeyNotAllowedMessage(typeof name === "string" ? name : `accessKeys[${index}]`),
      });
    const permissions = key["permissions"];
    if (!isObject(permissions)) continue;
    for (const field of ["send", "receive"] as const) {
      for (const [i, path] of itemsOf(permissions[field]).entries()) {
        if (typeof path !== "string") continue;
        const message = eventPathMessage(path);
        if (message !== undefined) out.push({ segments: [...here, "permissions", field, i], message });
      }
    }
  }
}
