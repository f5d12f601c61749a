// The provider SDKs are imported when a model of theirs is first used, not at start-up: each
// costs tens of milliseconds to load, and a run uses one.
import type { createAnthropic } from "@ai-sdk/anthropic";
import type { createGoogleGenerativeAI } from "@ai-sdk/google";
import type { createOpenAI } from "@ai-sdk/openai";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import type { Config, KernelLanguageModel, ModelInfo, ProviderDefinition } from "@tessera/kernel";
import { wrapLanguageModel, type LanguageModelMiddleware } from "ai";
import { builtinProvider, BUILTIN_PROVIDERS, BUNDLED_PACKAGES, kindOf, optionsNamespace, type ProviderKind } from "./builtins.js";
import { loadCatalog, mergeModel, toModelInfo, type CatalogModel } from "./catalog.js";
import { MissingApiKeyError, ProviderConfigError, suggest, UnknownModelError } from "./errors.js";
import { loadProviderFactory, type PackageSearch } from "./load-package.js";
import {
  anthropicCacheMiddleware,
  errorMiddleware,
  geminiToolSchemaMiddleware,
  providerOptionsMiddleware,
  reasoningMiddleware,
  temperatureMiddleware,
  temperatureRule,
  type ReasoningEffort,
} from "./transforms.js";

/** Which OpenAI API a model is called through. */
export type OpenAIApi = "responses" | "chat";

/** A model as this plugin knows it: the catalog entry with the config's overrides and extras. */
export interface ModelEntry extends CatalogModel {
  /** The id sent to the API, when it differs from the id used in Tessera (config `id`). */
  id?: string;
  /** Provider options sent with every call of this model (config `options`); `chat.params` wins. */
  options?: Record<string, unknown>;
  /** `@ai-sdk/openai` only: "responses" (default) or "chat" (Chat Completions). */
  api?: OpenAIApi;
  reasoning_effort?: ReasoningEffort;
  thinking_budget?: number;
}

type ProviderConfig = NonNullable<Config["provider"]>[string];

/** Everything needed to build one provider, from the built-in table, the catalog and the config. */
export interface ProviderSpec {
  readonly id: string;
  readonly name: string;
  readonly npm: string | undefined;
  readonly kind: ProviderKind;
  /** The `providerOptions` namespace the package reads. */
  readonly namespace: string;
  /** Key variables, preferred first. */
  readonly env: readonly string[];
  /** Whether calls fail without a key (the first-party APIs and the hosted compatible ones). */
  readonly keyRequired: boolean;
  readonly apiKey: string | undefined;
  /** The factory options from config (`baseURL`, `headers`, …), without `apiKey`. */
  readonly options: Record<string, unknown>;
  readonly api: OpenAIApi | undefined;
  readonly reasoningEffort: ReasoningEffort | undefined;
  readonly thinkingBudget: number | undefined;
  readonly models: Readonly<Record<string, ModelEntry>>;
  /** Where the provider came from: its config entry, or a key variable that was set. */
  readonly source: "config" | "env";
}

/**
 * The providers to register: every provider in config, plus each built-in whose key variable is
 * set. Config entries for built-in ids inherit the built-in's package, endpoint and key
 * variables; catalog models are merged with config models field by field.
 */
export function providerSpecs(config: Readonly<Config>, env: NodeJS.ProcessEnv): ProviderSpec[] {
  const specs: ProviderSpec[] = [];
  const configured = config.provider ?? {};
  for (const [id, entry] of Object.entries(configured)) specs.push(buildSpec(id, entry, env, "config"));
  for (const builtin of BUILTIN_PROVIDERS) {
    if (!builtin.auto || builtin.id in configured) continue;
    if (builtin.env.some((name) => nonEmpty(env[name]))) specs.push(buildSpec(builtin.id, {}, env, "env"));
  }
  return specs;
}

