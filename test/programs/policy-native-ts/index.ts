// A TypeScript program with the native SDK (served by the `broker` plugin), previewed with the
// broker policy pack by test/e2e/policy-pack.test.ts. What it declares comes from the stack config
// `spec` (JSON), so one project serves every scenario: workspaces, and keys whose `workspace` makes
// that workspace their Pulumi parent (the keys-per-workspace rule counts by parent).
import * as pulumi from "@pulumi/pulumi";
import * as broker from "pulumi-broker-config/native";

/** A key the scenario declares (the policy-pack test's specs are of this type). */
export interface KeySpec {
  resource: string;
  name: string;
  type: "SERVICE" | "ACCOUNT";
  send?: string[];
  receive?: string[];
  workspace?: string;
}

/** What a scenario declares, as the stack config `spec` holds it. */
export interface Spec {
  workspaces?: { resource: string; name: string }[];
  keys?: KeySpec[];
}

const spec = new pulumi.Config().requireObject<Spec>("spec");

const workspaces: Record<string, broker.Workspace> = {};
for (const w of spec.workspaces || []) {
  workspaces[w.resource] = new broker.Workspace(w.resource, { name: w.name });
}

for (const k of spec.keys || []) {
  const parent = k.workspace === undefined ? undefined : workspaces[k.workspace];
  new broker.AccessKey(
    k.resource,
    { name: k.name, type: k.type, permissions: { send: k.send || [], receive: k.receive || [] } },
    parent === undefined ? {} : { parent },
  );
}
