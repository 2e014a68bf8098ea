/** Writes a document as YAML or JSON text, deterministically: equal documents give equal bytes. */
import type { BrokerConfigDocument } from "../config-as-data/types";
import { loadYaml } from "../on-demand";

/** The output formats of {@link formatBrokerConfig}. */
export type BrokerConfigFormat = "yaml" | "json";

/** The formats, for argument checks. */
export const BROKER_CONFIG_FORMATS: readonly BrokerConfigFormat[] = ["yaml", "json"];

// No date, URL or count in it: two exports of equal configurations must be byte-equal.
const YAML_HEADER = [
  " Broker configuration (pulumi-broker-config document, version 1), written by `broker-config export`.",
  " It holds names, types and permissions only: never access key values or private keys.",
  " ACCOUNT keys are left out unless exported with --include-account-keys; the key the export",
  " authenticated with never is.",
  " Deploy it with the Environment component (native `broker` plugin: YAML, Python, Go, TypeScript)",
  " or the BrokerConfig component (dynamic resources: TypeScript/JavaScript).",
  " `adopt: true` takes over what already exists.",
].join("\n");

/**
 * The document as text. Key order is the order of the document's properties (the exporter builds
 * them in a fixed order); YAML output starts with a comment saying what the file is.
 *
 * @param format `"yaml"` (block style, no line wrapping) or `"json"` (two-space indent).
 */
export function formatBrokerConfig(document: BrokerConfigDocument, format: BrokerConfigFormat): string {
  if (format === "json") return `${JSON.stringify(document, null, 2)}\n`;
  const { Document } = loadYaml();
  const yaml = new Document(document);
  yaml.commentBefore = YAML_HEADER;
  // lineWidth 0: never fold long names or paths over two lines.
  return yaml.toString({ lineWidth: 0 });
}

/** The format a file name implies: `.json` is JSON, everything else YAML. */
export function formatOfFile(file: string): BrokerConfigFormat {
  return file.toLowerCase().endsWith(".json") ? "json" : "yaml";
}
