import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { createKernel, definePlugin, type Kernel, type LogRecord, type PluginDefinition } from "@tessera/kernel";

import { scriptedModel, type ScriptedStep } from "@tessera/testing";

// The scripted model and the mock provider are the plugin authors' kit, shared with this suite.
export { finishPart, mockProvider, rawStream, scriptedModel, streamParts, type ScriptedStep } from "@tessera/testing";

export interface TestKernel {
  kernel: Kernel;
  dir: string;
  logs: LogRecord[];
}

/** A kernel over a temp git project with an in-memory store, the given plugins, and model "mock/mock-model". */
export async function testKernel(
  plugins: PluginDefinition[],
  options: { config?: Record<string, unknown>; storePath?: string; /** Prepares the project directory before the kernel starts (agent files, AGENTS.md …). */ setup?: (dir: string) => void } = {},
): Promise<TestKernel> {
  const root = mkdtempSync(join(tmpdir(), "tessera-engine-"));
  const dir = join(root, "project");
  mkdirSync(join(dir, ".git"), { recursive: true });
  const home = join(root, "home");
  mkdirSync(home);
  options.setup?.(dir);
  const logs: LogRecord[] = [];
  const env = { HOME: home, XDG_CONFIG_HOME: join(home, ".config"), XDG_DATA_HOME: join(home, ".local/share"), PATH: process.env.PATH };
  const kernel = await createKernel({
    directory: dir,
    config: {
      config: { model: "mock/mock-model", ...options.config },
      files: [],
      sources: {},
      plugins: [],
      directory: dir,
      root: dir,
    },
    plugins,
    discover: false,
    env,
    storePath: options.storePath ?? ":memory:",
    flushIntervalMs: 5,
    retryDelay: (attempt) => 5 * attempt,
    log: (record) => logs.push(record),
  });
  return { kernel, dir, logs };
}

/** A plugin named `name` whose setup is `setup` (version 1.0.0, kernel ^1.0.0). */
export function testPlugin(name: string, setup: PluginDefinition["setup"]): PluginDefinition {
  return definePlugin({ name, version: "1.0.0", kernel: "^1.0.0", setup });
}

/** Records every bus event of `kernel`, in order; `of(type)` lists the properties of one type. */
export function recordEvents(kernel: Kernel) {
  const events: Array<{ type: string; properties: any }> = [];
  const stop = kernel.bus.subscribeAll((event) => events.push(event as { type: string; properties: any }));
  return { events, stop, of: (type: string): any[] => events.filter((e) => e.type === type).map((e) => e.properties) };
}

/** A promise opened by hand: `await g.promise` waits until `g.open()`. */
export function gate<T = void>() {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}

/** Polls `condition` every 2 ms until it holds; fails with `what` after `timeoutMs`. */
export async function waitFor(condition: () => unknown, what = "the condition", timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/**
 * `scriptedModel` plus what engine tests need to watch: the most streams that were open at once
 * (`maxConcurrent`), and `doGenerate` (titles) answered by `generate` — a text, or a function
 * that may be slow or throw. Without `generate`, `doGenerate` fails like the bare mock.
 */
export function instrumentedModel(
  script: ScriptedStep[],
  options: { generate?: string | ((call: { prompt: unknown; abortSignal?: AbortSignal }) => string | Promise<string>) } = {},
) {
  const { model, remaining } = scriptedModel(script);
  let open = 0;
  let maxConcurrent = 0;
  const streamOf = model.doStream.bind(model);
  model.doStream = async (call) => {
    open++;
    maxConcurrent = Math.max(maxConcurrent, open);
    let closed = false;
    const close = () => {
      if (!closed) open--;
      closed = true;
    };
    let result;
    try {
      result = await streamOf(call);
    } catch (error) {
      close();
      throw error;
    }
    const reader = result.stream.getReader();
    const stream = new ReadableStream<LanguageModelV4StreamPart>({
      async pull(controller) {
        try {
          const next = await reader.read();
          if (next.done) {
            close();
            controller.close();
          } else controller.enqueue(next.value);
        } catch (error) {
          close();
          controller.error(error);
        }
      },
      cancel(reason) {
        close();
        return reader.cancel(reason);
      },
    });
    return { ...result, stream };
  };
  const generate = options.generate;
  if (generate !== undefined) {
    model.doGenerate = async (call) => {
      model.doGenerateCalls.push(call);
      const text = typeof generate === "string" ? generate : await generate({ prompt: call.prompt, ...(call.abortSignal ? { abortSignal: call.abortSignal } : {}) });
      return {
        content: [{ type: "text", text }],
        finishReason: { unified: "stop", raw: undefined },
        usage: {
          inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 3, text: 3, reasoning: 0 },
        },
        warnings: [],
      };
    };
  }
  return { model, remaining, maxConcurrent: () => maxConcurrent, openStreams: () => open };
}
