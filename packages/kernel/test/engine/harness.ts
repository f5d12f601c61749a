import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import { createKernel, definePlugin, type Kernel, type LogRecord, type PluginDefinition } from "@tessera/kernel";

/** One scripted model step: what the mock model streams when called. */
export type ScriptedStep =
  | {
      text?: string;
      reasoning?: string;
      toolCalls?: Array<{ id?: string; name: string; input: unknown }>;
      finish?: "stop" | "tool-calls" | "length";
      usage?: { input?: number; output?: number; reasoning?: number; cacheRead?: number; cacheWrite?: number };
    }
  | { error: unknown }
  | ((call: { prompt: unknown; abortSignal?: AbortSignal }) => ReadableStream<LanguageModelV4StreamPart> | Promise<ReadableStream<LanguageModelV4StreamPart>>);

let callCounter = 0;

export function streamParts(step: Exclude<ScriptedStep, { error: unknown } | ((...args: never[]) => unknown)>): LanguageModelV4StreamPart[] {
  const parts: LanguageModelV4StreamPart[] = [{ type: "stream-start", warnings: [] }];
  if (step.reasoning) {
    parts.push({ type: "reasoning-start", id: "r1" });
    for (const chunk of chunks(step.reasoning)) parts.push({ type: "reasoning-delta", id: "r1", delta: chunk });
    parts.push({ type: "reasoning-end", id: "r1" });
  }
  if (step.text) {
    parts.push({ type: "text-start", id: "t1" });
    for (const chunk of chunks(step.text)) parts.push({ type: "text-delta", id: "t1", delta: chunk });
    parts.push({ type: "text-end", id: "t1" });
  }
  for (const call of step.toolCalls ?? []) {
    const id = call.id ?? `call_${++callCounter}`;
    const input = typeof call.input === "string" ? call.input : JSON.stringify(call.input);
    parts.push({ type: "tool-input-start", id, toolName: call.name });
    parts.push({ type: "tool-input-delta", id, delta: input });
    parts.push({ type: "tool-input-end", id });
    parts.push({ type: "tool-call", toolCallId: id, toolName: call.name, input });
  }
  const u = step.usage ?? {};
  parts.push({
    type: "finish",
    finishReason: { unified: step.finish ?? (step.toolCalls?.length ? "tool-calls" : "stop"), raw: undefined },
    usage: {
      inputTokens: { total: (u.input ?? 10) + (u.cacheRead ?? 0) + (u.cacheWrite ?? 0), noCache: u.input ?? 10, cacheRead: u.cacheRead ?? 0, cacheWrite: u.cacheWrite ?? 0 },
      outputTokens: { total: (u.output ?? 5) + (u.reasoning ?? 0), text: u.output ?? 5, reasoning: u.reasoning ?? 0 },
    },
  });
  return parts;
}

function chunks(text: string): string[] {
  return text.match(/.{1,4}/gs) ?? [];
}

/** A mock language model that plays `script`, one step per call, and records each call's prompt. */
export function scriptedModel(script: ScriptedStep[]) {
  const queue = [...script];
  const model = new MockLanguageModelV4({
    provider: "mock",
    modelId: "mock-model",
    doStream: async (options) => {
      const step = queue.shift();
      if (!step) throw new Error("the scripted model has no step left");
      if (typeof step === "function") return { stream: await step({ prompt: options.prompt, abortSignal: options.abortSignal }) };
      if ("error" in step) throw step.error;
      return { stream: convertArrayToReadableStream(streamParts(step)) };
    },
  });
  return { model, remaining: () => queue.length };
}

/** A provider plugin serving one mock model as `mock/mock-model`. */
export function mockProvider(model: MockLanguageModelV4, info?: Record<string, unknown>): PluginDefinition {
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

/** A raw model stream: `stream-start`, then `parts` as given. */
export function rawStream(parts: LanguageModelV4StreamPart[]): ReadableStream<LanguageModelV4StreamPart> {
  return convertArrayToReadableStream<LanguageModelV4StreamPart>([{ type: "stream-start", warnings: [] }, ...parts]);
}

/** A `finish` stream part with the given usage (the same defaults as scripted steps). */
export function finishPart(
  reason: "stop" | "tool-calls" | "length" | "error" = "stop",
  u: { input?: number; output?: number; reasoning?: number; cacheRead?: number; cacheWrite?: number } = {},
): LanguageModelV4StreamPart {
  return {
    type: "finish",
    finishReason: { unified: reason, raw: undefined },
    usage: {
      inputTokens: { total: (u.input ?? 10) + (u.cacheRead ?? 0) + (u.cacheWrite ?? 0), noCache: u.input ?? 10, cacheRead: u.cacheRead ?? 0, cacheWrite: u.cacheWrite ?? 0 },
      outputTokens: { total: (u.output ?? 5) + (u.reasoning ?? 0), text: u.output ?? 5, reasoning: u.reasoning ?? 0 },
    },
  };
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
