import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { ModelCost, ModelInfo } from "@tessera/kernel";

/**
 * A model as the catalog and the config describe it (the config's `provider.<id>.models.<model>`
 * shape, OpenCode's). Every field is optional so that a config entry can override one field.
 */
export interface CatalogModel {
  name?: string;
  /** Groups models for transforms, e.g. "gpt-5", "claude", "gemini-2.5". */
  family?: string;
  limit?: { context?: number; output?: number };
  cost?: CatalogCost & { context_over_200k?: CatalogCost };
  tool_call?: boolean;
  reasoning?: boolean;
  attachment?: boolean;
  /** `false` for models that reject a temperature (OpenAI reasoning models). */
  temperature?: boolean;
}

/** USD per million tokens; every field optional so that config can override one. */
export interface CatalogCost {
  input?: number;
  output?: number;
  cache_read?: number;
  cache_write?: number;
}

export interface CatalogProvider {
  readonly name: string;
  /** Where the prices come from. */
  readonly source: string;
  readonly models: Readonly<Record<string, CatalogModel>>;
}

export interface Catalog {
  readonly version: number;
  /** When this file was last compiled (YYYY-MM-DD). */
  readonly updated: string;
  /** The month the prices were read from the providers' pages. */
  readonly prices_as_of?: string;
  readonly providers: Readonly<Record<string, CatalogProvider>>;
}

let cached: Catalog | undefined;

/** The bundled catalog (`catalog/models.json`), read once. */
export function loadCatalog(): Catalog {
  // src/ and dist/ both sit one level below the package root.
  // Resolved through the package's own exports, so it is found from a bundle too.
  cached ??= JSON.parse(readFileSync(createRequire(import.meta.url).resolve("@tessera/plugin-providers/catalog/models.json"), "utf8")) as Catalog;
  return cached;
}

/** Field-by-field merge: `override` wins for every field it sets; `limit` and `cost` merge key by key. */
export function mergeModel(base: CatalogModel | undefined, override: CatalogModel | undefined): CatalogModel {
  if (!base) return { ...override };
  if (!override) return { ...base };
  const merged: CatalogModel = { ...base, ...definedOnly(override) };
  if (base.limit || override.limit) merged.limit = { ...base.limit, ...definedOnly(override.limit ?? {}) };
  if (base.cost || override.cost) {
    const cost = { ...base.cost, ...definedOnly(override.cost ?? {}) };
    const tier = base.cost?.context_over_200k || override.cost?.context_over_200k;
    if (tier) cost.context_over_200k = { ...base.cost?.context_over_200k, ...definedOnly(override.cost?.context_over_200k ?? {}) };
    merged.cost = cost;
  }
  return merged;
}

/** The kernel's `ModelInfo` for a catalog/config entry; incomplete limits or costs are left out. */
export function toModelInfo(id: string, model: CatalogModel): ModelInfo {
  const info: { -readonly [K in keyof ModelInfo]: ModelInfo[K] } = { id };
  if (model.name !== undefined) info.name = model.name;
  if (typeof model.limit?.context === "number" && typeof model.limit.output === "number") {
    info.limit = { context: model.limit.context, output: model.limit.output };
  }
  if (typeof model.cost?.input === "number" && typeof model.cost.output === "number") {
    const { context_over_200k: tier, ...base } = model.cost;
    const cost: { -readonly [K in keyof ModelCost]: ModelCost[K] } = { input: base.input!, output: base.output! };
    if (typeof base.cache_read === "number") cost.cache_read = base.cache_read;
    if (typeof base.cache_write === "number") cost.cache_write = base.cache_write;
    if (tier && typeof tier.input === "number" && typeof tier.output === "number") {
      cost.context_over_200k = {
        input: tier.input,
        output: tier.output,
        ...(typeof tier.cache_read === "number" ? { cache_read: tier.cache_read } : {}),
        ...(typeof tier.cache_write === "number" ? { cache_write: tier.cache_write } : {}),
      };
    }
    info.cost = cost;
  }
  if (model.tool_call !== undefined) info.toolCall = model.tool_call;
  if (model.reasoning !== undefined) info.reasoning = model.reasoning;
  if (model.attachment !== undefined) info.attachment = model.attachment;
  return info;
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
