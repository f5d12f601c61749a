import type { PluginDefinition } from "@tessera/kernel";

/** Options the CLI passes to the standard plugins. */
export interface StandardOptions {
  /** `--auto`: approve permission asks that no rule denies. */
  readonly auto: boolean;
}

/**
 * The plugins `tessera` loads by default: providers, tools and permissions. Config can switch any
 * of them off with `disabled_plugins`. Imported lazily, so commands that don't run the agent
 * (`--version`, `config`) don't pay for them.
 */
export async function standardPlugins(options: StandardOptions): Promise<Array<{ plugin: PluginDefinition; options?: Record<string, unknown> }>> {
  const [providers, tools, permissions] = await Promise.all([
    import("@tessera/plugin-providers"),
    import("@tessera/plugin-tools"),
    import("@tessera/plugin-permissions"),
  ]);
  return [
    { plugin: providers.default as PluginDefinition },
    { plugin: tools.default as PluginDefinition },
    { plugin: permissions.default as PluginDefinition, options: { auto: options.auto } },
  ];
}
