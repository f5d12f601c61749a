import { join } from "node:path";
import { Bus } from "./bus/bus.js";
import { KernelReadyEvent, PluginErrorEvent } from "./bus/events.js";
import { directoriesBetween, loadConfig, type ResolvedConfig } from "./config/load.js";
import type {
  AgentDefinition,
  CommandDefinition,
  CompactionStrategy,
  ProviderDefinition,
  ToolDefinition,
} from "./definitions.js";
import { resolveAgents } from "./engine/agents.js";
import { SessionEngine } from "./engine/engine.js";
import { PermissionGate } from "./engine/permission.js";
import { StatusTracker } from "./engine/status.js";
import type { MessageError } from "./session/message.js";
import { SessionStore } from "./session/session-store.js";
import { PluginLoadError, type LoadStage, type PluginError } from "./errors.js";
import { HookHost, type TapInfo } from "./hooks/host.js";
import { hookNames, type HookTable } from "./hooks/table.js";
import type { HookInput, HookName, HookOutput } from "./hooks/types.js";
import { createLogger, stderrSink, type LogLevel, type Logger, type LogSink } from "./logger.js";
import { tesseraPaths, type TesseraPaths } from "./paths.js";
import { StagedContext, type KernelRegistries } from "./plugin/context.js";
import type { Dispose, PluginDefinition } from "./plugin/define.js";
import { discoverPlugins, preparePlugins, type PluginCandidate, type PluginRequest } from "./plugin/loader.js";
import { orderByDependencies } from "./plugin/order.js";
import { globalModuleDirs } from "./plugin/resolve.js";
import { Registry } from "./registry.js";
import { KERNEL_API_VERSION } from "./version.js";

export const DEFAULT_HOOK_TIMEOUT_MS = 10_000;
export const DEFAULT_SETUP_TIMEOUT_MS = 30_000;

export interface KernelOptions {
  /** The project directory. */
  directory: string;
  /** Resolved config; loaded from `directory` when omitted. */
  config?: ResolvedConfig;
  /** Plugins given directly (before config plugins), e.g. the CLI's standard plugins or a test's. */
  plugins?: ReadonlyArray<PluginDefinition | { plugin: PluginDefinition; options?: Record<string, unknown> }>;
  /** Load `.tessera/plugins/*` from the project and the global config folder (default true). */
  discover?: boolean;
  /** Throw on the first plugin that fails to load (default: config `strict`, else false). */
  strict?: boolean;
  hookTimeoutMs?: number;
  setupTimeoutMs?: number;
  log?: LogSink;
  logLevel?: LogLevel;
  env?: NodeJS.ProcessEnv;
  /** The session database file, or ":memory:"; defaults to `<data dir>/tessera.db`. */
  storePath?: string;
  /** How often streamed text is written to the store (ms). */
  flushIntervalMs?: number;
  /** Overrides the retry backoff of model calls (ms for an attempt); tests use short delays. */
  retryDelay?: (attempt: number, error: MessageError) => number;
}

export interface LoadErrorInfo {
  readonly plugin: string;
  readonly stage: LoadStage;
  readonly source: string;
  readonly code: string;
  readonly message: string;
}

export interface PluginInfo {
  readonly name: string;
  readonly version: string;
  readonly source: string;
  readonly spec: string;
  readonly file?: string;
  readonly dependencies: readonly string[];
  /** Hooks this plugin taps. */
  readonly hooks: HookName[];
}

export interface KernelDescription {
  readonly kernel: string;
  readonly directory: string;
  readonly plugins: PluginInfo[];
  /** Every hook, with its taps in run order. */
  readonly hooks: Record<HookName, TapInfo[]>;
  readonly registries: Record<keyof KernelRegistries, Array<{ id: string; plugin: string }>>;
  readonly errors: LoadErrorInfo[];
}

export interface Kernel {
  readonly version: string;
  readonly directory: string;
  readonly root: string;
  readonly config: ResolvedConfig;
  readonly paths: TesseraPaths;
  /** The frozen table of tapable hooks (for introspection; tap through a plugin's context). */
  readonly hooks: HookTable;
  readonly bus: Bus;
  readonly log: Logger;
  readonly tools: Registry<ToolDefinition>;
  readonly providers: Registry<ProviderDefinition>;
  readonly agents: Registry<AgentDefinition>;
  readonly commands: Registry<CommandDefinition>;
  readonly compactions: Registry<CompactionStrategy>;
  /** The session engine; opens the session store on first use. */
  readonly sessions: SessionEngine;
  /** Runs a hook's taps in order on `output` under the hook's failure policy; resolves to `output`. */
  trigger<K extends HookName>(hook: K, input: HookInput<K>, output: HookOutput<K>): Promise<HookOutput<K>>;
  describe(): KernelDescription;
  /** Runs plugins' dispose functions, last set up first. */
  dispose(): Promise<void>;
}

