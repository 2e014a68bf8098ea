/**
 * The Go SDK as a module in a GOPROXY directory (the layout of the module proxy protocol, which the
 * go command reads from `GOPROXY=file://<dir>`): `<module>/@v/list`, `<v>.info`, `<v>.mod` and
 * `<v>.zip`. The zip is written by scripts/release/gomodzip (golang.org/x/mod/zip, as the go command
 * makes module zips), built once per machine and revision of its sources into the cache.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { cacheRoot } from "./plugin.mts";

/** The module path of a Go module directory, from its go.mod. */
export function goModulePath(moduleDir: string): string {
  const found = /^module\s+(\S+)\s*$/mu.exec(fs.readFileSync(path.join(moduleDir, "go.mod"), "utf8"))?.[1];
  if (found === undefined) throw new Error(`${moduleDir}/go.mod names no module`);
  return found;
}

/** The gomodzip program, built when its sources changed. */
function gomodzip(repo: string): string {
  const src = path.join(repo, "scripts", "release", "gomodzip");
  const hash = createHash("sha256");
  for (const file of ["go.mod", "go.sum", "main.go"]) hash.update(fs.readFileSync(path.join(src, file)));
  const binary = path.join(cacheRoot(), "gomodzip", hash.digest("hex").slice(0, 16), "gomodzip");
  if (!fs.existsSync(binary)) {
    fs.mkdirSync(path.dirname(binary), { recursive: true });
    execFileSync("go", ["build", "-o", `${binary}.tmp`, "."], {
      cwd: src,
      // The flags of every Go build of ours (scripts/lib/go-build-env.sh), so the standard library
      // comes from Go's build cache rather than compiling again.
      env: { ...process.env, CGO_ENABLED: "0", GOFLAGS: "-mod=readonly -trimpath" },
      stdio: ["ignore", "ignore", "inherit"],
    });
    fs.renameSync(`${binary}.tmp`, binary);
  }
  return binary;
}

/**
 * Writes the module in `moduleDir` at `v<version>` under `<proxyDir>/<module path>/@v/`, stamped
 * with `epoch` as its time. Returns the module path. (Module paths here are lower case, so they
 * need none of the protocol's `!` escaping.)
 */
export function goProxyModule(
  repo: string,
  moduleDir: string,
  version: string,
  epoch: number,
  proxyDir: string,
): string {
  const modulePath = goModulePath(moduleDir);
  if (modulePath !== modulePath.toLowerCase())
    throw new Error(`module path ${modulePath} would need escaping`);
  const tag = `v${version}`;
  const dir = path.join(proxyDir, ...modulePath.split("/"), "@v");
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "list"), `${tag}\n`);
  fs.writeFileSync(
    path.join(dir, `${tag}.info`),
    `${JSON.stringify({ Version: tag, Time: new Date(epoch * 1000).toISOString().replace(".000Z", "Z") })}\n`,
  );
  fs.copyFileSync(path.join(moduleDir, "go.mod"), path.join(dir, `${tag}.mod`));
  execFileSync(
    gomodzip(repo),
    ["-module", modulePath, "-version", tag, "-dir", moduleDir, "-out", path.join(dir, `${tag}.zip`)],
    {
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
  return modulePath;
}
