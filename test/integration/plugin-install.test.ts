import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, inject, it } from "vitest";
import {
  installPlugin,
  pluginDirectory,
  pulumiHome,
  shimScript,
  uninstallPlugin,
} from "../../src/cli/plugin-install";
import { childPath } from "../../harness/repo.mts";
import { expectBrokerSchema } from "../support/plugin-server";

const run = promisify(execFile);
const homes: string[] = [];

function scratchHome(): string {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "pbc-plugin-home-"));
  homes.push(home);
  return home;
}

afterEach(() => {
  for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true });
});

describe("installPlugin / uninstallPlugin", () => {
  it("writes an executable shim running the entry point with the given Node, and no unfinished marker", () => {
    const home = scratchHome();
    const main = path.join(home, "it's main.js");
    fs.writeFileSync(main, "");
    const result = installPlugin({
      pulumiHome: home,
      version: "1.2.3",
      nodePath: process.execPath,
      pluginMain: main,
    });

    expect(result.directory).toBe(path.join(home, "plugins", "resource-broker-v1.2.3"));
    expect(fs.readdirSync(path.join(home, "plugins"))).toEqual(["resource-broker-v1.2.3"]);
    const executable = path.join(result.directory, "pulumi-resource-broker");
    expect(fs.statSync(executable).mode & 0o111).toBe(0o111);
    expect(fs.readFileSync(executable, "utf8")).toBe(shimScript(process.execPath, main));
    // A quote in a path is closed and reopened, so the shell sees the path as one word.
    expect(shimScript("/n/node", "/a/it's.js")).toContain(`exec '/n/node' '/a/it'"'"'s.js' "$@"`);
  });

  it("replaces an earlier install of the same version and removes it again with the engine's markers", () => {
    const home = scratchHome();
    const main = path.join(home, "main.js");
    fs.writeFileSync(main, "");
    const directory = pluginDirectory(home, "0.9.0");
    fs.mkdirSync(directory, { recursive: true });
    fs.writeFileSync(path.join(directory, "stale"), "");
    installPlugin({ pulumiHome: home, version: "0.9.0", pluginMain: main });
    expect(fs.readdirSync(directory)).toEqual(["pulumi-resource-broker"]);

    fs.writeFileSync(`${directory}.lock`, "");
    expect(uninstallPlugin({ pulumiHome: home, version: "0.9.0" }).existed).toBe(true);
    expect(fs.readdirSync(path.join(home, "plugins"))).toEqual([]);
    expect(uninstallPlugin({ pulumiHome: home, version: "0.9.0" }).existed).toBe(false);
  });

  it("refuses to install a plugin whose entry point is missing, and leaves nothing behind", () => {
    const home = scratchHome();
    expect(() => installPlugin({ pulumiHome: home, pluginMain: path.join(home, "missing.js") })).toThrow(
      /missing\.js does not exist: the package is not built \(run `npm run build`/,
    );
    expect(fs.existsSync(path.join(home, "plugins"))).toBe(false);
  });

  it("uses PULUMI_HOME, else ~/.pulumi, as the Pulumi CLI does", () => {
    expect(pulumiHome({ PULUMI_HOME: "/p/home" })).toBe("/p/home");
    expect(pulumiHome({ PULUMI_HOME: "" })).toBe(path.join(os.homedir(), ".pulumi"));
    expect(pulumiHome({})).toBe(path.join(os.homedir(), ".pulumi"));
  });
});

describe("broker-config plugin install (installed package) with the Pulumi CLI", () => {
  it("is listed by `pulumi plugin ls`, serves `pulumi package get-schema broker`, and uninstalls", async () => {
    const home = scratchHome();
    const fixture = inject("packageFixture");
    const env = {
      ...process.env,
      PULUMI_HOME: home,
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      PATH: childPath(inject("pulumiBin")),
    };
    const cli = path.join(fixture, "node_modules", "pulumi-broker-config", "dist", "cli", "broker-config.js");
    const version = (
      JSON.parse(
        fs.readFileSync(path.join(fixture, "node_modules", "pulumi-broker-config", "package.json"), "utf8"),
      ) as { version: string }
    ).version;

    const installed = await run(process.execPath, [cli, "plugin", "install"], { env });
    expect(installed.stdout).toContain(
      `installed the broker plugin v${version} in ${pluginDirectory(home, version)}`,
    );
    const shim = fs.readFileSync(path.join(pluginDirectory(home, version), "pulumi-resource-broker"), "utf8");
    // The engine runs the installed package's plugin with this Node, not whatever `node` is on its PATH.
    expect(shim).toContain(
      `'${process.execPath}' '${path.join(fs.realpathSync(fixture), "node_modules", "pulumi-broker-config", "dist", "native", "main.js")}'`,
    );

    const listed = await run("pulumi", ["plugin", "ls", "--json"], { env, cwd: home });
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({ name: "broker", kind: "resource", version }),
    ]);

    const schema = await run("pulumi", ["package", "get-schema", "broker"], {
      env,
      cwd: home,
      maxBuffer: 16 * 1024 * 1024,
    });
    expectBrokerSchema(schema.stdout, version);

    const removed = await run(process.execPath, [cli, "plugin", "uninstall"], { env });
    expect(removed.stdout).toContain(`removed the broker plugin v${version}`);
    const after = await run("pulumi", ["plugin", "ls", "--json"], { env, cwd: home });
    expect(JSON.parse(after.stdout) as unknown).toEqual([]);
  });
});
