/**
 * The core's tests run in-process against an emulator: no packed tarball, no provider host. Each
 * test gets a fresh server state; every exchange is checked against openapi.yaml.
 */
import { STACK_SETTING_NAMES } from "../../src/settings/connection";
import { afterAll, afterEach, beforeAll, beforeEach, expect } from "vitest";
import { BrokerClient } from "../../src/client";
import type { CoreContext } from "../../src/core/context";
import type { CheckResult } from "../../src/core/results";
import { toPropertyBag, type PropertyBag } from "../../src/core/state";
import { startEmulator, type EmulatorControls, type EmulatorHandle } from "../../src/emulator";
import { exchangeProblems } from "../support/emulator";

/** A core context whose warnings the test can read. */
export interface TestContext extends CoreContext {
  readonly warnings: string[];
  /** The client every operation of this context uses. */
  readonly broker: BrokerClient;
}

/** How to build a test context. */
export interface ContextOptions {
  /** Retries of each call. @default 4 */
  maxRetries?: number;
  /** The configured endpoint the core compares recorded ones with. @default the emulator's URL */
  configuredBaseUrl?: string | undefined;
  /** A client class to use instead of {@link BrokerClient} (a server quirk the emulator cannot show). */
  clientClass?: typeof BrokerClient;
}

/** The emulator of a test file, and a factory of contexts against it. */
export interface CoreEmulator {
  readonly emulator: EmulatorHandle;
  readonly controls: EmulatorControls;
  context(options?: ContextOptions): TestContext;
}

/**
 * Registers the hooks of a core test file: one emulator with controls, reset before each test, and
 * after each test an assertion that every exchange matched the contract. Returns an accessor valid
 * inside tests.
 */
export function useCoreEmulator(): () => CoreEmulator {
  let emulator: EmulatorHandle | undefined;
  let problems: string[] = [];
  const clients: BrokerClient[] = [];
  beforeAll(async () => {
    emulator = await startEmulator({
      controls: true,
      // A 429/503 fault answers before the request is read: check its answer only.
      inspect: (exchange) => {
        problems.push(...exchangeProblems(exchange, ![400, 429, 503].includes(exchange.status)));
      },
    });
  });
  afterAll(async () => {
    await emulator?.close();
  });
  beforeEach(async () => {
    await emulator?.controls?.reset();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    const found = problems;
    problems = [];
    expect(found).toEqual([]);
  });
  return () => {
    const running = emulator;
    if (running?.controls === undefined) throw new Error("the emulator has not started");
    const controls = running.controls;
    return {
      emulator: running,
      controls,
      context(options: ContextOptions = {}): TestContext {
        const Client = options.clientClass ?? BrokerClient;
        const broker = new Client(
          { baseUrl: running.url, apiKey: running.adminKey, maxRetries: options.maxRetries ?? 4 },
          { baseDelayMs: 1, maxDelayMs: 5 },
        );
        clients.push(broker);
        const configured = "configuredBaseUrl" in options ? options.configuredBaseUrl : broker.baseUrl;
        const warnings: string[] = [];
        return {
          broker,
          warnings,
          client: () => broker,
          configuredBaseUrl: () => configured,
          // The client authenticates with the emulator's admin key: that is the configured one.
          authenticatesWith: (accessKey) => accessKey === running.adminKey,
          settingNames: STACK_SETTING_NAMES,
          log: {
            warn: (message) => {
              warnings.push(message);
              return Promise.resolve();
            },
          },
        };
      },
    };
  };
}

/** The error a promise rejects with (fails the test when it resolves). */
export async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(outcome instanceof Error))
    throw new Error(`expected a rejection with an Error, got ${String(outcome)}`);
  return outcome;
}

/**
 * `checkedInputs` bound to one resource's `check` and input decoder: `checked(ctx, news)` in that
 * resource's tests.
 */
export function checkerOf<N, I>(
  check: (ctx: TestContext, news: N, recorded: string | undefined) => CheckResult<object>,
  decode: (bag: PropertyBag) => I,
): (ctx: TestContext, news: N, recorded?: string) => I {
  return (ctx, news, recorded) => checkedInputs(check, decode, ctx, news, recorded);
}

/**
 * Checks `news` as the engine does first and returns the inputs create then receives: the checked
 * inputs go to the engine as a property bag and come back decoded, as an adapter passes them. Fails
 * the test on any check failure.
 */
export function checkedInputs<N, I>(
  check: (ctx: TestContext, news: N, recorded: string | undefined) => CheckResult<object>,
  decode: (bag: PropertyBag) => I,
  ctx: TestContext,
  news: N,
  recorded?: string,
): I {
  const result = check(ctx, news, recorded);
  expect(result.failures).toEqual([]);
  if (result.inputs === undefined) throw new Error("check failed");
  return decode(toPropertyBag(result.inputs));
}
