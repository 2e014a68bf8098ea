/**
 * The dynamic door's look-up functions (`src/dynamic/functions.ts`) in-process: the same core results
 * as the plugin's `Invoke`, their `Output` forms, and where their settings come from. The end-to-end
 * test runs them in a real program through the CLI.
 */
import * as pulumi from "@pulumi/pulumi";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  getAccessKey,
  getAccessKeyOutput,
  getWorkspace,
  getWorkspacesOutput,
  verifyAccessKey,
} from "../../src/dynamic/functions";
import { rejectionOf, useCoreEmulator } from "./support";

const core = useCoreEmulator();

afterEach(() => {
  vi.unstubAllEnvs();
});

/** The value of an Output, and whether it is secret. */
async function resolved<T>(output: pulumi.Output<T>): Promise<{ value: T; secret: boolean }> {
  const value = await new Promise<T>((resolve) => {
    output.apply((v) => {
      resolve(v);
    });
  });
  return { value, secret: await pulumi.isSecret(output) };
}

describe("the dynamic door's functions", () => {
  it("read the environment's settings, like the dynamic resources", async () => {
    const { emulator } = core();
    const made = await core().context().broker.createWorkspaceAndFind({ name: "platform" });
    vi.stubEnv("BROKER_BASE_URL", emulator.url);
    vi.stubEnv("BROKER_API_KEY", emulator.adminKey);
    expect(await getWorkspace({ path: "/platform" })).toMatchObject({ id: made.id, parentId: 0 });
  });

  it("take explicit settings for another environment", async () => {
    const { emulator } = core();
    const created = await core()
      .context()
      .broker.createAccessKeyOnce({ name: "k", type: "ACCOUNT", permissions: {} });
    vi.stubEnv("BROKER_BASE_URL", "http://127.0.0.1:9/v1"); // nothing listens there
    vi.stubEnv("BROKER_API_KEY", "unused");
    const options = { baseUrl: emulator.url, apiKey: emulator.adminKey };
    expect(await getAccessKey({ name: "k" }, options)).toMatchObject({
      id: created.record.id,
      accessKey: created.record.key,
    });
    expect(await verifyAccessKey({ accessKey: created.record.key }, options)).toEqual({ valid: true });
  });

  it("getAccessKeyOutput is a secret Output; a list read with a secret API key is not", async () => {
    const { emulator } = core();
    const created = await core()
      .context()
      .broker.createAccessKeyOnce({ name: "k", type: "SERVICE", permissions: {} });
    const plainKey = { baseUrl: emulator.url, apiKey: emulator.adminKey };
    const key = await resolved(getAccessKeyOutput({ name: pulumi.output("k") }, plainKey));
    expect(key.secret).toBe(true);
    expect(key.value.accessKey).toBe(created.record.key);
    const secretKey = { baseUrl: pulumi.output(emulator.url), apiKey: pulumi.secret(emulator.adminKey) };
    const list = await resolved(getWorkspacesOutput({}, secretKey));
    expect(list).toEqual({ value: { workspaces: [] }, secret: false });
  });

  it("without settings, fail naming the function and both ways to set them", async () => {
    vi.stubEnv("BROKER_BASE_URL", undefined);
    vi.stubEnv("BROKER_API_KEY", undefined);
    const error = await rejectionOf(getWorkspace({ path: "/platform" }));
    expect(error.message).toContain(
      "broker:index:getWorkspace reads the broker API, also during `pulumi preview`",
    );
    expect(error.message).toContain("BROKER_API_KEY");
  });
});
