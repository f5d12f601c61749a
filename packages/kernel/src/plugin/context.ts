import type { Bus } from "../bus/bus.js";
import type { Config } from "../config/schema.js";
import type {
  AgentDefinition,
  CommandDefinition,
  CompactionStrategy,
  ProviderDefinition,
  ToolDefinition,
} from "../definitions.js";
import { ErrorCodes, TesseraError } from "../errors.js";
import type { HookHost, TapOptions } from "../hooks/host.js";
import { isHookName } from "../hooks/table.js";
import type { HookFn, HookInput, HookName, HookOutput } from "../hooks/types.js";
import type { Logger } from "../logger.js";
import type { TesseraPaths } from "../paths.js";
import type { Registry } from "../registry.js";

/** A registry as a plugin sees it: register during setup, read any time. */
export interface RegistryHandle<T extends { readonly id: string }> {
  register(value: T): void;
  get(id: string): T | undefined;
  list(): T[];
}

/** Everything a plugin's `setup` can use. */
export interface PluginContext {
  /** This plugin's name. */
  readonly name: string;
  /** The kernel API version (see `kernel` in the plugin definition). */
  readonly kernelVersion: string;
  /** The project directory Tessera runs in. */
  readonly directory: string;
  /** The repository root (or the project directory outside a repository). */
  readonly root: string;
  /** The resolved config, read-only. */
  readonly config: Readonly<Config>;
  /** Key path → the config file that set it (`permission.bash`), for naming rules in messages. */
  readonly configSources: Readonly<Record<string, string>>;
  readonly paths: TesseraPaths;
  /** The environment the kernel runs with (API keys, XDG folders); use it instead of `process.env`. */
  readonly env: Readonly<NodeJS.ProcessEnv>;
  /** A logger whose records are tagged with this plugin's name. */
  readonly log: Logger;
  readonly bus: Bus;
  /**
   * Taps a hook. `order` puts the tap in the `pre`, `normal` (default) or `post` band; within a
   * band, taps run in config order. `timeout` overrides the kernel's hook timeout for this tap.
   */
  tap<K extends HookName>(hook: K, fn: HookFn<K>, options?: TapOptions): void;
  /**
   * Runs a hook's taps (every plugin's, under the hook's failure policy), e.g. a bash tool asking
   * `shell.env` for the environment of a command. Resolves to `output`.
   */
  trigger<K extends HookName>(hook: K, input: HookInput<K>, output: HookOutput<K>): Promise<HookOutput<K>>;
  readonly tools: RegistryHandle<ToolDefinition>;
  readonly providers: RegistryHandle<ProviderDefinition>;
  readonly agents: RegistryHandle<AgentDefinition>;
  readonly commands: RegistryHandle<CommandDefinition>;
  /** Compaction strategies; the session loop uses the first one registered. */
  readonly compactions: RegistryHandle<CompactionStrategy>;
}

export interface KernelRegistries {
  readonly tools: Registry<ToolDefinition>;
  readonly providers: Registry<ProviderDefinition>;
  readonly agents: Registry<AgentDefinition>;
  readonly commands: Registry<CommandDefinition>;
  readonly compactions: Registry<CompactionStrategy>;
}

export interface ContextDeps {
  readonly kernelVersion: string;
  readonly directory: string;
  readonly root: string;
  readonly config: Readonly<Config>;
  readonly configSources: Readonly<Record<string, string>>;
  readonly paths: TesseraPaths;
  readonly env: Readonly<NodeJS.ProcessEnv>;
  readonly log: Logger;
  readonly bus: Bus;
  readonly hooks: HookHost;
  readonly registries: KernelRegistries;
}

/**
 * A plugin's context with transactional setup: taps and registrations are staged while `setup`
 * runs and only committed when it succeeds, so a plugin whose setup throws leaves no trace.
 * After setup the context is closed; tapping or registering later throws.
 */
export class StagedContext {
  private readonly staged: Array<() => void> = [];
  private readonly stagedIds = new Map<string, Set<string>>();
  private closed = false;
  readonly hooksTapped = new Set<HookName>();
  readonly context: PluginContext;

  constructor(
    private readonly plugin: { readonly name: string; readonly index: number },
    private readonly deps: ContextDeps,
  ) {
    const { registries } = deps;
    this.context = Object.freeze({
      name: plugin.name,
      kernelVersion: deps.kernelVersion,
      directory: deps.directory,
      root: deps.root,
      config: deps.config,
      configSources: deps.configSources,
      paths: deps.paths,
      env: deps.env,
      log: deps.log.child(plugin.name),
      bus: deps.bus,
      tap: (hook, fn, options) => this.tap(hook, fn as HookFn<HookName>, options),
      trigger: (hook, input, output) => deps.hooks.trigger(hook, input, output),
      tools: this.handle(registries.tools),
      providers: this.handle(registries.providers),
      agents: this.handle(registries.agents),
      commands: this.handle(registries.commands),
      compactions: this.handle(registries.compactions),
    } satisfies PluginContext);
  }

  /** Applies everything staged during setup. */
  commit(): void {
    for (const apply of this.staged) apply();
    this.closed = true;
  }

  /** Drops everything staged; the plugin's setup failed. */
  discard(): void {
    this.staged.length = 0;
    this.hooksTapped.clear();
    this.closed = true;
  }

  private tap(hook: string, fn: HookFn<HookName>, options?: TapOptions): void {
    this.assertOpen(`tap "${hook}"`);
    if (!isHookName(hook)) {
      throw new TesseraError(ErrorCodes.PLUGIN_INVALID, `plugin "${this.plugin.name}" tapped unknown hook "${hook}"`);
    }
    if (typeof fn !== "function") {
      throw new TesseraError(ErrorCodes.PLUGIN_INVALID, `plugin "${this.plugin.name}" tapped "${hook}" without a function`);
    }
    this.hooksTapped.add(hook);
    this.staged.push(() => this.deps.hooks.tap(hook, this.plugin, fn, options));
  }

  private handle<T extends { readonly id: string }>(registry: Registry<T>): RegistryHandle<T> {
    return Object.freeze({
      register: (value: T) => {
        this.assertOpen(`register ${registry.kind} "${value?.id}"`);
        if (!value || typeof value.id !== "string" || value.id === "") {
          throw new TesseraError(ErrorCodes.PLUGIN_INVALID, `plugin "${this.plugin.name}" registered a ${registry.kind} without an id`);
        }
        // Check now, so a duplicate fails this plugin's setup and names both plugins.
        const owner = registry.owner(value.id);
        let ids = this.stagedIds.get(registry.kind);
        if (owner !== undefined || ids?.has(value.id)) {
          throw new TesseraError(
            ErrorCodes.REGISTRY_DUPLICATE,
            `${registry.kind} "${value.id}" is registered by both "${owner ?? this.plugin.name}" and "${this.plugin.name}"`,
          );
        }
        if (!ids) this.stagedIds.set(registry.kind, (ids = new Set()));
        ids.add(value.id);
        this.staged.push(() => registry.register(this.plugin.name, value));
      },
      get: (id: string) => registry.get(id),
      list: () => registry.list(),
    });
  }

  private assertOpen(what: string): void {
    if (this.closed) {
      throw new TesseraError(
        ErrorCodes.KERNEL_SEALED,
        `plugin "${this.plugin.name}" tried to ${what} after its setup finished; do it inside setup()`,
      );
    }
  }
}