/**
 * Starts a kernel: loads config (unless given), resolves, imports, validates and sets up plugins
 * in dependency-then-config order, then seals the registries. Load failures are collected in
 * `describe().errors` (or thrown under `strict`).
 */
export async function createKernel(options: KernelOptions): Promise<Kernel> {
  const env = options.env ?? process.env;
  const config = options.config ?? (await loadConfig({ cwd: options.directory, env }));
  const paths = tesseraPaths(env);
  const strict = options.strict ?? config.config.strict ?? false;
  const log = createLogger(options.log ?? stderrSink, "kernel", options.logLevel ?? config.config.log_level ?? "debug");
  const hookTimeoutMs = options.hookTimeoutMs ?? config.config.timeouts?.hook ?? DEFAULT_HOOK_TIMEOUT_MS;
  const setupTimeoutMs = options.setupTimeoutMs ?? config.config.timeouts?.setup ?? DEFAULT_SETUP_TIMEOUT_MS;

  let bus: Bus;
  const hooks = new HookHost({
    timeoutMs: hookTimeoutMs,
    onContainedError: (error) => reportTapError(error),
  });
  const reportTapError = (error: PluginError) => {
    log.warn(error.message, { plugin: error.plugin, hook: error.hook, code: error.code });
    // An error inside the `event` hook is not published again, or it would loop.
    if (error.hook !== "event") {
      bus.publish(PluginErrorEvent, { plugin: error.plugin, hook: error.hook, code: error.code, message: error.message });
    }
  };
  bus = new Bus({
    forward: (event) => void hooks.trigger("event", { event }, {}),
    onSubscriberError: (error, event) =>
      log.warn(`a subscriber of "${event.type}" threw: ${(error as Error)?.message ?? String(error)}`),
  });
  const registries: KernelRegistries = {
    tools: new Registry<ToolDefinition>("tool"),
    providers: new Registry<ProviderDefinition>("provider"),
    agents: new Registry<AgentDefinition>("agent"),
    commands: new Registry<CommandDefinition>("command"),
    compactions: new Registry<CompactionStrategy>("compaction strategy"),
  };

  // Agents from the kernel (built in), global and project `.tessera/agents/*.md`, and config come
  // first, so a plugin registering an agent of the same name fails loudly instead of shadowing it.
  const agents = await resolveAgents({ config: config.config, directory: config.directory, root: config.root, configDir: paths.config });
  for (const agent of agents.agents) registries.agents.register("kernel", agent);
  for (const error of agents.errors) log.error(`agent file ${error.file}: ${error.message}`);

  const requests: PluginRequest[] = [
    ...(options.plugins ?? []).map((p) =>
      "setup" in p
        ? { spec: p, source: "kernel options", key: "" }
        : { spec: [p.plugin, p.options ?? {}] as never, source: "kernel options", key: "" },
    ),
    ...config.plugins.map((p) => ({ spec: p.spec, source: p.source, key: p.key })),
    ...(options.discover === false
      ? []
      : [
          // Global plugins first, then each project folder from the repository root down, like config layers.
          ...discoverPlugins(join(paths.config, "plugins")),
          ...directoriesBetween(config.root, config.directory).flatMap((dir) =>
            discoverPlugins(join(dir, ".tessera", "plugins")),
          ),
        ]),
  ];
  const prepared = await preparePlugins(
    requests,
    { directory: config.directory, globalModules: globalModuleDirs(paths.config, env) },
    strict,
  );
  const errors: PluginLoadError[] = [...prepared.errors];
  const fail = (c: PluginCandidate, stage: LoadStage, message: string, cause?: unknown) => {
    const error = new PluginLoadError(c.name, stage, c.source, message, cause);
    if (strict) throw error;
    errors.push(error);
  };

  const disabled = new Set(config.config.disabled_plugins ?? []);
  const candidates = prepared.candidates.filter((c) => !disabled.has(c.name));
  const failedNames = new Map(errors.map((e) => [e.plugin, e.stage]));
  const { ordered, rejected } = orderByDependencies(candidates, (dep) => {
    if (disabled.has(dep)) return "which is disabled in config (disabled_plugins)";
    if (failedNames.has(dep)) return `which failed to load (stage ${failedNames.get(dep)})`;
    return "which is not listed in config";
  });
  for (const { node, reason } of rejected) fail(node, "validate", reason);

  const loaded: Array<{ candidate: PluginCandidate; hooks: HookName[]; dispose?: Dispose }> = [];
  const setUp = new Set<string>();
  for (const candidate of ordered) {
    const missing = candidate.dependencies.find((d) => !setUp.has(d));
    if (missing) {
      fail(candidate, "validate", `requires plugin "${missing}", which failed to set up`);
      continue;
    }
    const staged = new StagedContext(candidate, {
      kernelVersion: KERNEL_API_VERSION,
      directory: config.directory,
      root: config.root,
      config: config.config,
      configSources: config.sources,
      paths,
      env,
      log,
      bus,
      hooks,
      registries,
    });
    try {
      const dispose = await withTimeout(
        Promise.resolve().then(() => candidate.definition.setup(staged.context, candidate.options as never)),
        setupTimeoutMs,
        () => `setup did not finish within ${setupTimeoutMs} ms`,
      );
      staged.commit();
      setUp.add(candidate.name);
      loaded.push({ candidate, hooks: [...staged.hooksTapped], ...(typeof dispose === "function" ? { dispose } : {}) });
    } catch (error) {
      staged.discard();
      fail(candidate, "setup", (error as Error)?.message ?? String(error), error);
    }
  }

  for (const registry of Object.values(registries)) registry.seal();
  for (const error of errors) log.error(error.message, { plugin: error.plugin, stage: error.stage });

  const errorInfo = (): LoadErrorInfo[] =>
    errors.map((e) => ({ plugin: e.plugin, stage: e.stage, source: e.source, code: e.code, message: e.message }));
  const byConfigOrder = () => [...loaded].sort((a, b) => a.candidate.index - b.candidate.index);

  const trigger: Kernel["trigger"] = (hook, input, output) => hooks.trigger(hook, input, output);
  let engine: SessionEngine | undefined;
  const openEngine = () =>
    (engine ??= new SessionEngine({
      store: new SessionStore({ env, warn: (message) => log.warn(message), ...(options.storePath ? { path: options.storePath } : {}) }),
      bus,
      log,
      config,
      paths,
      ...registries,
      gate: new PermissionGate(trigger, bus),
      status: new StatusTracker(bus),
      now: Date.now,
      ...(options.flushIntervalMs !== undefined ? { flushIntervalMs: options.flushIntervalMs } : {}),
      ...(options.retryDelay ? { retryDelay: options.retryDelay } : {}),
      trigger,
    }));

  const kernel: Kernel = {
    version: KERNEL_API_VERSION,
    directory: config.directory,
    root: config.root,
    config,
    paths,
    hooks: hooks.table,
    bus,
    log,
    ...registries,
    trigger,
    get sessions() {
      return openEngine();
    },
    describe: () => ({
      kernel: KERNEL_API_VERSION,
      directory: config.directory,
      plugins: byConfigOrder().map(({ candidate: c, hooks: tapped }) => ({
        name: c.name,
        version: c.definition.version,
        source: c.source,
        spec: c.spec,
        ...(c.file ? { file: c.file } : {}),
        dependencies: c.dependencies,
        hooks: hookNames.filter((h) => tapped.includes(h)),
      })),
      hooks: Object.fromEntries(hookNames.map((h) => [h, hooks.taps(h)])) as Record<HookName, TapInfo[]>,
      registries: Object.fromEntries(
        Object.entries(registries).map(([kind, registry]: [string, Registry<{ id: string }>]) => [
          kind,
          registry.entriesWithOwner().map((e) => ({ id: e.value.id, plugin: e.plugin })),
        ]),
      ) as KernelDescription["registries"],
      errors: errorInfo(),
    }),
    dispose: async () => {
      await engine?.close();
      for (const { candidate, dispose } of loaded.splice(0).reverse()) {
        if (!dispose) continue;
        try {
          await withTimeout(Promise.resolve().then(dispose), setupTimeoutMs, () => `dispose did not finish within ${setupTimeoutMs} ms`);
        } catch (error) {
          log.warn(`plugin "${candidate.name}" failed to dispose: ${(error as Error)?.message ?? String(error)}`);
        }
      }
    },
  };
  bus.publish(KernelReadyEvent, { plugins: loaded.map((l) => l.candidate.name), errors: errors.length });
  return kernel;
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: () => string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(message())), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
