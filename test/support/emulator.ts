/**
 * Test helpers around the emulator: start one whose every exchange is checked against openapi.yaml,
 * and call its API over real HTTP.
 */
import { afterAll, afterEach, beforeAll, beforeEach, expect } from "vitest";
import {
  startEmulator,
  type EmulatorControls,
  type EmulatorExchange,
  type EmulatorHandle,
  type EmulatorOptions,
} from "../../src/emulator";
import { validateRequest, validateResponse } from "./openapi";

/** A response as the tests look at it. */
export interface ApiResponse {
  status: number;
  headers: Headers;
  /** The parsed JSON body, `undefined` when empty. */
  body: unknown;
  text: string;
}

/** An access key record as the API lists it. */
export interface KeyRecord {
  id: number;
  name: string;
  key: string;
  type: string;
  permissions: { send: string[]; receive: string[]; resources: Record<string, unknown> };
  /** When the broker made it, ISO 8601. */
  createdAt: string;
}

/** A workspace record as the API lists it: a list nests each one's children. */
export interface WorkspaceRecord {
  id: number;
  name: string;
  parentId: number;
  path: string;
  createdAt: string;
  children?: WorkspaceRecord[];
}

/** The body of a `POST /access-key` answer: the new key, and its key pair for a SERVICE key. */
export interface CreatedKeyBody {
  accessKey: string;
  accessKeyId: string;
  service_key_pair?: { public_key: string; private_key: string };
}

/** Options of one API call. */
export interface CallOptions {
  /** A JSON body (serialised, sent with `Content-Type: application/json`). */
  json?: unknown;
  /** A raw body, sent as is with `contentType` (if any). */
  raw?: string | Uint8Array;
  contentType?: string;
  /** The X-API-KEY value; `null` sends no header. @default the caller's key */
  key?: string | null;
  query?: Record<string, string | number>;
}

/**
 * Calls the API of one emulator with global fetch: the one way tests talk to the API directly. Its
 * connections are safe to reuse because the emulator never closes an idle one itself (the client's
 * idle timeout alone ends it, see `src/emulator/README.md`, "Connections").
 */
export class ApiCaller {
  constructor(
    readonly baseUrl: string,
    readonly key: string,
  ) {}

  async call(method: string, path: string, options: CallOptions = {}): Promise<ApiResponse> {
    const url = new URL(this.baseUrl + path);
    for (const [name, value] of Object.entries(options.query ?? {}))
      url.searchParams.set(name, String(value));
    const headers: Record<string, string> = {};
    const key = options.key === undefined ? this.key : options.key;
    if (key !== null) headers["x-api-key"] = key;
    const init: RequestInit = { method, headers };
    if (options.json !== undefined) {
      headers["content-type"] = "application/json";
      init.body = JSON.stringify(options.json);
    } else if (options.raw !== undefined) {
      if (options.contentType !== undefined) headers["content-type"] = options.contentType;
      init.body = options.raw;
    }
    const response = await fetch(url, init);
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      body: text === "" ? undefined : JSON.parse(text),
      text,
    };
  }

  get(path: string, options?: CallOptions): Promise<ApiResponse> {
    return this.call("GET", path, options);
  }

  post(path: string, json: unknown, options?: CallOptions): Promise<ApiResponse> {
    return this.call("POST", path, { ...options, json });
  }

  put(path: string, json: unknown, options?: CallOptions): Promise<ApiResponse> {
    return this.call("PUT", path, { ...options, json });
  }

  /**
   * Every record of a list route (`/access-key`, `/workspace`), page after page, oldest first.
   * @throws when a page is not answered 200.
   */
  async listAll<T = Record<string, unknown>>(
    route: string,
    query: Record<string, string> = {},
  ): Promise<T[]> {
    const all: T[] = [];
    for (let pageIndex = 0; ; pageIndex++) {
      const response = await this.get(route, { query: listQuery({ ...query, pageIndex }) });
      if (response.status !== 200)
        throw new Error(`GET ${route} answered ${response.status}: ${response.text}`);
      const { results } = response.body as { results: T[] };
      all.push(...results);
      if (results.length < LIST_PAGE_SIZE) return all;
    }
  }
}

