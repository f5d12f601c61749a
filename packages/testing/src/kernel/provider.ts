import { definePlugin, type KernelLanguageModel, type ModelInfo, type PluginDefinition } from "@tessera/kernel";

/**
 * A provider plugin (`mock-provider`) registering provider `mock`, which serves `model` for any
 * model id (`mock/mock-model`). `info` is merged into every model's info (limits, cost …).
 */
export function mockProvider(model: KernelLanguageModel, info?: Partial<ModelInfo> & Record<string, unknown>): PluginDefinition {
  return definePlugin({
    name: "mock-provider",
    version: "1.0.0",
    kernel: "^1.0.0",
    setup(ctx) {
      ctx.providers.register({
        id: "mock",
        languageModel: () => model,
        model: (id) => ({ id, limit: { context: 100_000, output: 4_000 }, cost: { input: 1, output: 2, cache_read: 0.1, cache_write: 1.25 }, ...info }),
      });
    },
  });
}
