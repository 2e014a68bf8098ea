/** Building a {@link DiffResult} property by property. */
import type { ChangeKind, DiffResult, PropertyChange } from "./results";
import { NOT_KNOWN, type NotKnown } from "./unknown";

/** How a top-level property changes: `add` when it was absent, `delete` when it is now, else `update`. */
export function changeKind(old: unknown, now: unknown): ChangeKind {
  if (old === undefined && now !== undefined) return "add";
  if (now === undefined && old !== undefined) return "delete";
  return "update";
}

/** Whether two plain JSON values differ (a value not known yet always differs). */
export function valueChanged(old: unknown, now: unknown): boolean {
  if (now === NOT_KNOWN) return true;
  return JSON.stringify(old) !== JSON.stringify(now);
}

/**
 * The entries added to and removed from a list compared as a set, as detailed-diff paths: an added
 * entry by its index in the new list, a removed one by its index in the old list.
 */
export function listChanges(
  path: string,
  old: readonly string[],
  now: readonly string[],
  replace: boolean,
): PropertyChange[] {
  const removed = old.flatMap((entry, index) =>
    now.includes(entry) ? [] : [{ path: `${path}[${index}]`, kind: "delete" as const, replace }],
  );
  const added = now.flatMap((entry, index) =>
    old.includes(entry) ? [] : [{ path: `${path}[${index}]`, kind: "add" as const, replace }],
  );
  return [...removed, ...added];
}

/** The keys added, removed or changed between two string maps, as detailed-diff paths. */
export function mapChanges(
  path: string,
  old: Readonly<Record<string, string>>,
  now: Readonly<Record<string, string>>,
  replace: boolean,
): PropertyChange[] {
  const keys = [...new Set([...Object.keys(old), ...Object.keys(now)])].sort();
  return keys.flatMap((key) => {
    const before = old[key];
    const after = now[key];
    if (before === after) return [];
    return [{ path: `${path}.${key}`, kind: changeKind(before, after), replace }];
  });
}

/** Collects the changes of one diff, in the order the properties are given. */
export class DiffBuilder {
  readonly #changed: string[] = [];
  readonly #replaces: string[] = [];
  readonly #details: PropertyChange[] = [];

  /** A builder that adds its properties after those of `base`. */
  static extending(base: DiffResult): DiffBuilder {
    const builder = new DiffBuilder();
    builder.#changed.push(...base.changed);
    builder.#replaces.push(...base.replaces);
    builder.#details.push(...base.details);
    return builder;
  }

  /**
   * Records `property` as changed when `changed` is true.
   * @param details the changed paths inside the property; by default one change of the whole property.
   */
  property(
    property: string,
    changed: boolean,
    options: { replace: boolean; kind?: ChangeKind; details?: readonly PropertyChange[] },
  ): this {
    if (!changed) return this;
    this.#changed.push(property);
    if (options.replace) this.#replaces.push(property);
    const details = options.details ?? [];
    if (details.length > 0) this.#details.push(...details);
    else this.#details.push({ path: property, kind: options.kind ?? "update", replace: options.replace });
    return this;
  }

  /** The diff. */
  build(): DiffResult {
    return {
      changes: this.#changed.length > 0,
      replaces: [...this.#replaces],
      changed: [...this.#changed],
      details: [...this.#details],
      deleteBeforeReplace: false,
    };
  }
}

/** `value` unless it is not known yet. */
export function known<T>(value: T | NotKnown): T | undefined {
  return value === NOT_KNOWN ? undefined : value;
}
