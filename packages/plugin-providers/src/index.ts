/**
 * @tessera/plugin-providers — model providers for Tessera through the AI SDK: OpenAI (Responses
 * and Chat Completions), Anthropic, Google, OpenAI-compatible endpoints and any AI SDK provider
 * package named in config; a bundled model catalog; per-provider transforms and error mapping;
 * and the offline demo model `demo/offline`.
 */
import { createProvidersPlugin } from "./plugin.js";

export { createProvidersPlugin, providerStatus, PROVIDER_STATUS, PLUGIN_NAME, PLUGIN_VERSION } from "./plugin.js";
export type { ProvidersPluginOptions, ProviderStatus } from "./plugin.js";
export { listModels } from "./list-models.js";
export type { ModelListing, ListModelsOptions } from "./list-models.js";
export {
  createDemoModel,
  createDemoProvider,
  planDemoStep,
  parseListing,
  pickFile,
  fileContent,
  DEMO_FILE,
  DEMO_MARKER,
  DEMO_MODEL,
  DEMO_MODEL_ID,
  DEMO_MODEL_INFO,
  DEMO_PROVIDER_ID,
} from "./demo.js";
export type { DemoModelOptions, DemoStep, DemoToolResult } from "./demo.js";
export { loadCatalog, mergeModel, toModelInfo } from "./catalog.js";
export type { Catalog, CatalogModel, CatalogProvider } from "./catalog.js";
export { BUILTIN_PROVIDERS, BUNDLED_PACKAGES } from "./builtins.js";
export type { BuiltinProvider, ProviderKind } from "./builtins.js";
export { providerSpecs, createProvider, middlewareFor } from "./providers.js";
export type { ProviderSpec, ModelEntry, OpenAIApi } from "./providers.js";
export { MissingApiKeyError, UnknownModelError, ProviderConfigError, suggest } from "./errors.js";
export {
  anthropicCacheMiddleware,
  applyAnthropicCache,
  classifyError,
  errorMiddleware,
  geminiToolSchemaMiddleware,
  isOverflowError,
  providerOptionsMiddleware,
  reasoningMiddleware,
  sanitizeGeminiSchema,
  temperatureMiddleware,
  temperatureRule,
} from "./transforms.js";
export type { ReasoningConfig, ReasoningEffort, TemperatureRule } from "./transforms.js";
export { loadProviderFactory, resolvePackage, globalModuleDirs } from "./load-package.js";

/** The plugin with defaults (keys from `process.env`): what `"plugins": ["@tessera/plugin-providers"]` loads. */
const plugin = createProvidersPlugin();
export default plugin;
