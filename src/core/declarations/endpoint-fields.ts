/** The fields every resource has for the endpoint guard (`src/core/endpoint.ts`). */
import { BOOLEAN, STRING, type InputField, type OutputField } from "./fields";

/** `allowEndpointChange`: the input that lets a resource move to another API endpoint. */
export const ALLOW_ENDPOINT_CHANGE = {
  kind: "input",
  type: BOOLEAN,
  doc: "Allow this resource to move to a different `baseUrl` than the one it was created at. Without it, a changed endpoint fails the preview, so that a stack pointed at the wrong environment changes nothing. It is then created anew at the new endpoint.",
  default: false,
} as const satisfies InputField;

/** `baseUrl`: the endpoint the resource was created at, recorded with it. */
export const BASE_URL = {
  kind: "output",
  type: STRING,
  doc: "The API endpoint the resource lives at.",
} as const satisfies OutputField;
