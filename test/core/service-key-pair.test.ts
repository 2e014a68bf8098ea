import { describe, expect, it } from "vitest";
import { accessKeyOperations, createAccessKey, checkAccessKey } from "../../src/core/access-key";
import {
  serviceKeyPairOperations,
  checkServiceKeyPair,
  createServiceKeyPair,
  deleteServiceKeyPair,
  diffServiceKeyPair,
  readServiceKeyPair,
  updateServiceKeyPair,
  type ServiceKeyPairInputs,
} from "../../src/core/service-key-pair";
import { toPropertyBag } from "../../src/core/state";
import { NOT_KNOWN } from "../../src/core/unknown";
import { checkedInputs, rejectionOf, useCoreEmulator, type TestContext } from "./support";

const core = useCoreEmulator();

function checked(ctx: TestContext, news: Record<string, unknown>): ServiceKeyPairInputs {
  return checkedInputs(checkServiceKeyPair, serviceKeyPairOperations.decodeInputs, ctx, news);
}

async function keyOf(
  ctx: TestContext,
  name: string,
  type: "SERVICE" | "ACCOUNT" = "SERVICE",
): Promise<string> {
  const result = checkAccessKey(ctx, { name, type }, undefined);
  if (result.inputs === undefined) throw new Error("check failed");
  const key = await createAccessKey(ctx, accessKeyOperations.decodeInputs(toPropertyBag(result.inputs)));
  return key.outputs.accessKey;
}

describe("ServiceKeyPair core", () => {
  it("rotates the pair on create and when rotationTriggers change; create, read and update return the same shape", async () => {
    const ctx = core().context();
    const accessKey = await keyOf(ctx, "owner");
    const inputs = checked(ctx, { accessKey, rotationTriggers: { q: "1" } });
    const pair = await createServiceKeyPair(ctx, inputs);
    expect(pair.outputs).toEqual({
      accessKey,
      rotationTriggers: { q: "1" },
      allowEndpointChange: false,
      baseUrl: core().emulator.url,
      accessKeyId: Number(pair.id),
      publicKey: await core().controls.publicKeyOf(Number(pair.id)),
      privateKey: expect.any(String) as string,
      rotatedAt: expect.any(String) as string,
    });
    expect(await readServiceKeyPair(ctx, pair.id, pair.outputs)).toEqual({
      exists: true,
      id: pair.id,
      outputs: pair.outputs,
      inputs,
    });

    await core().controls.clearRequests();
    expect(await updateServiceKeyPair(ctx, pair.id, pair.outputs, inputs)).toEqual(pair.outputs);
    expect(await core().controls.requests()).toEqual([]);

    const news = checked(ctx, { accessKey, rotationTriggers: { q: "2", by: "ops" } });
    const diff = diffServiceKeyPair(inputs, news);
    expect(diff).toMatchObject({ changes: true, replaces: [], changed: ["rotationTriggers"] });
    expect(diff.details).toEqual([
      { path: "rotationTriggers.by", kind: "add", replace: false },
      { path: "rotationTriggers.q", kind: "update", replace: false },
    ]);
    const rotated = await updateServiceKeyPair(ctx, pair.id, pair.outputs, news);
    expect(rotated.privateKey).not.toBe(pair.outputs.privateKey);
    expect(rotated).toEqual({
      ...pair.outputs,
      rotationTriggers: { q: "2", by: "ops" },
      publicKey: await core().controls.publicKeyOf(Number(pair.id)),
      privateKey: rotated.privateKey,
      rotatedAt: rotated.rotatedAt,
    });
  });

  it("a new key replaces the pair; a key not known yet (preview) is a change, not a replacement", () => {
    const old = { accessKey: "bks_a", rotationTriggers: {}, allowEndpointChange: false };
    expect(diffServiceKeyPair(old, { ...old, accessKey: "bks_b" })).toMatchObject({
      replaces: ["accessKey"],
    });
    const preview = diffServiceKeyPair(old, { ...old, accessKey: NOT_KNOWN });
    expect(preview).toMatchObject({ changes: true, replaces: [], changed: ["accessKey"] });
    expect(preview.details).toEqual([{ path: "accessKey", kind: "update", replace: false }]);
  });

  it("rejects an ACCOUNT key and a key that does not exist, never echoing the value", async () => {
    const ctx = core().context();
    const account = await keyOf(ctx, "acct", "ACCOUNT");
    const error = await rejectionOf(createServiceKeyPair(ctx, checked(ctx, { accessKey: account })));
    expect(error.message).toMatch(/ACCOUNT key; only SERVICE keys have encryption key pairs/u);
    expect(error.message).not.toContain(account);
    const missing = await rejectionOf(createServiceKeyPair(ctx, checked(ctx, { accessKey: "bks_nothing" })));
    expect(missing.message).toMatch(/does not exist on the broker/u);
    expect(missing.message).not.toContain("bks_nothing");
  });

  it("is gone on refresh when its key is gone, and only warns on delete", async () => {
    const ctx = core().context();
    const accessKey = await keyOf(ctx, "short-lived");
    const pair = await createServiceKeyPair(ctx, checked(ctx, { accessKey }));
    await core().controls.removeAccessKey(pair.outputs.accessKeyId);
    expect(await readServiceKeyPair(ctx, pair.id, pair.outputs)).toEqual({ exists: false });
    await deleteServiceKeyPair(ctx, pair.id, pair.outputs);
    expect(ctx.warnings).toEqual([expect.stringMatching(/keeps its current pair/u)]);
  });

  it("refuses to rotate a pair recorded at another endpoint", async () => {
    const ctx = core().context();
    const pair = await createServiceKeyPair(ctx, checked(ctx, { accessKey: await keyOf(ctx, "k") }));
    const other = core().context({ configuredBaseUrl: "http://127.0.0.1:1/v1" });
    const error = await rejectionOf(
      updateServiceKeyPair(other, pair.id, pair.outputs, { ...pair.outputs, rotationTriggers: { q: "x" } }),
    );
    expect(error.message).toMatch(/Rotating service key pair \d+: this resource lives at/u);
  });
});
