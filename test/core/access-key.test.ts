import * as crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { BrokerClient, type CreateAccessKeyInput, type CreatedAccessKey } from "../../src/client";
import {
  accessKeyOperations,
  checkAccessKey,
  createAccessKey,
  deleteAccessKey,
  diffAccessKey,
  readAccessKey,
  updateAccessKey,
  type AccessKeyOutputs,
} from "../../src/core/access-key";
import { isPartiallyCreatedError } from "../../src/core/partial-failure";
import { toPropertyBag } from "../../src/core/state";
import { checkerOf, rejectionOf, useCoreEmulator, type TestContext } from "./support";

const core = useCoreEmulator();

/** How messages name the `onDelete` input, in every language's spelling. */
const ON_DELETE = "`onDelete` (`on_delete` in Python, `OnDelete` in Go and .NET)";

/** Check (as the engine does first), then the inputs create receives. */
const checked = checkerOf(checkAccessKey, accessKeyOperations.decodeInputs);

/**
 * A key's outputs: `fields` over what every key of these tests holds, each input left unset at its
 * declared default (`onDelete` has none: absent), the emulator's URL, and not adopted.
 */
function keyOutputs(fields: Record<string, unknown>): Record<string, unknown> {
  return {
    adopt: false,
    rotationTriggers: {},
    allowEndpointChange: false,
    baseUrl: core().emulator.url,
    adopted: false,
    ...fields,
  };
}

/** Check, then create: a key made as the engine makes one. */
function created(ctx: TestContext, news: Record<string, unknown>): ReturnType<typeof createAccessKey> {
  return createAccessKey(ctx, checked(ctx, news));
}

/** A server that ignores the permissions sent with a create: the key starts with none. */
class PermissionlessCreate extends BrokerClient {
  override createAccessKey(input: CreateAccessKeyInput): Promise<CreatedAccessKey> {
    return super.createAccessKey({ ...input, permissions: {} });
  }
}

/** The created-but-failed error of a create, with its outputs. */
async function partialFailureOf(
  promise: Promise<unknown>,
): Promise<{ createdId: string; outputs: AccessKeyOutputs; message: string; reason: string }> {
  const error = await rejectionOf(promise);
  if (!isPartiallyCreatedError(error)) throw error;
  return {
    createdId: error.createdId,
    outputs: error.outputs as AccessKeyOutputs,
    message: error.message,
    reason: error.reason,
  };
}

