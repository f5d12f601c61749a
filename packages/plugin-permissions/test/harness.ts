/**
 * A real kernel over a temp git project, driven by a scripted mock model (after the kernel's own
 * test harness), with fake tools that declare permissions exactly as @tessera/plugin-tools does.
 */
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import { z } from "zod";
import { createKernel, defineTool, definePlugin, type Kernel, type LogRecord, type PluginDefinition, type ToolPart } from "@tessera/kernel";

export type ScriptedStep = { text?: string; toolCalls?: Array<{ id?: string; name: string; input: unknown }> };

let callCounter = 0;

function streamParts(step: ScriptedStep): LanguageModelV4StreamPart[] {
  const parts: LanguageModelV4StreamPart[] = [{ type: "stream-start", warnings: [] }];
  if (step.text) {
    parts.push({ type: "text-start", id: "t1" });
    parts.push({ type: "text-delta", id: "t1", delta: step.text });
    parts.push({ type: "text-end", id: "t1" });
  }
  for (const call of step.toolCalls ?? []) {
    const id = call.id ?? `call_${++callCounter}`;
    const input = JSON.stringify(call.input);
    parts.push({ type: "tool-input-start", id, toolName: call.name });
    parts.push({ type: "tool-input-delta", id, delta: input });
    parts.push({ type: "tool-input-end", id });
    parts.push({ type: "tool-call", toolCallId: id, toolName: call.name, input });
  }
  parts.push({
    type: "finish",
    finishReason: { unified: step.toolCalls?.length ? "tool-calls" : "stop", raw: undefined },
    usage: {
      inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 5, text: 5, reasoning: 0 },
    },
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

export function mockProvider(model: MockLanguageModelV4): PluginDefinition {
  return definePlugin({
    name: "mock-provider",
    version: "1.0.0",
    kernel: "^1.0.0",
    setup(ctx) {
      ctx.providers.register({ id: "mock", languageModel: () => model, model: (id) => ({ id, limit: { context: 100_000, output: 4_000 } }) });
    },
  });
}

/**
 * Fake file and shell tools with the permission contracts of @tessera/plugin-tools. They never
 * touch the disk or run anything: each run is recorded in `ran` as "tool:arg".
 */
export function fakeTools(ran: string[]): PluginDefinition {
  const fileTool = (id: string, permission: "read" | "edit") =>
    defineTool({
      id,
      description: `${id} a file`,
      parameters: z.object({ filePath: z.string() }),
      permission: (args, { directory }) => {
        const filepath = args.filePath.startsWith("/") ? args.filePath : join(directory, args.filePath);
        return [{ permission, patterns: [relative(directory, filepath).split("\\").join("/")], metadata: { filepath } }];
      },
      async execute(args) {
        ran.push(`${id}:${args.filePath}`);
        return { title: id, output: "ok" };
      },
    });
  return definePlugin({
    name: "fake-tools",
    version: "1.0.0",
    kernel: "^1.0.0",
    setup(ctx) {
      ctx.tools.register(fileTool("read", "read"));
      ctx.tools.register(fileTool("write", "edit"));
      ctx.tools.register(
        defineTool({
          id: "bash",
          description: "run a command",
          parameters: z.object({ command: z.string() }),
          permission: (args, { directory }) => [{ permission: "bash", patterns: [args.command], metadata: { command: args.command, cwd: directory } }],
          async execute(args) {
            ran.push(`bash:${args.command}`);
            return { title: "bash", output: "ok" };
          },
        }),
      );
      // A tool that declares nothing (like an MCP tool): the kernel asks for its id with "*".
      ctx.tools.register(
        defineTool({
          id: "mcp_deploy",
          description: "deploy",
          parameters: z.object({}),
          async execute() {
            ran.push("mcp_deploy");
            return { title: "deploy", output: "ok" };
          },
        }),
      );
    },
  });
}

export type PluginEntry = PluginDefinition | { plugin: PluginDefinition; options?: Record<string, unknown> };

export interface Workspace {
  root: string;
  dir: string;
  home: string;
  env: NodeJS.ProcessEnv;
}

/** A temp root with a git project (`project/`) and a home directory. */
export function workspace(): Workspace {
  const root = mkdtempSync(join(tmpdir(), "tessera-perm-"));
  const dir = join(root, "project");
  mkdirSync(join(dir, ".git"), { recursive: true });
  const home = join(root, "home");
  mkdirSync(home);
  const env = { HOME: home, XDG_CONFIG_HOME: join(home, ".config"), XDG_DATA_HOME: join(home, ".local/share"), PATH: process.env.PATH };
  return { root, dir, home, env };
}

export async function testKernel(
  ws: Workspace,
  plugins: PluginEntry[],
  options: { config?: Record<string, unknown>; sources?: Record<string, string> } = {},
): Promise<{ kernel: Kernel; logs: LogRecord[] }> {
  const logs: LogRecord[] = [];
  const kernel = await createKernel({
    directory: ws.dir,
    config: {
      config: { model: "mock/mock-model", ...options.config },
      files: [],
      sources: options.sources ?? {},
      plugins: [],
      directory: ws.dir,
      root: ws.dir,
    },
    plugins,
    discover: false,
    strict: true,
    env: ws.env,
    storePath: ":memory:",
    flushIntervalMs: 5,
    log: (record) => logs.push(record),
  });
  return { kernel, logs };
}

export function recordEvents(kernel: Kernel) {
  const events: Array<{ type: string; properties: any }> = [];
  const stop = kernel.bus.subscribeAll((event) => events.push(event as { type: string; properties: any }));
  return { events, stop, of: (type: string): any[] => events.filter((e) => e.type === type).map((e) => e.properties) };
}

export const toolParts = (kernel: Kernel, sessionID: string) =>
  kernel.sessions.store
    .listMessages(sessionID)
    .flatMap((m) => m.parts)
    .filter((p): p is ToolPart => p.type === "tool");

export const stateOf = (kernel: Kernel, sessionID: string, callID: string) => toolParts(kernel, sessionID).find((p) => p.callID === callID)?.state;

export const errorOf = (kernel: Kernel, sessionID: string, callID: string) => {
  const state = stateOf(kernel, sessionID, callID);
  return state?.status === "error" ? state.error : undefined;
};
