/**
 * @tessera/kernel — the public API for plugin authors and hosts. Everything exported here is
 * documented in the package README.
 */
export { KERNEL_API_VERSION } from "./version.js";

export { createKernel, DEFAULT_HOOK_TIMEOUT_MS, DEFAULT_SETUP_TIMEOUT_MS } from "./kernel.js";
export type { Kernel, KernelOptions, KernelDescription, PluginInfo, LoadErrorInfo } from "./kernel.js";

export { definePlugin } from "./plugin/define.js";
export type { PluginDefinition, Dispose } from "./plugin/define.js";
export type { PluginContext, RegistryHandle, KernelRegistries } from "./plugin/context.js";

export { hookSpecs, hookNames, isHookName } from "./hooks/table.js";
export type { HookTable, HookSpec, FailurePolicy } from "./hooks/table.js";
export type { TapOptions, TapInfo } from "./hooks/host.js";
export type * from "./hooks/types.js";

export { Registry } from "./registry.js";
export type { Registered } from "./registry.js";
export { defineTool } from "./definitions.js";
export type {
  ToolDefinition,
  ToolContext,
  ToolResult,
  ToolPermission,
  ProviderDefinition,
  ModelInfo,
  ModelCost,
  KernelLanguageModel,
  AgentDefinition,
  AgentMode,
  CommandDefinition,
  CompactionStrategy,
  CompactionContext,
} from "./definitions.js";

export * from "./session/index.js";
export * from "./engine/index.js";

export { Bus, defineEvent, listEventDefinitions } from "./bus/bus.js";
export type { BusEvent, EventDefinition, EventProperties, Unsubscribe, BusOptions } from "./bus/bus.js";
export { PluginErrorEvent, KernelReadyEvent } from "./bus/events.js";

export { loadConfig, findRepoRoot, CONFIG_FILES } from "./config/load.js";
export type { LoadConfigOptions, ResolvedConfig } from "./config/load.js";
export type { PluginEntry } from "./config/merge.js";
export { ConfigSchema, PluginSpecSchema, configJsonSchema } from "./config/schema.js";
export type { Config, PluginSpec } from "./config/schema.js";

export { tesseraPaths } from "./paths.js";
/** How the kernel finds plugin packages; also for plugins that load packages named in config. */
export { resolvePluginFile as resolvePackageFile, globalModuleDirs } from "./plugin/resolve.js";
export type { ResolveContext } from "./plugin/resolve.js";
export type { TesseraPaths } from "./paths.js";
export { createLogger, stderrSink } from "./logger.js";
export type { Logger, LogLevel, LogRecord, LogSink } from "./logger.js";

export {
  TesseraError,
  PluginError,
  PluginLoadError,
  ConfigError,
  ErrorCodes,
} from "./errors.js";
export type { ErrorCode, LoadStage } from "./errors.js";
