// A trimmed copy of the kernel's engine test harness (packages/kernel/test/engine/harness.ts):
// a scripted mock model from `ai/test`, a provider plugin serving it, and a kernel over a temp project.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import { createKernel, definePlugin, type Kernel, type LogRecord, type PluginDefinition, type ToolPart } from "@tessera/kernel";
import { tempDir } from "./helpers.js";

export interface ScriptedStep {
  text?: string;
  toolCalls?: Array<{ id?: string; name: string; input: unknown }>;
}

let callCounter = 0;

function streamParts(step: ScriptedStep): LanguageModelV4StreamPart[] {
  const parts: LanguageModelV4StreamPart[] = [{ type: "stream-start", warnings: [] }];
  if (step.text) {
    parts.push({ type: "text-start", id: "t1" }, { type: "text-delta", id: "t1", delta: step.text }, { type: "text-end", id: "t1" });
  }
  for (const call of step.toolCalls ?? []) {
    const id = call.id ?? `call_${++callCounter}`;
    const input = JSON.stringify(call.input);
    parts.push({ type: "tool-input-start", id, toolName: call.name }, { type: "tool-input-delta", id, delta: input }, { type: "tool-input-end", id });
    parts.push({ type: "tool-call", toolCallId: id, toolName: call.name, input });
  }
  parts.push({
    type: "finish",
    finishReason: { unified: step.toolCalls?.length ? "tool-calls" : "stop", raw: undefined },
    usage: { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } },
  });
  return parts;
}

/** A mock model that plays `script`, one step per call. */
export function scriptedModel(script: ScriptedStep[]) {
  const queue = [...script];
  return new MockLanguageModelV4({
    provider: "mock",
    modelId: "mock-model",
    doStream: async () => {
      const step = queue.shift();
      if (!step) throw new Error("the scripted model has no step left");
      return { stream: convertArrayToReadableStream(streamParts(step)) };
    },
  });
}

function mockProvider(model: MockLanguageModelV4): PluginDefinition {
  return definePlugin({
    name: "mock-provider",
    version: "1.0.0",
    kernel: "^1.0.0",
    setup(ctx) {
      ctx.providers.register({ id: "mock", languageModel: () => model, model: (id) => ({ id, limit: { context: 100_000, output: 4_000 } }) });
    },
  });
}

export interface TestKernel {
  kernel: Kernel;
  dir: string;
  home: string;
  logs: LogRecord[];
}

/** A kernel over a temp git project with an in-memory store, the mock provider and the given plugins. */
export async function testKernel(model: MockLanguageModelV4, plugins: Array<PluginDefinition | { plugin: PluginDefinition; options?: Record<string, unknown> }>): Promise<TestKernel> {
  const root = tempDir("tessera-tools-kernel-");
  const dir = join(root, "project");
  mkdirSync(join(dir, ".git"), { recursive: true });
  const home = join(root, "home");
  mkdirSync(home);
  const logs: LogRecord[] = [];
  const kernel = await createKernel({
    directory: dir,
    config: { config: { model: "mock/mock-model" }, files: [], sources: {}, plugins: [], directory: dir, root: dir },
    plugins: [mockProvider(model), ...plugins],
    discover: false,
    env: { HOME: home, XDG_CONFIG_HOME: join(home, ".config"), XDG_DATA_HOME: join(home, ".local/share"), XDG_STATE_HOME: join(home, ".local/state"), PATH: process.env.PATH },
    storePath: ":memory:",
    flushIntervalMs: 5,
    retryDelay: () => 5,
    log: (record) => logs.push(record),
  });
  return { kernel, dir, home, logs };
}

export function toolParts(kernel: Kernel, sessionID: string): ToolPart[] {
  return kernel.sessions.store
    .listMessages(sessionID)
    .flatMap((m) => m.parts)
    .filter((p): p is ToolPart => p.type === "tool");
}
