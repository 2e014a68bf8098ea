/**
 * The engine the dynamic provider host serves. Pulumi starts the host as
 * `node …/@pulumi/pulumi/cmd/dynamic-provider/index.js <engine address>`; the address is how our
 * code inside the host reaches the engine (its `Log` RPC, its health check), since the host hands
 * its providers nothing else.
 */

/**
 * The engine's `host:port` when `argv` is the dynamic provider host's command line; `undefined` in
 * any other process (unit tests, scripts, the program itself), which has no engine to talk to.
 */
export function hostEngineAddress(argv: readonly string[] = process.argv): string | undefined {
  const script = argv[1] ?? "";
  const address = argv[2] ?? "";
  return script.includes("dynamic-provider") && /^[\w.[\]:-]+:\d+$/u.test(address) ? address : undefined;
}
