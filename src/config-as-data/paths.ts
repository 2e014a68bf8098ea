/** Paths into a document: as ajv reports them (JSON pointers) and as people read them. */

/** One step into a document: a property name or an array index. */
export type PathSegment = string | number;

/** The segments of a JSON pointer such as `/accessKeys/1/type` (ajv's `instancePath`). */
export function pointerSegments(pointer: string): PathSegment[] {
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((raw) => raw.replace(/~1/gu, "/").replace(/~0/gu, "~"))
    .map((segment) => (/^(?:0|[1-9]\d*)$/u.test(segment) ? Number(segment) : segment));
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/u;

/**
 * A path as people read it, such as `accessKeys[2].permissions.send[0]`; `""` for the document root.
 * Property names that are not identifiers are quoted: `resources["my key"]`.
 */
export function formatPath(segments: readonly PathSegment[]): string {
  let text = "";
  for (const segment of segments) {
    if (typeof segment === "number") text += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) text += text === "" ? segment : `.${segment}`;
    else text += `[${JSON.stringify(segment)}]`;
  }
  return text;
}

/**
 * Orders two paths as their places appear in `value` (object properties in insertion order, which
 * for a parsed file is the file's order; array items by index). A path that leads to no value (a
 * missing required property) comes after its existing siblings.
 */
export function compareInDocumentOrder(
  value: unknown,
  a: readonly PathSegment[],
  b: readonly PathSegment[],
): number {
  let node = value;
  for (const [i, segment] of a.entries()) {
    const other = b[i];
    if (other === undefined) break;
    const difference = rankOf(node, segment) - rankOf(node, other);
    if (difference !== 0) return difference;
    node = childOf(node, segment);
  }
  return a.length - b.length;
}

function rankOf(node: unknown, segment: PathSegment): number {
  if (Array.isArray(node) && typeof segment === "number") return segment;
  if (typeof node === "object" && node !== null) {
    const index = Object.keys(node).indexOf(String(segment));
    return index === -1 ? Number.MAX_SAFE_INTEGER : index;
  }
  return 0;
}

function childOf(node: unknown, segment: PathSegment): unknown {
  if (typeof node !== "object" || node === null) return undefined;
  return (node as Record<string, unknown>)[String(segment)];
}
