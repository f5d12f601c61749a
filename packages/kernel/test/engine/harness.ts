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
  options: { config?: Record<string, unknown>; storePath?: string } = {},
): Promise<TestKernel> {
  const root = mkdtempSync(join(tmpdir(), "tessera-engine-"));
  const dir = join(root, "project");
  mkdirSync(join(dir, ".git"), { recursive: true });
  const home = join(root, "home");
  mkdirSync(home);
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