function buildSpec(providerID: string, entry: ProviderConfig, env: NodeJS.ProcessEnv, source: "config" | "env"): ProviderSpec {
  const builtin = builtinProvider(providerID);
  const rawOptions = { ...(entry.options ?? {}) } as Record<string, unknown>;
  const npm = entry.npm ?? builtin?.npm ?? (typeof rawOptions.baseURL === "string" ? "@ai-sdk/openai-compatible" : undefined);
  const kind = npm ? kindOf(npm) : "other";
  const extra = entry as Record<string, unknown>;
  const envVars = Array.isArray(extra.env) ? (extra.env as unknown[]).filter((v): v is string => typeof v === "string") : (builtin?.env ?? []);
  const configKey = nonEmpty(rawOptions.apiKey);
  const apiKey = configKey ?? envVars.map((name) => nonEmpty(env[name])).find((v) => v !== undefined);
  delete rawOptions.apiKey;
  if (builtin?.baseURL && rawOptions.baseURL === undefined) rawOptions.baseURL = builtin.baseURL;
  if (rawOptions.baseURL === "") delete rawOptions.baseURL;

  const catalog = loadCatalog().providers;
  // A provider with its own endpoint but a first-party package (e.g. a proxy) still gets that
  // package's catalog when it has none of its own.
  const base = catalog[providerID] ?? (kind === "openai" || kind === "anthropic" || kind === "google" ? catalog[kind] : undefined);
  const models: Record<string, ModelEntry> = {};
  for (const [modelID, model] of Object.entries(base?.models ?? {})) models[modelID] = { ...model };
  for (const [modelID, model] of Object.entries(entry.models ?? {})) {
    models[modelID] = mergeModel(models[modelID], model as CatalogModel) as ModelEntry;
  }

  return {
    id: providerID,
    name: entry.name ?? builtin?.name ?? base?.name ?? providerID,
    npm,
    kind,
    namespace: npm ? optionsNamespace(npm, providerID) : providerID,
    env: envVars,
    keyRequired: kind === "openai" || kind === "anthropic" || kind === "google" || (kind === "openai-compatible" && envVars.length > 0),
    apiKey,
    options: rawOptions,
    api: extra.api === "chat" || extra.api === "responses" ? extra.api : undefined,
    reasoningEffort: typeof extra.reasoning_effort === "string" ? (extra.reasoning_effort as ReasoningEffort) : undefined,
    thinkingBudget: typeof extra.thinking_budget === "number" ? extra.thinking_budget : undefined,
    models,
    source,
  };
}

/** What a provider needs from the plugin at run time. */
export interface ProviderRuntime {
  readonly search: PackageSearch;
  /** Called once per model the first time it is used, e.g. to log. */
  readonly onModel?: (providerID: string, modelID: string) => void;
}

type SdkProvider = ((modelID: string) => unknown) & Record<string, unknown>;

/** Builds the kernel provider for a spec. Packages are loaded on first use. */
export function createProvider(spec: ProviderSpec, runtime: ProviderRuntime): ProviderDefinition {
  let sdk: Promise<SdkProvider> | undefined;
  const cache = new Map<string, KernelLanguageModel>();
  const known = Object.keys(spec.models);

  const entryOf = (modelID: string): { entry: ModelEntry; known: boolean } | undefined => {
    const direct = spec.models[modelID];
    if (direct) return { entry: direct, known: true };
    // Dated snapshots and -latest aliases of a known model share its facts.
    const base = modelID.replace(/-(?:\d{4}-\d{2}-\d{2}|\d{8}|latest|preview)$/, "");
    if (base !== modelID && spec.models[base]) return { entry: spec.models[base]!, known: true };
    return undefined;
  };

  const load = (): Promise<SdkProvider> => {
    sdk ??= instantiate(spec, runtime.search).catch((error: unknown) => {
      sdk = undefined;
      throw error;
    });
    return sdk;
  };

  return {
    id: spec.id,
    name: spec.name,
    ...(spec.kind === "anthropic" ? { promptFamily: "anthropic" } : {}),
    ...(spec.kind === "openai" ? { promptFamily: "openai" } : {}),
    ...(spec.kind === "google" ? { promptFamily: "google" } : {}),

    async languageModel(modelID: string): Promise<KernelLanguageModel> {
      const hit = cache.get(modelID);
      if (hit) return hit;
      const found = entryOf(modelID);
      // With a list of models (catalog or config), an id outside it is a typo more often than not.
      if (!found && known.length > 0) throw new UnknownModelError(spec.id, modelID, suggest(modelID, known), known);
      const entry = found?.entry ?? {};
      if (!spec.npm) {
        throw new ProviderConfigError(
          spec.id,
          `no AI SDK package is set; add "npm" to its config, e.g. "provider": { "${spec.id}": { "npm": "@ai-sdk/openai-compatible", "options": { "baseURL": "…" } } }`,
        );
      }
      if (spec.keyRequired && !spec.apiKey) throw new MissingApiKeyError(spec.id, spec.env, `provider.${spec.id}.options.apiKey`);
      const provider = await load();
      const raw = rawModel(spec, provider, entry.id ?? modelID, entry.api ?? spec.api);
      const model = wrapLanguageModel({ model: raw, middleware: middlewareFor(spec, modelID, entry) });
      cache.set(modelID, model);
      runtime.onModel?.(spec.id, modelID);
      return model;
    },

    model(modelID: string): ModelInfo | undefined {
      const found = entryOf(modelID);
      return found ? toModelInfo(modelID, found.entry) : undefined;
    },

    models(): ModelInfo[] {
      return Object.entries(spec.models).map(([modelID, entry]) => toModelInfo(modelID, entry));
    },
  };
}

