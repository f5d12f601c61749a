import type { KernelLanguageModel, ModelInfo, ProviderDefinition } from "../definitions.js";
import type { ModelRef } from "../session/message.js";
import type { Registry } from "../registry.js";

export class ModelResolveError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ModelResolveError";
  }
}

/** `"provider/model"` → `{ providerID, modelID }` (the model id may itself contain slashes). */
export function parseModelRef(ref: string | ModelRef): ModelRef {
  if (typeof ref !== "string") return ref;
  const slash = ref.indexOf("/");
  if (slash <= 0 || slash === ref.length - 1) {
    throw new ModelResolveError(`"${ref}" is not a model reference; write it as "provider/model", e.g. "anthropic/claude-sonnet-4-5"`);
  }
  return { providerID: ref.slice(0, slash), modelID: ref.slice(slash + 1) };
}

export interface ResolvedModel {
  readonly ref: ModelRef;
  readonly provider: ProviderDefinition;
  readonly language: KernelLanguageModel;
  readonly info?: ModelInfo;
}

/** Finds the provider in the registry and asks it for the model; errors say what is registered. */
export async function resolveModel(providers: Registry<ProviderDefinition>, ref: ModelRef): Promise<ResolvedModel> {
  const provider = providers.get(ref.providerID);
  if (!provider) {
    const known = providers.list().map((p) => p.id);
    throw new ModelResolveError(
      `no provider "${ref.providerID}" is registered${known.length ? ` (registered: ${known.join(", ")})` : " (no provider plugin is loaded)"}`,
    );
  }
  const language = await provider.languageModel(ref.modelID);
  const info = provider.model?.(ref.modelID);
  return { ref, provider, language, ...(info ? { info } : {}) };
}
