import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import {
  createKernel,
  definePlugin,
  defineTool,
  type Config,
  type Kernel,
  type KernelOptions,
  type LogRecord,
  type MessageError,
  type MessageWithParts,
  type PluginDefinition,
  type TextPart,
  type ToolPart,
} from "@tessera/kernel";
import { createProvidersPlugin } from "../src/index.js";

export interface TempProject {
  root: string;
  dir: string;
  env: NodeJS.ProcessEnv;
}

/** A temp project (with `.git`) and an isolated HOME, so nothing of the real user leaks in. */
export function tempProject(): TempProject {
  const root = mkdtempSync(join(tmpdir(), "tessera-providers-"));
  const dir = join(root, "project");
  mkdirSync(join(dir, ".git"), { recursive: true });
  const home = join(root, "home");
  mkdirSync(home);
  const env = { HOME: home, XDG_CONFIG_HOME: join(home, ".config"), XDG_DATA_HOME: join(home, ".local/share"), PATH: process.env.PATH };
  return { root, dir, env };
}

export const LOOKUP: Record<string, string> = { answer: "forty-two", colour: "blue" };

/** `lookup { key }` answers from LOOKUP and needs no permission. */
export const lookupPlugin = definePlugin({
  name: "test-lookup",
  version: "1.0.0",
  kernel: "^1.0.0",
  setup(ctx) {
    ctx.tools.register(
      defineTool({
        id: "lookup",
        description: "Look up a value by key",
        parameters: z.object({ key: z.string() }),
        permission: () => [],
        async execute({ key }) {
          const value = LOOKUP[key];
          if (value === undefined) throw new Error(`no value for "${key}"`);
          return { title: `lookup ${key}`, output: value };
        },
      }),
    );
  },
});

export interface TestKernel {
  kernel: Kernel;
  project: TempProject;
  logs: LogRecord[];
  /** Every error the engine decided to retry, in order. */
  retried: MessageError[];
  [Symbol.asyncDispose](): Promise<void>;
}

/** A kernel with the providers plugin (keys from `env` only), the lookup tool and any extra plugins. */
export async function testKernel(
  config: Config,
  options: {
    env?: NodeJS.ProcessEnv;
    plugins?: PluginDefinition[];
    project?: TempProject;
  } = {},
): Promise<TestKernel> {
  const project = options.project ?? tempProject();
  const logs: LogRecord[] = [];
  const retried: MessageError[] = [];
  const env = { ...project.env, ...options.env };
  const kernelOptions: KernelOptions = {
    directory: project.dir,
    config: { config, files: [], sources: {}, plugins: [], directory: project.dir, root: project.dir },
    plugins: [createProvidersPlugin({ env, demo: { wordDelayMs: 0 } }), lookupPlugin, ...(options.plugins ?? [])],
    discover: false,
    strict: true,
    env,
    storePath: ":memory:",
    flushIntervalMs: 5,
    retryDelay: (_attempt, error) => {
      retried.push(error);
      return 5;
    },
    log: (record) => logs.push(record),
  };
  const kernel = await createKernel(kernelOptions);
  return {
    kernel,
    project,
    logs,
    retried,
    async [Symbol.asyncDispose]() {
      await kernel.dispose();
      if (!options.project) rmSync(project.root, { recursive: true, force: true });
    },
  };
}

export const texts = (m: MessageWithParts | undefined) =>
  (m?.parts ?? []).filter((p): p is TextPart => p.type === "text").map((p) => p.text);

export const toolParts = (m: MessageWithParts | undefined): ToolPart[] =>
  (m?.parts ?? []).filter((p): p is ToolPart => p.type === "tool");

/** Runs one prompt in a fresh session (titled, so no title request reaches the server). */
export async function runPrompt(kernel: Kernel, text: string, model?: string) {
  const session = kernel.sessions.createSession({ title: "providers test" });
  await kernel.sessions.prompt({ sessionID: session.id, text, ...(model ? { model } : {}) });
  const messages = kernel.sessions.store.listMessages(session.id);
  return { session, messages, assistants: messages.filter((m) => m.info.role === "assistant") };
}
