import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { ScriptedServer } from "@tessera/testing";
import { z } from "zod";
import {
  createKernel,
  definePlugin,
  defineTool,
  type Kernel,
  type KernelOptions,
  type LogRecord,
  type MessageWithParts,
  type Part,
  type PluginDefinition,
  type ToolPart,
} from "@tessera/kernel";

export const MODEL_INFO = { limit: { context: 100_000, output: 4_000 }, cost: { input: 1, output: 2 } };

/** The agent's real provider path: `@ai-sdk/openai-compatible` pointed at the scripted server, as "mock/<id>". */
export function httpProvider(server: ScriptedServer): PluginDefinition {
  const provider = createOpenAICompatible({ name: "mock", baseURL: server.url, apiKey: "test-key", includeUsage: true });
  return definePlugin({
    name: "http-mock-provider",
    version: "1.0.0",
    kernel: "^1.0.0",
    setup(ctx) {
      ctx.providers.register({
        id: "mock",
        languageModel: (id) => provider.chatModel(id),
        model: (id) => ({ id, ...MODEL_INFO }),
      });
    },
  });
}

export const NOTES: Record<string, string> = { todo: "buy milk; call Ada", ideas: "a plugin-first kernel" };

/** `read_note { name }` answers from NOTES; `wait_forever` only ends when the step is aborted. */
export const notesPlugin = definePlugin({
  name: "notes",
  version: "1.0.0",
  kernel: "^1.0.0",
  setup(ctx) {
    ctx.tools.register(
      defineTool({
        id: "read_note",
        description: "Read a note by name",
        parameters: z.object({ name: z.string() }),
        permission: () => [],
        async execute({ name }) {
          const note = NOTES[name];
          if (note === undefined) throw new Error(`no note "${name}"`);
          return { title: `note ${name}`, output: note };
        },
      }),
    );
    ctx.tools.register(
      defineTool({
        id: "wait_forever",
        description: "Waits until aborted",
        parameters: z.object({}),
        permission: () => [],
        execute: (_args, tool) =>
          new Promise((_resolve, reject) => {
            tool.abort.addEventListener("abort", () => reject(tool.abort.reason), { once: true });
          }),
      }),
    );
  },
});

export interface E2EKernel {
  kernel: Kernel;
  root: string;
  dir: string;
  env: NodeJS.ProcessEnv;
  logs: LogRecord[];
  [Symbol.asyncDispose](): Promise<void>;
}

/** A temp project (with `.git`) and an isolated HOME, so nothing of the real user leaks in. */
export function tempProject(): { root: string; dir: string; env: NodeJS.ProcessEnv } {
  const root = mkdtempSync(join(tmpdir(), "tessera-e2e-"));
  const dir = join(root, "project");
  mkdirSync(join(dir, ".git"), { recursive: true });
  const home = join(root, "home");
  mkdirSync(home);
  const env = { HOME: home, XDG_CONFIG_HOME: join(home, ".config"), XDG_DATA_HOME: join(home, ".local/share"), PATH: process.env.PATH };
  return { root, dir, env };
}

export function kernelConfig(dir: string): NonNullable<KernelOptions["config"]> {
  return { config: { model: "mock/scripted-model" }, files: [], sources: {}, plugins: [], directory: dir, root: dir };
}

/**
 * A kernel with the HTTP provider and the notes tools. Without `retryDelay` the kernel's real
 * backoff (honouring `retry-after`) is used.
 */
export async function e2eKernel(
  server: ScriptedServer,
  options: { storePath?: string; retryDelay?: KernelOptions["retryDelay"]; project?: ReturnType<typeof tempProject> } = {},
): Promise<E2EKernel> {
  const project = options.project ?? tempProject();
  const logs: LogRecord[] = [];
  const kernel = await createKernel({
    directory: project.dir,
    config: kernelConfig(project.dir),
    plugins: [httpProvider(server), notesPlugin],
    discover: false,
    env: project.env,
    storePath: options.storePath ?? ":memory:",
    flushIntervalMs: 5,
    ...(options.retryDelay ? { retryDelay: options.retryDelay } : {}),
    log: (record) => logs.push(record),
  });
  return {
    kernel,
    ...project,
    logs,
    async [Symbol.asyncDispose]() {
      await kernel.dispose();
      if (!options.project) rmSync(project.root, { recursive: true, force: true });
    },
  };
}

export const toolParts = (m: MessageWithParts | undefined): ToolPart[] =>
  (m?.parts ?? []).filter((p): p is ToolPart => p.type === "tool");

export const allParts = (messages: readonly MessageWithParts[]): Part[] => messages.flatMap((m) => m.parts);

/** True when some tool part was left pending or running. */
export const hasUnfinishedTool = (messages: readonly MessageWithParts[]) =>
  allParts(messages).some((p) => p.type === "tool" && (p.state.status === "pending" || p.state.status === "running"));

/** Resolves when `predicate` holds, polling every few ms; rejects after `timeoutMs`. */
export async function waitFor(predicate: () => boolean, timeoutMs = 5_000, what = "condition"): Promise<void> {
  const start = performance.now();
  while (!predicate()) {
    if (performance.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}
