import { describe, expect, it } from "vitest";
import { BrokerClient, type WorkspaceRecord } from "../../src/client";
import { isPartiallyCreatedError, type PartiallyCreatedError } from "../../src/core/partial-failure";
import { toPropertyBag } from "../../src/core/state";
import {
  workspaceOperations,
  checkWorkspace,
  createWorkspace,
  deleteWorkspace,
  diffWorkspace,
  readWorkspace,
  updateWorkspace,
  type WorkspaceOutputs,
} from "../../src/core/workspace";
import { checkerOf, rejectionOf, useCoreEmulator } from "./support";

const core = useCoreEmulator();

/** Check (as the engine does first), then the inputs create receives. */
const checked = checkerOf(checkWorkspace, workspaceOperations.decodeInputs);

describe("Workspace core", () => {
  it("creates nested workspaces; create, read and update return the same shape", async () => {
    const ctx = core().context();
    const team = await createWorkspace(ctx, checked(ctx, { name: "team" }));
    expect(team.outputs).toEqual({
      name: "team",
      parentId: 0,
      adopt: false,
      allowEndpointChange: false,
      baseUrl: core().emulator.url,
      workspaceId: Number(team.id),
      path: "/team",
      createdAt: expect.any(String) as string,
      adopted: false,
    });
    const orders = await createWorkspace(ctx, checked(ctx, { name: "orders", parentId: Number(team.id) }));
    expect(orders.outputs).toMatchObject({ path: "/team/orders", parentId: Number(team.id) });

    const read = await readWorkspace(ctx, orders.id, orders.outputs);
    expect(read).toEqual({
      exists: true,
      id: orders.id,
      outputs: orders.outputs,
      inputs: {
        name: "orders",
        parentId: Number(team.id),
        adopt: false,
        allowEndpointChange: false,
        baseUrl: core().emulator.url,
      },
    });
    const updated = await updateWorkspace(ctx, orders.id, orders.outputs, { ...orders.outputs, adopt: true });
    expect(updated).toEqual({ ...orders.outputs, adopt: true });
  });

  it("refuses to take over an existing workspace unless adopt is set, and adopts it then", async () => {
    const ctx = core().context();
    const first = await createWorkspace(ctx, checked(ctx, { name: "shared" }));
    const refused = await rejectionOf(createWorkspace(ctx, checked(ctx, { name: "shared" })));
    expect(refused.message).toMatch(
      /already exists under parent 0.*Set `adopt` \(`Adopt` in Go and \.NET\) to true/su,
    );
    const adopted = await createWorkspace(ctx, checked(ctx, { name: "shared", adopt: true }));
    expect(adopted).toEqual({ id: first.id, outputs: { ...first.outputs, adopt: true, adopted: true } });
    expect(await core().controls.stats()).toMatchObject({ workspaces: 1 });
  });

  it("refresh finds a rename made outside Pulumi (the next diff replaces), and a removed workspace is gone", async () => {
    const ctx = core().context();
    const ws = await createWorkspace(ctx, checked(ctx, { name: "drifting" }));
    await core().controls.updateWorkspace(Number(ws.id), { name: "renamed-outside" });
    const read = await readWorkspace(ctx, ws.id, ws.outputs);
    if (!read.exists) throw new Error("expected the workspace to exist");
    expect(read.outputs).toMatchObject({ name: "renamed-outside", path: "/renamed-outside" });
    const next = diffWorkspace(
      read.inputs,
      workspaceOperations.decodeProposedInputs({ ...checked(ctx, { name: "drifting" }) }),
    );
    expect(next).toMatchObject({ changes: true, replaces: ["name"], changed: ["name"] });
    expect(next.details).toEqual([{ path: "name", kind: "update", replace: true }]);

    await core().controls.removeWorkspace(Number(ws.id));
    expect(await readWorkspace(ctx, ws.id, ws.outputs)).toEqual({ exists: false });
  });

  it("reads a workspace with no recorded state (settings take their defaults)", async () => {
    const ctx = core().context();
    const ws = await createWorkspace(ctx, checked(ctx, { name: "found", adopt: true }));
    const read = await readWorkspace(ctx, ws.id, undefined);
    expect(read).toMatchObject({ exists: true, outputs: { ...ws.outputs, adopt: false } });
  });

  describe("created but not finished", () => {
    /** A server that ignores `parentId` and creates every workspace at the top level. */
    class MisplacingClient extends BrokerClient {
      override createWorkspace(input: { name: string; parentId?: number }): Promise<void> {
        return super.createWorkspace({ name: input.name });
      }
    }

    it("keeps a workspace created under another parent, with the server's facts", async () => {
      const ctx = core().context({ clientClass: MisplacingClient });
      const parent = await createWorkspace(ctx, checked(ctx, { name: "parent" }));
      const error = await rejectionOf(
        createWorkspace(ctx, checked(ctx, { name: "child", parentId: Number(parent.id) })),
      );
      if (!isPartiallyCreatedError(error)) throw error;
      const failure = error as PartiallyCreatedError<WorkspaceOutputs>;
      expect(failure.message).toMatch(
        /Workspace "child" was created \(id \d+\).*parentId 0, not \d+.*pulumi up/su,
      );
      expect(failure.outputs).toMatchObject({
        workspaceId: Number(failure.createdId),
        name: "child",
        parentId: 0,
        path: "/child",
      });
      expect(failure).not.toHaveProperty("id");
    });

    it("keeps a workspace whose read-back fails with an empty path, and the next update completes it", async () => {
      const controls = core().controls;
      /** Misplaces, and the read-back after the misplaced create meets a 503. */
      class FailingReadBack extends MisplacingClient {
        override async getWorkspace(id: number): Promise<WorkspaceRecord | undefined> {
          await controls.injectFault({ kind: "503", count: 1, routes: ["GET /workspace"] });
          return super.getWorkspace(id);
        }
      }
      const ctx = core().context({ clientClass: FailingReadBack, maxRetries: 0 });
      const parent = await createWorkspace(core().context(), checked(ctx, { name: "parent" }));
      const inputs = checked(ctx, { name: "child", parentId: Number(parent.id) });
      const error = await rejectionOf(createWorkspace(ctx, inputs));
      if (!isPartiallyCreatedError(error)) throw error;
      const pending = error.outputs as WorkspaceOutputs;
      expect(pending).toEqual({
        ...inputs,
        baseUrl: core().emulator.url,
        workspaceId: Number(error.createdId),
        path: "",
        createdAt: "",
        adopted: false,
      });
      const finished = await updateWorkspace(core().context(), error.createdId, pending, inputs);
      expect(finished).toMatchObject({
        path: "/child",
        createdAt: expect.stringMatching(/^\d{4}-/u) as string,
      });
    });
  });

  it("fails the check when the stack points at another endpoint, unless the move is allowed (then it replaces)", () => {
    const ctx = core().context();
    const elsewhere = "http://127.0.0.1:1/v1";
    const refused = checkWorkspace(ctx, { name: "team" }, elsewhere);
    // On the resource: `baseUrl` is no input, and the engine would show its value as `{<nil>}`.
    expect(refused.failures.map((f) => f.property)).toEqual([""]);
    expect(refused.failures[0]?.reason).toContain(elsewhere);
    expect(refused.failures[0]?.reason).toContain(core().emulator.url);
    expect(refused.failures[0]?.reason).toContain("broker:baseUrl (or BROKER_BASE_URL) now points to");
    expect(refused.failures[0]?.reason).toContain(
      "set `allowEndpointChange` (`allow_endpoint_change` in Python, `AllowEndpointChange` in Go and .NET) to true",
    );

    const moved = checkWorkspace(ctx, { name: "team", allowEndpointChange: true }, elsewhere);
    if (moved.inputs === undefined) throw new Error("check failed");
    const old = { name: "team", parentId: 0, adopt: false, allowEndpointChange: false, baseUrl: elsewhere };
    const diff = diffWorkspace(old, moved.inputs);
    expect(diff.replaces).toEqual(["baseUrl"]);
    expect(diff.changed).toEqual(["baseUrl", "allowEndpointChange"]);
  });

  it("refuses to refresh a workspace recorded at another endpoint", async () => {
    const ctx = core().context();
    const ws = await createWorkspace(ctx, checked(ctx, { name: "here" }));
    const other = core().context({ configuredBaseUrl: "http://127.0.0.1:1/v1" });
    const error = await rejectionOf(readWorkspace(other, ws.id, ws.outputs));
    expect(error.message).toMatch(
      /Refreshing workspace \d+: this resource lives at http:\/\/127\.0\.0\.1:\d+\/v1/u,
    );
  });

  it("only forgets a workspace on delete, with a warning naming its path", async () => {
    const ctx = core().context();
    const ws = await createWorkspace(ctx, checked(ctx, { name: "to-forget" }));
    await deleteWorkspace(ctx, ws.id, ws.outputs);
    expect(ctx.warnings).toHaveLength(1);
    expect(ctx.warnings[0]).toMatch(/\/to-forget.*still exists.*no delete endpoint/su);
    expect(await core().controls.stats()).toMatchObject({ workspaces: 1 });
    expect(toPropertyBag(ws.outputs)).toEqual(ws.outputs);
  });
});
