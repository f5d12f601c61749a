/** @tessera/cli — the `tessera` command. Exported for embedding and tests. */
export { main } from "./main.js";
export type { CliIO } from "./io.js";
export { ExitCode } from "./exit-codes.js";
export { pluginsJson, type PluginsJson } from "./commands/plugins.js";
export { JsonEventSchema, type JsonEvent } from "./json-events.js";
