/**
 * providerBytes: the size of the `__provider` text each resource stores in the state (twice: as
 * input and output), measured in a real `node` process inside the package fixture, and the same for
 * a naive provider that captures a client object.
 */
import { execFileSync } from "node:child_process";
import * as path from "node:path";
import type { BenchContext } from "../lib/context.mts";

/** Our three resource types. */
export const RESOURCE_TYPES = ["Workspace", "AccessKey", "ServiceKeyPair"] as const;
/** One of {@link RESOURCE_TYPES}. */
export type ResourceType = (typeof RESOURCE_TYPES)[number];

interface Serialized {
  bytes?: number;
  text?: string;
  containsApiKey?: boolean;
  error?: string;
}

/** What the section measured. */
export interface ProviderBytesResult {
  /** Bytes per type, plus `naive` (null when it could not be serialized at all). */
  bytes: Record<ResourceType | "naive", number | null>;
  /** The serialized providers, for the sections that drive the provider host. */
  texts: Record<ResourceType, string>;
  /** A serialized provider that does nothing: the provider host's floor. */
  noopText: string;
  /** What else the naive variants showed. */
  naive: {
    /** The naive provider's text holds the client's API key in plain text. */
    capturesApiKey: boolean;
    /** Capturing the package's real BrokerClient: its size, or why serialization failed. */
    realClient: { bytes: number } | { error: string };
  };
}

function serialize(ctx: BenchContext, which: string): Record<string, Serialized> {
  const script = path.join(ctx.repoRoot, "bench", "programs", "serialize.cjs");
  const output = execFileSync(process.execPath, [script, which], { cwd: ctx.fixture, encoding: "utf8" });
  return JSON.parse(output) as Record<string, Serialized>;
}

/** Serializes our providers and the naive ones. */
export function measureProviderBytes(ctx: BenchContext): ProviderBytesResult {
  const ours = serialize(ctx, "ours");
  const texts = {} as Record<ResourceType, string>;
  const bytes = {} as ProviderBytesResult["bytes"];
  for (const type of RESOURCE_TYPES) {
    const entry = ours[type];
    if (entry?.text === undefined)
      throw new Error(`${type}: no serialized provider: ${entry?.error ?? "missing"}`);
    texts[type] = entry.text;
    bytes[type] = entry.bytes ?? Buffer.byteLength(entry.text);
  }
  const naive = serialize(ctx, "naive")["naive"] ?? {};
  bytes.naive = naive.bytes ?? null;
  const real = serialize(ctx, "naive-real")["naive-real"] ?? {};
  const noopText = serialize(ctx, "noop")["noop"]?.text;
  if (noopText === undefined) throw new Error("the no-op provider did not serialize");
  return {
    bytes,
    texts,
    noopText,
    naive: {
      capturesApiKey: naive.containsApiKey ?? false,
      realClient:
        real.bytes !== undefined ? { bytes: real.bytes } : { error: real.error ?? "unknown failure" },
    },
  };
}
