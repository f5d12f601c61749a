import type { ModelCost, ProviderDefinition } from "@tessera/kernel";
import { DEMO_PROVIDER_ID } from "./demo.js";
import { providerStatus } from "./plugin.js";

/** One row of `tessera models`. */
export interface ModelListing {
  readonly providerID: string;
  readonly providerName?: string;
  readonly modelID: string;
  /** `provider/model`, what `--model` and the config's `model` take. */
  readonly ref: string;
  readonly name?: string;
  readonly limit?: { readonly context: number; readonly output: number };
  /** USD per million tokens. */
  readonly cost?: ModelCost;
  readonly capabilities: { readonly toolCall?: boolean; readonly reasoning?: boolean; readonly attachment?: boolean };
  /** Whether the provider can be called now (its key is set when it needs one). */
  readonly usable: boolean;
  /** Why it cannot, when `usable` is false. */
  readonly problem?: string;
}

export interface ListModelsOptions {
  /** Also list providers that cannot be used yet (missing key …), with `usable: false`. Default false. */
  readonly includeUnusable?: boolean;
  /** Include the offline demo model. Default true. */
  readonly includeDemo?: boolean;
}

/**
 * The models of every registered provider that offers a list (`models()`), usable ones only by
 * default, sorted by provider then model id. Works with any kernel (or anything with a
 * `providers.list()`); providers from other plugins count as usable.
 */
export function listModels(
  kernel: { readonly providers: { list(): readonly ProviderDefinition[] } },
  options: ListModelsOptions = {},
): ModelListing[] {
  const rows: ModelListing[] = [];
  for (const provider of kernel.providers.list()) {
    if (provider.id === DEMO_PROVIDER_ID && options.includeDemo === false) continue;
    const status = providerStatus(provider) ?? { usable: true };
    if (!status.usable && !options.includeUnusable) continue;
    for (const info of provider.models?.() ?? []) {
      rows.push({
        providerID: provider.id,
        ...(provider.name ? { providerName: provider.name } : {}),
        modelID: info.id,
        ref: `${provider.id}/${info.id}`,
        ...(info.name ? { name: info.name } : {}),
        ...(info.limit ? { limit: info.limit } : {}),
        ...(info.cost ? { cost: info.cost } : {}),
        capabilities: {
          ...(info.toolCall !== undefined ? { toolCall: info.toolCall } : {}),
          ...(info.reasoning !== undefined ? { reasoning: info.reasoning } : {}),
          ...(info.attachment !== undefined ? { attachment: info.attachment } : {}),
        },
        usable: status.usable,
        ...("problem" in status && status.problem ? { problem: status.problem } : {}),
      });
    }
  }
  return rows.sort((a, b) => a.providerID.localeCompare(b.providerID) || a.modelID.localeCompare(b.modelID));
}
