// One measurement of `importCost` (bench/sections/import-cost.mts), in a fresh process started in
// the package fixture: the CPU time (user + system) that requiring the modules named on the command
// line takes, resolved from the working directory as a program there resolves them, and which
// packages that left loaded.
"use strict";
const targets = process.argv.slice(2).map((name) => require.resolve(name, { paths: [process.cwd()] }));
const before = process.cpuUsage();
for (const target of targets) require(target);
const spent = process.cpuUsage(before);
const loaded = new Set();
for (const file of Object.keys(require.cache)) {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules\/)/u.exec(file);
  if (match) loaded.add(match[1]);
}
process.stdout.write(JSON.stringify({ cpuMs: (spent.user + spent.system) / 1000, loaded: [...loaded] }));
