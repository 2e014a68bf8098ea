/** `broker:index:Workspace`, declared once: see `fields.ts` for what is derived from it. */
import { DEFAULT_ADOPT, TOP_LEVEL_PARENT_ID } from "../../model";
import { ALLOW_ENDPOINT_CHANGE, BASE_URL } from "./endpoint-fields";
import { BOOLEAN, INTEGER, STRING, type ResourceDeclaration } from "./fields";

/** A workspace: a node in the broker's workspace tree. */
export const WORKSPACE = {
  token: "broker:index:Workspace",
  name: "Workspace",
  doc: "A workspace of the broker: a node in the workspace tree. A change of `name` or `parentId` replaces it. The API has no delete endpoint: destroy only forgets the workspace, with a warning.",
  fields: {
    name: {
      kind: "input",
      type: STRING,
      doc: "The workspace's name: non-empty, no leading or trailing whitespace, at most 200 characters. Changing it replaces the workspace (the API cannot rename one). When absent, the workspace is named `<logical name>-<7 random characters>` (a `/` of the logical name becomes `-`; or as the stack's `pulumi:autonaming` configuration asks), chosen once and kept across updates; a replacement chooses a new one, so the new workspace is created before the old one is forgotten.",
      autonamed: true,
      replaceOnChange: true,
    },
    parentId: {
      kind: "input",
      type: INTEGER,
      doc: "The id of the parent workspace, e.g. another Workspace's `workspaceId`. Absent or 0 makes a top-level workspace. Changing it replaces the workspace.",
      default: TOP_LEVEL_PARENT_ID,
      replaceOnChange: true,
    },
    adopt: {
      kind: "input",
      type: BOOLEAN,
      doc: "Take over an existing workspace with the same name and parent instead of failing because it exists.",
      default: DEFAULT_ADOPT,
      stackOnly: true,
    },
    allowEndpointChange: ALLOW_ENDPOINT_CHANGE,
    workspaceId: {
      kind: "output",
      type: INTEGER,
      doc: "The workspace's numeric id; pass it as another workspace's `parentId`.",
    },
    path: { kind: "output", type: STRING, doc: "The full path, such as `/team/orders`." },
    createdAt: {
      kind: "output",
      type: STRING,
      doc: "When the broker created the workspace (ISO 8601 UTC).",
    },
    adopted: {
      kind: "output",
      type: BOOLEAN,
      doc: "True when this stack adopted an existing workspace instead of creating it.",
    },
    baseUrl: BASE_URL,
  },
} as const satisfies ResourceDeclaration;
