import { z } from "zod";
import { definePlugin, defineTool, type Config, type Kernel, type MessageWithParts, type PluginDefinition, type TextPart, type ToolPart } from "@tessera/kernel";
import { tempProject as makeTempProject, testKernel as makeTestKernel, type TempProject, type TestKernel } from "@tessera/testing";
import { createProvidersPlugin } from "../src/index.js";

export type { TempProject, TestKernel };

/** A temp project (with `.git`) and an isolated HOME, so nothing of the real user leaks in. */
export const tempProject = (): TempProject => makeTempProject({ prefix: "tessera-providers-" });

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

/**
 * A kernel (@tessera/testing) with the providers plugin (keys from `env` only), the lookup tool and
 * any extra plugins; `config` is the whole config (no default model).
 */
export function testKernel(
  config: Config,
  options: {
    env?: NodeJS.ProcessEnv;
    plugins?: PluginDefinition[];
    project?: TempProject;
  } = {},
): Promise<TestKernel> {
  const project = options.project ?? tempProject();
  const env = { ...project.env, ...options.env };
  return makeTestKernel([createProvidersPlugin({ env, demo: { wordDelayMs: 0 } }), lookupPlugin, ...(options.plugins ?? [])], {
    config,
    defaultModel: null,
    ...(options.project ? { project: options.project } : {}),
    ...(options.env ? { env: options.env } : {}),
    strict: true,
    retryDelay: () => 5,
  });
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
