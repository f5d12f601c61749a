import type { z } from "zod";
import type { PluginContext } from "./context.js";

/** What `setup` may return: a function that undoes it (close servers, stop watchers). */
export type Dispose = () => void | Promise<void>;

export interface PluginDefinition<Options extends z.ZodType = z.ZodType> {
  /** Unique among loaded plugins; also the name of every tap it makes. npm-style: `my-plugin`, `@scope/plugin`. */
  readonly name: string;
  /** The plugin's own semver version. */
  readonly version: string;
  /** The semver range of the kernel API it supports, e.g. `^1.0.0`. */
  readonly kernel: string;
  /** Names of plugins that must be loaded (and are set up) before this one. */
  readonly dependencies?: readonly string[];
  /** Validates the options given in config (`[spec, options]`); defaults apply. */
  readonly options?: Options;
  setup(ctx: PluginContext, options: z.output<Options>): void | Dispose | Promise<void | Dispose>;
}

/**
 * Identity helper for typing a plugin. Validation (name, versions, options, dependencies)
 * happens when the kernel loads it, so a plain object works as well.
 */
export function definePlugin<Options extends z.ZodType = z.ZodType<Record<string, unknown>>>(
  plugin: PluginDefinition<Options>,
): PluginDefinition<Options> {
  return plugin;
}
