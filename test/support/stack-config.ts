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

/**
 * What turns config `was` into `next` around one `pulumi up` or `preview` of `stack`: the `pulumi
 * config` commands to run first (a `config rm-all` of the keys `next` lacks; a `config set-all` of
 * the secrets it changes, which only that command encrypts), and the `--config` flags of the plain
 * values it changes, which the run itself saves to the stack: no command of their own.
 */
export function configSteps(
  was: StackConfig,
  next: StackConfig,
  stack: string,
): { commands: string[][]; flags: string[] } {
  const { remove, set } = configChanges(was, next);
  const entries = Object.entries(set);
  const secrets = entries.filter(([, { secret }]) => secret === true);
  const plain = entries.filter(([, { secret }]) => secret !== true);
  const commands: string[][] = [];
  if (remove.length > 0) commands.push(["config", "rm-all", "--stack", stack, ...remove]);
  if (secrets.length > 0)
    commands.push([
      "config",
      "set-all",
      "--stack",
      stack,
      ...secrets.flatMap(([key, { value }]) => ["--secret", `${key}=${value}`]),
    ]);
  return { commands, flags: plain.flatMap(([key, { value }]) => ["--config", `${key}=${value}`]) };
}