/** The transforms for one model, in the order they apply to a call. */
export function middlewareFor(spec: ProviderSpec, modelID: string, entry: ModelEntry): LanguageModelMiddleware[] {
  const list: LanguageModelMiddleware[] = [
    providerOptionsMiddleware({ providerID: spec.id, namespace: spec.namespace, defaults: entry.options }),
  ];
  const effort = entry.reasoning_effort ?? spec.reasoningEffort;
  const budget = entry.thinking_budget ?? spec.thinkingBudget;
  const reasons = entry.reasoning ?? /^(o\d|gpt-5)|reason|think|r1\b/i.test(modelID.split("/").pop() ?? "");
  if (reasons) list.push(reasoningMiddleware(spec.kind, spec.namespace, { effort, budget, outputLimit: entry.limit?.output }));
  list.push(temperatureMiddleware(temperatureRule(entry.id ?? modelID, entry.temperature)));
  if (spec.kind === "anthropic") list.push(anthropicCacheMiddleware());
  if (spec.kind === "google") list.push(geminiToolSchemaMiddleware());
  list.push(errorMiddleware(spec.kind));
  return list;
}

async function instantiate(spec: ProviderSpec, search: PackageSearch): Promise<SdkProvider> {
  const options: Record<string, unknown> = { ...spec.options };
  if (spec.apiKey !== undefined) options.apiKey = spec.apiKey;
  switch (spec.npm as (typeof BUNDLED_PACKAGES)[number] | string) {
    case "@ai-sdk/openai": {
      const { createOpenAI } = await import("@ai-sdk/openai");
      // An explicit key keeps the SDK from reading OPENAI_API_KEY behind the config's back.
      return createOpenAI(options as Parameters<typeof createOpenAI>[0]) as unknown as SdkProvider;
    }
    case "@ai-sdk/anthropic": {
      const { createAnthropic } = await import("@ai-sdk/anthropic");
      return createAnthropic(options as Parameters<typeof createAnthropic>[0]) as unknown as SdkProvider;
    }
    case "@ai-sdk/google": {
      const { createGoogleGenerativeAI } = await import("@ai-sdk/google");
      return createGoogleGenerativeAI(options as Parameters<typeof createGoogleGenerativeAI>[0]) as unknown as SdkProvider;
    }
    case "@ai-sdk/openai-compatible": {
      if (typeof options.baseURL !== "string") {
        throw new ProviderConfigError(spec.id, `@ai-sdk/openai-compatible needs a baseURL; set "provider.${spec.id}.options.baseURL"`);
      }
      const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
      return createOpenAICompatible({
        includeUsage: true,
        ...(options as Record<string, never>),
        name: spec.id,
        baseURL: options.baseURL,
      }) as unknown as SdkProvider;
    }
    default: {
      let loaded: Awaited<ReturnType<typeof loadProviderFactory>>;
      try {
        loaded = await loadProviderFactory(spec.npm!, search);
      } catch (error) {
        throw new ProviderConfigError(spec.id, `cannot load "${spec.npm}": ${(error as Error).message}`);
      }
      const provider = loaded.factory(options);
      if (typeof provider !== "function" && (typeof provider !== "object" || provider === null)) {
        throw new ProviderConfigError(spec.id, `${loaded.exportName}() of "${spec.npm}" did not return a provider`);
      }
      return provider as SdkProvider;
    }
  }
}

function rawModel(spec: ProviderSpec, provider: SdkProvider, apiModelID: string, api: OpenAIApi | undefined): LanguageModelV4 {
  if (spec.kind === "openai") {
    const method = api === "chat" ? provider.chat : provider.responses;
    return (method as (id: string) => LanguageModelV4)(apiModelID);
  }
  const languageModel = provider.languageModel;
  const model = typeof languageModel === "function" ? (languageModel as (id: string) => unknown)(apiModelID) : provider(apiModelID);
  if (!model || typeof model !== "object" || typeof (model as LanguageModelV4).doStream !== "function") {
    throw new ProviderConfigError(spec.id, `"${spec.npm}" did not return a language model for "${apiModelID}"`);
  }
  return model as LanguageModelV4;
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}
