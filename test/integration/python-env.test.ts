import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PULUMI_VERSION, REPO_ROOT } from "../../harness/repo.mts";

// The virtualenvs that Python programs, the SDK's tests and Schemathesis run in are environments,
// not caches: scripts/ensure-python-env.sh must make one hold exactly its lock on every run, whatever
// an earlier run left in it. A machine whose cached venv happened to hold the SDK's `parver` once
// hid that the scripts never installed it; these tests hold the script and the lock to that.

const ensureScript = path.join(REPO_ROOT, "scripts", "ensure-python-env.sh");
const programsLock = path.join(REPO_ROOT, "scripts", "python", "programs.lock");
let dir: string;
let venv: string;
let python: string;

/** Runs the preparation as every script does, and returns what it printed on stdout. */
function ensure(): string {
  return execFileSync("bash", [ensureScript, venv, programsLock], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  }).trim();
}

function py(code: string): string {
  return execFileSync(python, ["-c", code], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
}

function installed(): string[] {
  return execFileSync(python, ["-m", "pip", "freeze", "--disable-pip-version-check"], { encoding: "utf8" })
    .split("\n")
    .filter((line) => line !== "");
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "pbc-python-env-"));
  venv = path.join(dir, "venv");
  python = path.join(venv, "bin", "python");
  expect(ensure()).toBe(venv);
}, 300_000);

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("scripts/ensure-python-env.sh", () => {
  it("makes a venv that holds every pin of the lock and nothing else", () => {
    const pins = fs
      .readFileSync(programsLock, "utf8")
      .split("\n")
      .filter((line) => line !== "" && !line.startsWith("#"));
    expect(pins.length).toBeGreaterThan(3);
    const normalise = (pin: string): string => pin.toLowerCase().replace(/[-_.]+(?=.*==)/gu, "-");
    expect(installed().map(normalise).sort()).toEqual(pins.map(normalise).sort());
  });

  // One run of the script repairs all three kinds of damage (each costs a run of pip): a requirement
  // of the SDK removed, a distribution at another version than its pin, one the lock does not name.
  it("puts back a removed requirement and a pin found at another version, and uninstalls what the lock does not name", () => {
    execFileSync(python, ["-m", "pip", "uninstall", "--quiet", "--yes", "parver"], { stdio: "ignore" });
    expect(() => py("import parver")).toThrow(/No module named 'parver'/u);

    const pinned = py("import importlib.metadata as m; print(m.version('semver'))");
    execFileSync(python, ["-m", "pip", "install", "--quiet", "--no-deps", "semver==3.0.2"], {
      stdio: "ignore",
    });
    expect(py("import importlib.metadata as m; print(m.version('semver'))")).toBe("3.0.2");

    // A distribution as an earlier run or a test could leave it: a module and its dist-info record.
    const site = py("import sysconfig; print(sysconfig.get_paths()['purelib'])");
    const distInfo = path.join(site, "left_behind-1.0.dist-info");
    fs.mkdirSync(distInfo);
    fs.writeFileSync(path.join(site, "left_behind.py"), "");
    fs.writeFileSync(
      path.join(distInfo, "METADATA"),
      "Metadata-Version: 2.1\nName: left-behind\nVersion: 1.0\n",
    );
    fs.writeFileSync(path.join(distInfo, "INSTALLER"), "pip\n");
    fs.writeFileSync(
      path.join(distInfo, "RECORD"),
      ["left_behind.py,,", "left_behind-1.0.dist-info/METADATA,,", "left_behind-1.0.dist-info/INSTALLER,,"]
        .concat("left_behind-1.0.dist-info/RECORD,,", "")
        .join("\n"),
    );
    expect(installed()).toContain("left-behind==1.0");

    ensure();
    expect(py("import parver; print(parver.__name__)")).toBe("parver");
    expect(py("import importlib.metadata as m; print(m.version('semver'))")).toBe(pinned);
    expect(installed()).not.toContain("left-behind==1.0");
    expect(fs.existsSync(path.join(site, "left_behind.py"))).toBe(false);
  });
});

describe("scripts/python/programs.lock", () => {
  it("pins pulumi at the default CLI's version and satisfies every dependency sdk/python declares", () => {
    // Evaluated by `packaging` (pinned in the lock) in the venv, with the venv's own Python for markers.
    const check = [
      "import sys, tomllib",
      "from packaging.requirements import Requirement",
      "pins = {}",
      "for line in open(sys.argv[1]):",
      "    line = line.strip()",
      "    if line and not line.startswith('#'):",
      "        name, version = line.split('==')",
      "        pins[name.lower().replace('_', '-')] = version",
      "project = tomllib.load(open(sys.argv[2], 'rb'))['project']",
      "unmet = []",
      "for text in project['dependencies']:",
      "    req = Requirement(text)",
      "    if req.marker is not None and not req.marker.evaluate():",
      "        continue",
      "    pin = pins.get(req.name.lower().replace('_', '-'))",
      "    if pin is None or not req.specifier.contains(pin, prereleases=True):",
      "        unmet.append(f'{text} (lock: {pin})')",
      "print(pins.get('pulumi'))",
      "print('; '.join(unmet))",
    ].join("\n");
    const [pulumi, unmet] = execFileSync(
      python,
      ["-c", check, programsLock, path.join(REPO_ROOT, "sdk", "python", "pyproject.toml")],
      { encoding: "utf8" },
    ).split("\n");
    expect(pulumi).toBe(PULUMI_VERSION);
    expect(unmet).toBe("");
  });
});