/** The page size {@link ApiCaller.listAll} asks for: the largest the API allows. */
const LIST_PAGE_SIZE = 100;

/** An API caller with the admin key of a running emulator (or any `{ url, adminKey }`). */
export function apiOf(target: { url: string; adminKey: string }): ApiCaller {
  return new ApiCaller(target.url, target.adminKey);
}

/** An emulator whose exchanges are all checked against openapi.yaml. */
export interface CheckedEmulator {
  emulator: EmulatorHandle;
  api: ApiCaller;
  /** Every exchange so far. */
  exchanges: EmulatorExchange[];
  /** Contract violations so far: every response, and every request the emulator accepted (2xx). */
  contractProblems: string[];
  close(): Promise<void>;
}

/**
 * Problems of one exchange with the contract: its response, and its request when `checkRequest`
 * (by default only an accepted one: a rejected request may be a test's deliberate mistake).
 */
export function exchangeProblems(
  exchange: EmulatorExchange,
  checkRequest: boolean = exchange.status >= 200 && exchange.status < 300,
): string[] {
  const label = `${exchange.method} ${exchange.path} -> ${exchange.status}`;
  const problems = validateResponse({
    route: exchange.route,
    status: exchange.status,
    body: exchange.responseBody,
  });
  if (checkRequest) {
    problems.push(
      ...validateRequest({
        method: exchange.method,
        path: exchange.path,
        query: exchange.query,
        body: exchange.requestBody,
      }),
    );
  }
  return problems.map((problem) => `${label}: ${problem}`);
}

/** Starts an emulator (controls on unless told otherwise) that checks each exchange against the contract. */
export async function startCheckedEmulator(options: EmulatorOptions = {}): Promise<CheckedEmulator> {
  const exchanges: EmulatorExchange[] = [];
  const contractProblems: string[] = [];
  const emulator = await startEmulator({
    controls: true,
    ...options,
    inspect: (exchange) => {
      exchanges.push(exchange);
      contractProblems.push(...exchangeProblems(exchange));
      options.inspect?.(exchange);
    },
  });
  return {
    emulator,
    api: new ApiCaller(emulator.url, emulator.adminKey),
    exchanges,
    contractProblems,
    close: () => emulator.close(),
  };
}

/**
 * Registers the hooks every contract-checked emulator suite needs: one emulator (with controls) for
 * the file, reset before each test, and after each test an assertion that every exchange of that
 * test matched openapi.yaml. `onStart` receives the emulator, its API caller and its controls once
 * it listens.
 */
export function useCheckedEmulator(
  onStart: (started: { checked: CheckedEmulator; api: ApiCaller; controls: EmulatorControls }) => void,
): void {
  let checked: CheckedEmulator | undefined;
  let controls: EmulatorControls | undefined;
  beforeAll(async () => {
    checked = await startCheckedEmulator();
    controls = checked.emulator.controls;
    if (controls === undefined) throw new Error("controls expected");
    onStart({ checked, api: checked.api, controls });
  });
  afterAll(async () => {
    await checked?.close();
  });
  beforeEach(async () => {
    await controls?.reset();
  });
  afterEach(() => {
    // Taken out before asserting, so one test's problems are never blamed on the next.
    const problems = checked?.contractProblems.splice(0) ?? [];
    expect(problems).toEqual([]);
  });
}

/**
 * Starts an emulator with its test controls on (`/_emulator`) and returns it with those controls,
 * which its handle leaves optional.
 */
export async function startControlledEmulator(
  options: Omit<EmulatorOptions, "controls"> = {},
): Promise<{ emulator: EmulatorHandle; controls: EmulatorControls }> {
  const emulator = await startEmulator({ ...options, controls: true });
  if (emulator.controls === undefined) throw new Error("the emulator was started without controls");
  return { emulator, controls: emulator.controls };
}

/** The query of a list call, with defaults. */
export function listQuery(overrides: Record<string, string | number> = {}): Record<string, string | number> {
  return { pageIndex: 0, limit: 100, order: "ASC", orderBy: "createdAt", ...overrides };
}
