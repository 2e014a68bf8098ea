/**
 * Moving a stack from one config to the next in as few CLI commands as it takes (issue #50: each
 * `pulumi config` command is a CLI start), for the files that change one stack's config between
 * cases instead of making a stack per case.
 */
import type { StackConfig } from "../../harness/pulumi-project.mts";

/** What turns config `was` into `next`: the keys to remove, and the entries to set (new or changed). */
export function configChanges(was: StackConfig, next: StackConfig): { remove: string[]; set: StackConfig } {
  const remove = Object.keys(was).filter((key) => !(key in next));
  const set = Object.fromEntries(
    Object.entries(next).filter(([key, value]) => JSON.stringify(was[key]) !== JSON.stringify(value)),
  );
  return { remove, set };
}
