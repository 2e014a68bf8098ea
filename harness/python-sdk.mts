/**
 * The generated Python SDK (sdk/python) installed as users install it, for the end-to-end tests of
 * Python programs: its wheel built once per content and cached, and a virtualenv per test with it.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { cacheDir, REPO_ROOT } from "./repo.mts";

/**
 * The wheel of sdk/python, built by pip from a copy of it (a build in place would leave `build/` and
 * `*.egg-info` in the checkout) once per content of sdk/python, and cached outside the repository:
 * later runs install it without building (the build fetches setuptools from PyPI).
 */
function sdkWheel(cachedPython: string, scratch: string): string {
  const sdkDir = path.join(REPO_ROOT, "sdk", "python");
  const hash = createHash("sha256");
  const files = fs.readdirSync(sdkDir, { recursive: true, encoding: "utf8" }).sort();
  for (const file of files) {
    const full = path.join(sdkDir, file);
    if (!fs.statSync(full).isFile()) continue;
    hash.update(`${file}\0`).update(fs.readFileSync(full)).update("\0");
  }
  const wheelDir = cacheDir("python", "pulumi-broker-sdk", hash.digest("hex").slice(0, 16));
  const wheelIn = (dir: string): string | undefined => {
    const wheel = fs.existsSync(dir) ? fs.readdirSync(dir).find((f) => f.endsWith(".whl")) : undefined;
    return wheel === undefined ? undefined : path.join(dir, wheel);
  };
  const cached = wheelIn(wheelDir);
  if (cached !== undefined) return cached;
  const copy = path.join(scratch, "sdk-python");
  fs.cpSync(sdkDir, copy, { recursive: true });
  const built = path.join(scratch, "wheel");
  execFileSync(
    cachedPython,
    ["-m", "pip", "wheel", "--quiet", "--disable-pip-version-check", "--no-deps", "--wheel-dir", built, copy],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
  // By rename, so a concurrent run never sees half a directory; whichever run renames first wins.
  fs.mkdirSync(path.dirname(wheelDir), { recursive: true });
  try {
    fs.renameSync(built, wheelDir);
  } catch (error) {
    if (wheelIn(wheelDir) === undefined) throw error;
  }
  const wheel = wheelIn(wheelDir);
  if (wheel === undefined) throw new Error(`pip wheel built no wheel of ${sdkDir} into ${wheelDir}`);
  return wheel;
}

/**
 * A virtualenv of this test's own, with the SDK's wheel installed by pip: `wheel` when given (a
 * release's), else the one built from sdk/python. It sees the packages of the
 * venv of scripts/ensure-python-host.sh (scripts/python/programs.lock: PyPI `pulumi` at the default CLI's version, and the SDK's
 * other dependencies) through a `.pth` file instead of installing them again, and never writes to
 * that venv; `--no-index`: nothing is downloaded.
 */
export function sdkVirtualenv(cachedVenv: string, dir: string, wheel?: string): string {
  const venv = path.join(dir, "venv");
  const cachedPython = path.join(cachedVenv, "bin", "python");
  const python = path.join(venv, "bin", "python");
  const run = (file: string, args: string[]): string =>
    execFileSync(file, args, { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim();
  const purelib = ["-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"];
  run(cachedPython, ["-m", "venv", "--without-pip", venv]);
  fs.writeFileSync(path.join(run(python, purelib), "cached-pulumi.pth"), `${run(cachedPython, purelib)}\n`);
  const wheelFile = wheel ?? sdkWheel(cachedPython, dir);
  run(cachedPython, [
    "-m",
    "pip",
    "--python",
    python,
    "install",
    "--quiet",
    "--disable-pip-version-check",
    "--no-index",
    wheelFile,
  ]);
  // Every dependency the SDK declares is there (from the programs venv's lock), at a version it accepts.
  run(cachedPython, ["-m", "pip", "--python", python, "check", "--disable-pip-version-check"]);
  return venv;
}

/**
 * The venv of Python programs that scripts/ensure-python-host.sh keeps (PyPI `pulumi` at the default
 * CLI's version and the SDK's dependencies, from scripts/python/programs.lock), with the Python
 * language host put beside the CLI of `cliVersion` (the default CLI's when absent). Fast once the
 * global setup has built everything.
 */
export function programsVenv(cliVersion?: string): string {
  const script = path.join(REPO_ROOT, "scripts", "ensure-python-host.sh");
  return execFileSync("bash", cliVersion === undefined ? [script] : [script, cliVersion], {
    cwd: REPO_ROOT,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  }).trim();
}
