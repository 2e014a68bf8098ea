/** Test helpers around the API client. */
import { isBrokerApiError, type BrokerApiError, type BrokerClient } from "../../src/client";

/**
 * The {@link BrokerApiError} a call rejects with. Fails the test when the call resolves or rejects
 * with anything else, so an assertion on the error never passes on a value that is not one.
 */
export async function apiRejection(promise: Promise<unknown>): Promise<BrokerApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isBrokerApiError(error)) throw new Error(`expected a BrokerApiError, got ${String(error)}`);
  return error;
}

/**
 * Makes the workspace tree the export tests start from, in this order: `/platform`,
 * `/platform/orders`, `/platform/orders/eu`, `/platform/orders/us`, `/platform/billing` and a second
 * root `/data` (created out of name order, so that a sorted export is visible).
 */
export async function createWorkspaceTree(client: BrokerClient): Promise<void> {
  const platform = await client.createWorkspaceAndFind({ name: "platform" });
  const orders = await client.createWorkspaceAndFind({ name: "orders", parentId: platform.id });
  await client.createWorkspaceAndFind({ name: "eu", parentId: orders.id });
  await client.createWorkspaceAndFind({ name: "us", parentId: orders.id });
  await client.createWorkspaceAndFind({ name: "billing", parentId: platform.id });
  await client.createWorkspaceAndFind({ name: "data" });
}
