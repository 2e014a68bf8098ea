import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { describe, expect, it } from "vitest";

// The generated Node.js SDK (sdk/nodejs) is compiled inside this package, not published on its own:
// the version it asks the engine for must be this package's, or the engine would look for a
// `resource-broker-v<other>` plugin that `broker-config plugin install` never wrote; and the place
// to download it from must be the schema's `pluginDownloadURL`.

const root = path.join(__dirname, "..", "..");
const load = createRequire(__filename);

describe("pulumi-broker-config/native (built)", () => {
  it("asks the engine for the broker plugin at this package's version", () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
      version: string;
    };
    const { pluginDownloadURL } = JSON.parse(fs.readFileSync(path.join(root, "schema.json"), "utf8")) as {
      pluginDownloadURL: string;
    };
    const utilities = load(path.join(root, "dist", "native-sdk", "utilities.js")) as {
      getVersion: () => string;
      resourceOptsDefaults: () => { version?: string; pluginDownloadURL?: string };
    };
    expect(utilities.getVersion()).toBe(version);
    // And where the CLI downloads it when it is not installed (the release's archive).
    expect(utilities.resourceOptsDefaults()).toEqual({ version, pluginDownloadURL });
  });

  it("exports the provider and the three resources under the schema's type tokens", () => {
    const sdk = load(path.join(root, "dist", "native-sdk", "index.js")) as Record<
      string,
      { __pulumiType?: string }
    >;
    expect(sdk["Provider"]?.__pulumiType).toBe("broker");
    expect(sdk["Workspace"]?.__pulumiType).toBe("broker:index:Workspace");
    expect(sdk["AccessKey"]?.__pulumiType).toBe("broker:index:AccessKey");
    expect(sdk["ServiceKeyPair"]?.__pulumiType).toBe("broker:index:ServiceKeyPair");
  });

  it("is reachable as the package subpath ./native", () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
      exports: Record<string, { default?: string; types?: string }>;
    };
    expect(manifest.exports["./native"]).toEqual({
      types: "./dist/native-sdk/index.d.ts",
      default: "./dist/native-sdk/index.js",
    });
  });
});
