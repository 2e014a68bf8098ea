/**
 * The exporter: reads an environment through the client and writes it as a broker configuration
 * document (the `broker-config export` command is a thin shell around it).
 */
export {
  EXPORT_PROGRESS_EVERY,
  exportBrokerConfig,
  type BrokerConfigExport,
  type ExportOptions,
  type ExportProgress,
  type ExportSource,
  type LeftOut,
} from "./document";
export { BROKER_CONFIG_FORMATS, formatBrokerConfig, formatOfFile, type BrokerConfigFormat } from "./format";
export { buildWorkspaceTree, type WorkspaceTree } from "./tree";
export {
  pulumiImportFile,
  resourceNameOf,
  type PulumiImportFile,
  type PulumiImportResource,
} from "./import-file";
