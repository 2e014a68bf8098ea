/**
 * Every endpoint of the broker configuration API, declared once: method, path template, and whether
 * repeating the request is safe (which decides what `request()` may retry).
 */
import type { Endpoint } from "./request";

/** The endpoints, by operation. */
export const ENDPOINTS = {
  /** Creates a new key each time: never repeated unless the server surely did not see it. */
  createAccessKey: { method: "POST", path: "/access-key", repeatable: false },
  listAccessKeys: { method: "GET", path: "/access-key", repeatable: true },
  getAccessKeyPermissions: { method: "GET", path: "/access-key/{accessKey}/permissions", repeatable: true },
  /** Sends the full lists every time, so applying it twice leaves the same state. */
  updateAccessKeyPermissions: {
    method: "POST",
    path: "/access-key/{accessKey}/permissions",
    repeatable: true,
  },
  verifyAccessKey: { method: "GET", path: "/access/verify/{accessKey}", repeatable: true },
  /**
   * Each call generates a new pair, but only the last pair returned matters to the caller: a repeat
   * after a lost response replaces a pair nobody ever saw.
   */
  rotateServiceKeyPair: { method: "PUT", path: "/access/service-key-pair", repeatable: true },
  listWorkspaces: { method: "GET", path: "/workspace", repeatable: true },
  /** Creates a new workspace each time (the API allows duplicate names): never repeated blindly. */
  createWorkspace: { method: "POST", path: "/workspace", repeatable: false },
} as const satisfies Record<string, Endpoint>;
