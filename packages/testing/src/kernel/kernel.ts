import { createKernel, definePlugin, type Config, type Kernel, type KernelLanguageModel, type KernelOptions, type LogRecord, type MessageError, type PluginDefinition } from "@tessera/kernel";
import type { ScriptedModel } from "./model.js";
import { tempProject, type TempProject } from "./project.js";
import { mockProvider } from "./provider.js";

/** A plugin, or a plugin with its options (as in `KernelOptions.plugins`). */
export type PluginEntry = PluginDefinition | { plugin: PluginDefinition; options?: Record<string, unknown> };

export interface TestKernelOptions {
  /**
   * A model to serve as `mock/mock-model`: `mockProvider(model)` is put before `plugins`. Takes a
   * `scriptedModel(...)` result or any language model.
   */
  model?: KernelLanguageModel | ScriptedModel;
  /** Config merged over `{ model: defaultModel }`. */
  config?: Partial<Config> | Record<string, unknown>;
  /** The model the config names unless `config.model` does (default `"mock/mock-model"`); `null` names none. */
  defaultModel?: string | null;
  /** Config key path → file (what the kernel hands plugins as `ctx.configSources`). */
  sources?: Record<string, string>;
  /** The project to run in (default: a fresh `tempProject()`, removed on dispose). */
  project?: TempProject;
  /** Extra environment, over the project's isolated one. */
  env?: NodeJS.ProcessEnv;
  /** Prepares the project directory before the kernel starts (agent files, AGENTS.md …). */
  setup?: (dir: string) => void;
  /** Default `":memory:"`. */
  storePath?: string;
  /** Throw on the first plugin that fails to load (the kernel's default otherwise: false). */
  strict?: boolean;
  /**
   * Delay before the engine retries a failed model call (default `5 × attempt` ms). `null` uses
   * the kernel's real backoff (which honours `retry-after`). Every retried error is recorded in
   * `retried` either way.
   */
  retryDelay?: KernelOptions["retryDelay"] | null;
  /** Default 5 ms, so stored parts are visible almost at once. */
  flushIntervalMs?: number;
}

export interface TestKernel extends AsyncDisposable {
  kernel: Kernel;
  project: TempProject;
  /** The project directory (`project.dir`). */
  dir: string;
  /** The temp root (`project.root`). */
  root: string;
  /** The isolated home (`project.home`). */
  home: string;
  /** The kernel's environment. */
  env: NodeJS.ProcessEnv;
  /** Every log record, in order. */
  logs: LogRecord[];
  /** Every error the engine decided to retry, in order (not with `retryDelay: null`). */
  retried: MessageError[];
}

/**
 * An in-process kernel over a temp git project with an isolated HOME/XDG environment, an
 * in-memory store, a short flush interval and retry delay, and captured logs. No discovery: only
 * `plugins` (and the mock provider, given `model`) are loaded. `await using` disposes the kernel and
 * removes the temp project it made.
 */
export async function testKernel(plugins: readonly PluginEntry[], options: TestKernelOptions = {}): Promise<TestKernel> {
  const project = options.project ?? tempProject();
  options.setup?.(project.dir);
  const logs: LogRecord[] = [];
  const retried: MessageError[] = [];
  const env = { ...project.env, ...options.env };
  const defaultModel = options.defaultModel === undefined ? "mock/mock-model" : options.defaultModel;
  const model = options.model && "remaining" in options.model ? options.model.model : options.model;
  const retryDelay = options.retryDelay === null ? undefined : (options.retryDelay ?? ((attempt: number) => 5 * attempt));
  const kernel = await createKernel({
    directory: project.dir,
    config: {
      config: { ...(defaultModel !== null ? { model: defaultModel } : {}), ...options.config },
      files: [],
      sources: options.sources ?? {},
      plugins: [],
      directory: project.dir,
      root: project.dir,
    },
    plugins: [...(model ? [mockProvider(model)] : []), ...plugins],
    discover: false,
    ...(options.strict !== undefined ? { strict: options.strict } : {}),
    env,
    storePath: options.storePath ?? ":memory:",
    flushIntervalMs: options.flushIntervalMs ?? 5,
    ...(options.retryDelay === null
      ? {}
      : {
          retryDelay: (attempt: number, error: MessageError) => {
            retried.push(error);
            return retryDelay!(attempt, error);
          },
        }),
    log: (record) => logs.push(record),
  });
  return {
    kernel,
    project,
    dir: project.dir,
    root: project.root,
    home: project.home,
    env,
    logs,
    retried,
    async [Symbol.asyncDispose]() {
      await kernel.dispose();
      if (!options.project) project.remove();
    },
  };
}

/** A plugin named `name` whose setup is `setup` (version 1.0.0, kernel ^1.0.0). */
export function testPlugin(name: string, setup: PluginDefinition["setup"]): PluginDefinition {
  return definePlugin({ name, version: "1.0.0", kernel: "^1.0.0", setup });
}