describe("AccessKey core", () => {
  it("creates a SERVICE key with its pair; create, read and update return the same shape", async () => {
    const ctx = core().context();
    const inputs = checked(ctx, {
      name: "svc",
      type: "SERVICE",
      permissions: { send: ["orders/created", "orders/created", "audit/*"], receive: ["payments/*"] },
    });
    const key = await createAccessKey(ctx, inputs);
    expect(key.id).toBe(String(key.outputs.accessKeyId));
    expect(key.outputs).toEqual(
      keyOutputs({
        name: "svc",
        type: "SERVICE",
        permissions: { send: ["audit/*", "orders/created"], receive: ["payments/*"], resources: {} },
        accessKey: expect.stringMatching(/^bks_/u) as string,
        accessKeyId: Number(key.id),
        createdAt: expect.any(String) as string,
        publicKey: expect.any(String) as string,
        privateKey: expect.any(String) as string,
      }),
    );
    const publicKey = crypto.createPublicKey(
      crypto.createPrivateKey({
        key: Buffer.from(key.outputs.privateKey ?? "", "base64"),
        format: "der",
        type: "pkcs8",
      }),
    );
    expect(publicKey.export({ format: "der", type: "spki" }).toString("base64")).toBe(key.outputs.publicKey);

    const read = await readAccessKey(ctx, key.id, key.outputs);
    expect(read).toEqual({ exists: true, id: key.id, outputs: key.outputs, inputs });
    await core().controls.clearRequests();
    expect(await updateAccessKey(ctx, key.id, key.outputs, inputs)).toEqual(key.outputs);
    expect(await core().controls.requests()).toEqual([]);
  });

  it("diffs permissions as sets, entry by entry, and updates them in place, read back from the server", async () => {
    const ctx = core().context();
    const key = await created(ctx, { name: "perm", type: "ACCOUNT", permissions: { send: ["a/b", "c/d"] } });
    const reordered = accessKeyOperations.decodeProposedInputs(
      toPropertyBag(
        checked(ctx, { name: "perm", type: "ACCOUNT", permissions: { send: ["c/d", "a/b", "a/b"] } }),
      ),
    );
    expect(
      diffAccessKey(accessKeyOperations.decodeInputs(toPropertyBag(key.outputs)), reordered).changes,
    ).toBe(false);

    const news = checked(ctx, {
      name: "perm",
      type: "ACCOUNT",
      permissions: { send: ["a/b", "e/*"], receive: ["x/*"] },
    });
    const diff = diffAccessKey(accessKeyOperations.decodeInputs(toPropertyBag(key.outputs)), news);
    expect(diff).toMatchObject({ changes: true, replaces: [], changed: ["permissions"] });
    expect(diff.permissions).toEqual({
      send: { added: ["e/*"], removed: ["c/d"] },
      receive: { added: ["x/*"], removed: [] },
      resources: false,
    });
    expect(diff.details).toEqual([
      { path: "permissions.send[1]", kind: "delete", replace: false },
      { path: "permissions.send[1]", kind: "add", replace: false },
      { path: "permissions.receive[0]", kind: "add", replace: false },
    ]);

    await core().controls.clearRequests();
    const updated = await updateAccessKey(ctx, key.id, key.outputs, news);
    expect(updated).toEqual({
      ...key.outputs,
      permissions: { send: ["a/b", "e/*"], receive: ["x/*"], resources: {} },
    });
    expect((await core().controls.requests()).map((r) => r.route)).toEqual([
      "POST /access-key/{accessKey}/permissions",
      "GET /access-key/{accessKey}/permissions",
    ]);
  });

  it("explains when the server merges permission updates instead of replacing them", async () => {
    const ctx = core().context();
    const key = await created(ctx, { name: "merge", type: "ACCOUNT", permissions: { send: ["old/path"] } });
    await core().controls.setPermissionsMode("merge");
    const news = checked(ctx, { name: "merge", type: "ACCOUNT", permissions: { send: ["new/path"] } });
    const error = await rejectionOf(updateAccessKey(ctx, key.id, key.outputs, news));
    expect(error.message).toMatch(/kept other permissions.*send also holds old\/path.*merge/su);
  });

  it("refresh finds permissions changed outside Pulumi (the next diff restores them), and a removed key is gone", async () => {
    const ctx = core().context();
    const inputs = checked(ctx, { name: "drift", type: "SERVICE", permissions: { send: ["a/b"] } });
    const key = await createAccessKey(ctx, inputs);
    await core().controls.setKeyPermissions(key.outputs.accessKeyId, { send: ["a/b", "sneaky/*"] });
    const read = await readAccessKey(ctx, key.id, key.outputs);
    if (!read.exists) throw new Error("expected the key to exist");
    expect(read.outputs.permissions).toEqual({ send: ["a/b", "sneaky/*"], receive: [], resources: {} });
    expect(read.outputs.privateKey).toBe(key.outputs.privateKey);
    const next = diffAccessKey(read.inputs, inputs);
    expect(next.permissions?.send).toEqual({ added: [], removed: ["sneaky/*"] });

    await core().controls.removeAccessKey(key.outputs.accessKeyId);
    expect(await readAccessKey(ctx, key.id, key.outputs)).toEqual({ exists: false });
  });

  it("imports a key by id without recorded state: its value from the key list, settings at their defaults", async () => {
    const ctx = core().context();
    const made = await ctx.broker.createAccessKey({
      name: "outside",
      type: "ACCOUNT",
      permissions: { send: ["b/x", "a/x"] },
    });
    const imported = await readAccessKey(ctx, String(made.accessKeyId), undefined);
    if (!imported.exists) throw new Error("the key was not found");
    expect(imported.outputs).toEqual(
      keyOutputs({
        name: "outside",
        type: "ACCOUNT",
        permissions: { send: ["a/x", "b/x"], receive: [], resources: {} },
        accessKey: made.accessKey,
        accessKeyId: made.accessKeyId,
        createdAt: expect.any(String) as unknown,
      }),
    );
    // The inputs are what check would return for them: diffing them against themselves is no change.
    const rechecked = checked(ctx, toPropertyBag(imported.inputs), imported.inputs.baseUrl);
    expect(diffAccessKey(imported.inputs, rechecked).changes).toBe(false);
  });

  it("imports nothing for an id no key has, and says what an id is when given something else", async () => {
    const ctx = core().context();
    expect(await readAccessKey(ctx, "999", undefined)).toEqual({ exists: false });
    const error = await rejectionOf(readAccessKey(ctx, "orders", undefined));
    expect(error.message).toBe(
      'Access key id must be the object\'s numeric id on the broker (such as 42), got "orders".',
    );
  });

  it("adopts an existing key by name and type and sets its permissions; several candidates are refused", async () => {
    const ctx = core().context();
    const original = await created(ctx, { name: "adoptee", type: "SERVICE", permissions: { send: ["x/y"] } });
    const adopted = await created(ctx, {
      name: "adoptee",
      type: "SERVICE",
      adopt: true,
      permissions: { receive: ["z/*"] },
    });
    expect(adopted.id).toBe(original.id);
    expect(adopted.outputs).toMatchObject({
      adopted: true,
      adopt: true,
      accessKey: original.outputs.accessKey,
      permissions: { send: [], receive: ["z/*"], resources: {} },
    });
    expect(adopted.outputs).not.toHaveProperty("privateKey");

    await created(ctx, { name: "adoptee", type: "SERVICE" });
    const error = await rejectionOf(created(ctx, { name: "adoptee", type: "SERVICE", adopt: true }));
    expect(error.message).toMatch(/Cannot adopt access key "adoptee": 2 SERVICE keys have that name/u);
  });

  describe("created but not finished", () => {
    it("keeps a key whose read-back failed, without permissions or createdAt, and the next update finishes it", async () => {
      const ctx = core().context({ maxRetries: 0 });
      const inputs = checked(ctx, { name: "partial", type: "SERVICE", permissions: { send: ["a/b"] } });
      await core().controls.injectFault({
        kind: "503",
        count: 1,
        routes: ["GET /access-key/{accessKey}/permissions"],
      });
      const failure = await partialFailureOf(createAccessKey(ctx, inputs));
      expect(failure.outputs).toEqual(
        keyOutputs({
          name: "partial",
          type: "SERVICE",
          accessKey: expect.stringMatching(/^bks_/u) as string,
          accessKeyId: Number(failure.createdId),
          publicKey: expect.any(String) as string,
          privateKey: expect.any(String) as string,
        }),
      );
      expect(failure.reason).toMatch(/Access key "partial" was created \(id \d+\).*503/su);
      expect(failure.message).not.toMatch(/bks_|bka_/u);

      const finished = await updateAccessKey(ctx, failure.createdId, failure.outputs, inputs);
      expect(finished).toEqual({
        ...failure.outputs,
        permissions: { send: ["a/b"], receive: [], resources: {} },
        createdAt: expect.any(String) as string,
      });
      const read = await readAccessKey(ctx, failure.createdId, finished);
      expect(read).toMatchObject({ exists: true, outputs: finished });
    });

    it("sets permissions the server did not take at create, and keeps the key when that fails", async () => {
      const ctx = core().context({ clientClass: PermissionlessCreate, maxRetries: 0 });
      const inputs = checked(ctx, { name: "fixed", type: "ACCOUNT", permissions: { send: ["a/b"] } });
      const made = await createAccessKey(ctx, inputs);
      // The outputs hold what the server holds after the permissions were set, not the create's answer.
      expect(made.outputs.permissions).toEqual({ send: ["a/b"], receive: [], resources: {} });

      await core().controls.injectFault({
        kind: "503",
        count: 1,
        routes: ["POST /access-key/{accessKey}/permissions"],
      });
      const failure = await partialFailureOf(createAccessKey(ctx, { ...inputs, name: "unfinished" }));
      expect(failure.outputs).toMatchObject({
        name: "unfinished",
        accessKeyId: Number(failure.createdId),
        permissions: { send: [], receive: [], resources: {} },
        createdAt: expect.any(String) as string,
      });
      // The next diff sees the missing permissions, and the update sets them.
      expect(
        diffAccessKey(accessKeyOperations.decodeInputs(toPropertyBag(failure.outputs)), {
          ...inputs,
          name: "unfinished",
        }).changed,
      ).toEqual(["permissions"]);
      const finished = await updateAccessKey(ctx, failure.createdId, failure.outputs, {
        ...inputs,
        name: "unfinished",
      });
      expect(finished.permissions).toEqual({ send: ["a/b"], receive: [], resources: {} });
    });

    it("keeps an adopted key whose permissions could not be set", async () => {
      const ctx = core().context({ maxRetries: 0 });
      const original = await created(ctx, { name: "taken", type: "ACCOUNT" });
      await core().controls.injectFault({
        kind: "503",
        count: 1,
        routes: ["POST /access-key/{accessKey}/permissions"],
      });
      const failure = await partialFailureOf(
        created(ctx, { name: "taken", type: "ACCOUNT", adopt: true, permissions: { send: ["q/*"] } }),
      );
      expect(failure.createdId).toBe(original.id);
      expect(failure.reason).toMatch(/^Adopted access key "taken" was created/u);
      expect(failure.outputs).toMatchObject({ adopted: true, permissions: { send: [] } });
    });

    it("keeps a recovered SERVICE key whose new pair could not be made", async () => {
      const ctx = core().context({ maxRetries: 0 });
      // The create is processed but its answer lost; the key is found again, and its new pair fails.
      await core().controls.injectFault({
        kind: "503",
        phase: "after",
        count: 1,
        routes: ["POST /access-key"],
      });
      await core().controls.injectFault({ kind: "503", count: 1, routes: ["PUT /access/service-key-pair"] });
      const failure = await partialFailureOf(created(ctx, { name: "lost", type: "SERVICE" }));
      expect(failure.outputs).not.toHaveProperty("createdAt");
      expect(failure.outputs).not.toHaveProperty("privateKey");
      expect(await core().controls.stats()).toMatchObject({ accessKeys: 2 });
    });
  });

  it("creates each key once under 429s, 503s and lost answers", async () => {
    const ctx = core().context({ maxRetries: 8 });
    for (const [kind, phase] of [
      ["429", "before"],
      ["503", "before"],
      ["503", "after"],
    ] as const)
      await core().controls.injectFault({
        kind,
        phase,
        rate: 0.3,
        seed: 11,
        ...(kind === "429" ? { retryAfter: "0" } : {}),
      });
    for (const name of ["f1", "f2", "f3", "f4"])
      await created(ctx, { name, type: "SERVICE", permissions: { send: [`${name}/*`] } });
    await core().controls.clearFaults();
    // The emulator's own admin key plus one per create.
    expect(await core().controls.stats()).toMatchObject({ accessKeys: 5 });
  });

  it("revokes the key on delete by default, and retains it when asked, warning either way", async () => {
    const ctx = core().context();
    const revoked = await created(ctx, { name: "rev", type: "SERVICE", permissions: { send: ["a/b"] } });
    await deleteAccessKey(ctx, revoked.id, revoked.outputs);
    const after = await readAccessKey(ctx, revoked.id, revoked.outputs);
    expect(after).toMatchObject({ outputs: { permissions: { send: [], receive: [], resources: {} } } });
    expect(ctx.warnings[0]).toMatch(/"rev".*revoked.*still exists/su);

    const kept = await created(ctx, {
      name: "keep",
      type: "SERVICE",
      permissions: { send: ["a/b"] },
      onDelete: "retain",
    });
    await deleteAccessKey(ctx, kept.id, kept.outputs);
    expect(await readAccessKey(ctx, kept.id, kept.outputs)).toMatchObject({
      outputs: { permissions: { send: ["a/b"] } },
    });
    expect(ctx.warnings[1]).toMatch(/"keep".*left unchanged.*retain/su);

    await core().controls.removeAccessKey(revoked.outputs.accessKeyId);
    await deleteAccessKey(ctx, revoked.id, revoked.outputs);
    expect(ctx.warnings).toHaveLength(2);
  });

  it("leaves an adopted key as it was found on destroy unless onDelete says revoke, and says so when it adopts", async () => {
    const ctx = core().context();
    const permissions = { send: ["found/x"], receive: [], resources: {} };
    await created(ctx, { name: "found", type: "SERVICE", permissions });
    await created(ctx, { name: "found-too", type: "SERVICE", permissions });
    const adopted = await created(ctx, { name: "found", type: "SERVICE", permissions, adopt: true });
    expect(adopted.outputs).toMatchObject({ adopted: true });
    expect(adopted.outputs).not.toHaveProperty("onDelete");
    expect(ctx.warnings).toEqual([
      `Adopted access key "found" (id ${adopted.id}): it existed before this stack, so a destroy or replacement will leave it as it was found. Set ${ON_DELETE} to "revoke" on it to revoke it then.`,
    ]);
    await core().controls.clearRequests();
    await deleteAccessKey(ctx, adopted.id, adopted.outputs);
    expect(await core().controls.requests()).toEqual([]);
    expect(await readAccessKey(ctx, adopted.id, adopted.outputs)).toMatchObject({ outputs: { permissions } });
    expect(ctx.warnings[1]).toBe(
      `Adopted access key "found" (id ${adopted.id}) was removed from the stack and left as it was found on the broker: this stack did not create it (set ${ON_DELETE} to "revoke" to revoke an adopted key). It still works with its permissions.`,
    );

    // The explicit opt-in: revoked, and the adoption says so beforehand.
    const optIn = await created(ctx, {
      name: "found-too",
      type: "SERVICE",
      permissions,
      adopt: true,
      onDelete: "revoke",
    });
    expect(ctx.warnings[2]).toBe(
      `Adopted access key "found-too" (id ${optIn.id}): it existed before this stack, and ${ON_DELETE} is "revoke", so a destroy or replacement will revoke it (empty its permissions) although this stack did not create it.`,
    );
    await deleteAccessKey(ctx, optIn.id, optIn.outputs);
    expect(await readAccessKey(ctx, optIn.id, optIn.outputs)).toMatchObject({
      outputs: { permissions: { send: [], receive: [], resources: {} } },
    });
  });

  it("reads a state an earlier version wrote (onDelete filled in as revoke): the next diff shows the change only for an adopted key", () => {
    const ctx = core().context();
    const news = checked(ctx, { name: "k", type: "SERVICE" });
    const recordedBy = (adopted: boolean | undefined) =>
      toPropertyBag({
        ...keyOutputs({
          name: "k",
          type: "SERVICE",
          accessKey: "ak_old",
          accessKeyId: 7,
          onDelete: "revoke",
        }),
        ...(adopted === undefined ? { adopted: undefined } : { adopted }),
      });
    const diffOf = (bag: ReturnType<typeof recordedBy>) =>
      accessKeyOperations.diff(
        accessKeyOperations.decodeInputs(bag),
        accessKeyOperations.decodeProposedInputs(toPropertyBag(news)),
        accessKeyOperations.decodeOutputs(bag, "7"),
      );
    expect(diffOf(recordedBy(false)).changes).toBe(false);
    // A state from before `adopted` existed reads as created: revoked, as it was deployed.
    expect(accessKeyOperations.decodeOutputs(recordedBy(undefined), "7").adopted).toBe(false);
    expect(diffOf(recordedBy(undefined)).changes).toBe(false);
    const adopted = diffOf(recordedBy(true));
    expect(adopted).toMatchObject({ changes: true, replaces: [] });
    expect(adopted.details).toContainEqual(expect.objectContaining({ path: "onDelete", replace: false }));
    // Without decodable outputs (a preview without config) the key counts as created.
    expect(
      accessKeyOperations.diff(
        accessKeyOperations.decodeInputs(recordedBy(true)),
        accessKeyOperations.decodeProposedInputs(toPropertyBag(news)),
      ).changes,
    ).toBe(false);
  });

  it("never revokes the key it authenticates with, by any delete, before any request; the key stays as it was", async () => {
    const ctx = core().context();
    // Adopting the emulator's own admin key by name, as a copied document did (issue #49), and
    // opting in to revoke what was adopted: the own key is refused still.
    const own = await created(ctx, { name: "admin", type: "ACCOUNT", adopt: true, onDelete: "revoke" });
    expect(own.outputs).toMatchObject({ adopted: true, accessKey: core().emulator.adminKey });
    const before = await readAccessKey(ctx, own.id, own.outputs);
    await core().controls.clearRequests();
    const error = await rejectionOf(deleteAccessKey(ctx, own.id, own.outputs));
    expect(error.message).toMatch(
      new RegExp(
        `^Refusing to revoke: access key "admin" \\(id ${own.id}\\) is the key this provider authenticates with \\(broker:apiKey \\(or BROKER_API_KEY\\)\\), and revoking it would lock the provider out of the API\\. It stays in the stack, untouched\\. .*"retain"`,
        "u",
      ),
    );
    expect(error.message).not.toContain(core().emulator.adminKey);
    expect(await core().controls.requests()).toEqual([]);
    expect(await readAccessKey(ctx, own.id, own.outputs)).toEqual(before);
    expect(ctx.warnings).toEqual([expect.stringMatching(/^Adopted access key "admin" .*"revoke"/u)]);
    // The same rule, asked without a request by a door's diff before a replacement.
    expect(accessKeyOperations.deleteRefusal?.(ctx, own.id, own.outputs)).toBe(
      error.message.slice("Refusing to revoke: ".length),
    );

    // Another key is revoked as ever; the own key leaves the stack untouched with onDelete: "retain".
    const other = await created(ctx, { name: "other", type: "ACCOUNT" });
    expect(accessKeyOperations.deleteRefusal?.(ctx, other.id, other.outputs)).toBeUndefined();
    await deleteAccessKey(ctx, other.id, other.outputs);
    const retained = { ...own.outputs, onDelete: "retain" as const };
    expect(accessKeyOperations.deleteRefusal?.(ctx, own.id, retained)).toBeUndefined();
    await deleteAccessKey(ctx, own.id, retained);
    expect(await readAccessKey(ctx, own.id, own.outputs)).toEqual(before);
  });

  it("refuses to update or revoke a key recorded at another endpoint", async () => {
    const ctx = core().context();
    const inputs = checked(ctx, { name: "here", type: "ACCOUNT" });
    const key = await createAccessKey(ctx, inputs);
    const other = core().context({ configuredBaseUrl: "http://127.0.0.1:1/v1" });
    await core().controls.clearRequests();
    expect(
      (
        await rejectionOf(
          updateAccessKey(other, key.id, key.outputs, {
            ...inputs,
            permissions: { send: ["x/y"], receive: [], resources: {} },
          }),
        )
      ).message,
    ).toMatch(
      /Updating access key "here": this resource lives at .*now points to http:\/\/127\.0\.0\.1:1\/v1/su,
    );
    expect((await rejectionOf(deleteAccessKey(other, key.id, key.outputs))).message).toMatch(
      /Revoking access key "here"/u,
    );
    expect(await core().controls.requests()).toEqual([]);
  });
});
