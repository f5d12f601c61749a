import { definePlugin, type PluginDefinition, type ProviderDefinition } from "@tessera/kernel";
import { z } from "zod";
import { createDemoProvider, type DemoModelOptions } from "./demo.js";
import { globalModuleDirs } from "./load-package.js";
import { createProvider, providerSpecs, type ProviderSpec } from "./providers.js";

export const PLUGIN_NAME = "@tessera/plugin-providers";
export const PLUGIN_VERSION = "0.1.0";

/**
 * Marks the providers this plugin registers with whether they can be used now (a key is
 * there when one is needed). A `Symbol.for` key, so it works across duplicate installs.
 */
export const PROVIDER_STATUS = Symbol.for("tessera.plugin-providers.status");

export interface ProviderStatus {
  readonly usable: boolean;
  /** Why not, e.g. the missing key variable. */
  readonly problem?: string;
  /** "config", "env" (a key variable was set) or "builtin" (the demo). */
  readonly source: "config" | "env" | "builtin";
  readonly npm?: string;
}

export interface ProvidersPluginOptions {
  /**
   * Where API keys are read from (`OPENAI_API_KEY` …). Default: the kernel's env (`ctx.env`).
   */
  readonly env?: NodeJS.ProcessEnv;
  /** Options of the offline demo model. */
  readonly demo?: DemoModelOptions;
}

const ConfigOptions = z.object({
  demo: z.object({ wordDelayMs: z.number().int().nonnegative().optional() }).optional(),
});

/** The providers plugin; `createProvidersPlugin()` with defaults is the package's default export. */
export function createProvidersPlugin(init: ProvidersPluginOptions = {}): PluginDefinition<typeof ConfigOptions> {
  return definePlugin({
    name: PLUGIN_NAME,
    version: PLUGIN_VERSION,
    kernel: "^1.0.0",
    options: ConfigOptions,
    setup(ctx, options) {
      const env = init.env ?? ctx.env;
      const search = { directory: ctx.directory, globalModules: globalModuleDirs(ctx.paths.config, env) };
      const specs = providerSpecs(ctx.config, env);
      for (const spec of specs) {
        const provider = createProvider(spec, {
          search,
          onModel: (providerID, modelID) => ctx.log.debug(`model ${providerID}/${modelID} ready`, { npm: spec.npm }),
        });
        ctx.providers.register(withStatus(provider, statusOf(spec)));
        const status = statusOf(spec);
        if (!status.usable) ctx.log.warn(`provider "${spec.id}" is configured but cannot be used yet: ${status.problem}`);
      }
      const demoOptions = { ...init.demo, ...options.demo };
      ctx.providers.register(withStatus(createDemoProvider(demoOptions), { usable: true, source: "builtin" }));
      ctx.log.debug(`providers: ${[...specs.map((s) => s.id), "demo"].join(", ")}`);
    },
  });
}

function statusOf(spec: ProviderSpec): ProviderStatus {
  const base = { source: spec.source, ...(spec.npm ? { npm: spec.npm } : {}) } as const;
  if (!spec.npm) return { ...base, usable: false, problem: `no "npm" package is set in provider.${spec.id}` };
  if (spec.keyRequired && !spec.apiKey) {
    const vars = spec.env.join(" or ");
    return { ...base, usable: false, problem: `no API key (set ${vars ? `${vars} or ` : ""}provider.${spec.id}.options.apiKey)` };
  }
  return { ...base, usable: true };
}

function withStatus(provider: ProviderDefinition, status: ProviderStatus): ProviderDefinition {
  Object.defineProperty(provider, PROVIDER_STATUS, { value: status, enumerable: false });
  return provider;
}

/** The status this plugin attached to a provider, or undefined for other plugins' providers. */
export function providerStatus(provider: ProviderDefinition): ProviderStatus | undefined {
  return (provider as unknown as Record<symbol, ProviderStatus | undefined>)[PROVIDER_STATUS];
}
