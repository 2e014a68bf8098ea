/**
 * The Python SDK's wheel and sdist, built by PyPA's `build` without isolation in a venv made from
 * scripts/python/release.lock, so nothing is downloaded at build time and the tools are pinned.
 * The package's README goes in (pyproject.toml names `README.md`, which the generator does not
 * write). The wheel is reproducible through `SOURCE_DATE_EPOCH`; setuptools' sdist is not (it stamps
 * the files' own times), so the sdist is packed again with sorted entries and fixed times.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { cacheRoot } from "./plugin.mts";
import { filesUnder, reproducibleTarGz } from "./reproducible.mts";

/**
 * The setuptools the build backend is. `pip freeze`, hence the locks of scripts/python/lock.sh,
 * never lists setuptools, so its pin lives here and is installed on top of the lock.
 */
const SETUPTOOLS = "setuptools==80.9.0";

/** The venv with `build` and setuptools, pinned; made by scripts/ensure-python-env.sh. */
function buildVenv(repo: string): string {
  const venv = execFileSync(
    "bash",
    [
      path.join(repo, "scripts", "ensure-python-env.sh"),
      path.join(cacheRoot(), "venvs", "release"),
      path.join(repo, "scripts", "python", "release.lock"),
    ],
    { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] },
  ).trim();
  const python = path.join(venv, "bin", "python");
  execFileSync(
    python,
    ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps", SETUPTOOLS],
    {
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
  return python;
}

/**
 * Builds `pulumi_broker-<version>-py3-none-any.whl` and `pulumi_broker-<version>.tar.gz` of the SDK
 * in `sdkDir` (copied first: the build writes into its source) into `outDir`; returns their paths.
 */
export function pythonArtifacts(
  repo: string,
  sdkDir: string,
  version: string,
  epoch: number,
  outDir: string,
): { wheel: string; sdist: string } {
  const python = buildVenv(repo);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "pbc-release-python-"));
  try {
    const source = path.join(work, `pulumi_broker-${version}`);
    fs.cpSync(sdkDir, source, { recursive: true });
    fs.copyFileSync(path.join(repo, "README.md"), path.join(source, "README.md"));
    const pyproject = fs.readFileSync(path.join(source, "pyproject.toml"), "utf8");
    if (!pyproject.includes(`version = "${version}"`))
      throw new Error(`${sdkDir}/pyproject.toml does not carry version ${version}`);
    const built = path.join(work, "dist");
    try {
      // Quiet unless it fails: setuptools warns at length about pyproject.toml's license table,
      // which the generator writes.
      execFileSync(
        python,
        ["-m", "build", "--no-isolation", "--sdist", "--wheel", "--outdir", built, source],
        {
          env: { ...process.env, SOURCE_DATE_EPOCH: String(epoch), PYTHONHASHSEED: "0" },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
    } catch (error) {
      const { stdout, stderr } = error as { stdout?: Buffer; stderr?: Buffer };
      throw new Error(`python -m build failed:\n${String(stdout ?? "")}${String(stderr ?? "")}`, {
        cause: error,
      });
    }
    const wheel = path.join(outDir, `pulumi_broker-${version}-py3-none-any.whl`);
    fs.copyFileSync(path.join(built, path.basename(wheel)), wheel);
    const sdist = path.join(outDir, `pulumi_broker-${version}.tar.gz`);
    repackSdist(path.join(built, path.basename(sdist)), epoch, sdist, work);
    return { wheel, sdist };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** Unpacks the sdist and packs the same files again reproducibly (sorted, fixed owner and times). */
function repackSdist(sdist: string, epoch: number, out: string, work: string): void {
  const unpacked = path.join(work, "sdist");
  fs.mkdirSync(unpacked);
  execFileSync("tar", ["--extract", "--gzip", "--file", sdist, "--directory", unpacked]);
  reproducibleTarGz(
    filesUnder(unpacked).map((name) => ({ name, source: path.join(unpacked, name), mode: 0o644 as const })),
    epoch,
    out,
  );
}
