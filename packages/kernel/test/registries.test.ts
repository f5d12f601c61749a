/** Rule 5: registries — contributions with owners, duplicates refused, sealed once the kernel is ready. */
import { describe, expect, test } from "vitest";
import { z } from "zod";
import {
  defineTool,
  ErrorCodes,
  TesseraError,
  type AgentDefinition,
  type CommandDefinition,
  type CompactionStrategy,
  BUILTIN_AGENTS,
  type KernelRegistries,
  type PluginContext,
  type ProviderDefinition,
  type ToolDefinition,
} from "@tessera/kernel";
import { kernelWith, plugin } from "./helpers.js";

const tool = (id: string): ToolDefinition =>
  defineTool({
    id,
    description: `the ${id} tool`,
    parameters: z.object({ path: z.string() }),
    execute: async (args) => ({ title: id, output: args.path }),
  });
const provider = (id: string): ProviderDefinition => ({
  id,
  languageModel: () => {
    throw new Error("not in tests");
  },
});
const agent = (id: string): AgentDefinition => ({ id, mode: "primary" });
const command = (id: string): CommandDefinition => ({ id, description: `/${id}`, template: "do $ARGUMENTS" });

type Kind = keyof KernelRegistries;
const compaction = (id: string): CompactionStrategy => ({ id, compact: async () => "continue" });
const makers = { tools: tool, providers: provider, agents: agent, commands: command, compactions: compaction } as const;
const KINDS = Object.keys(makers) as Kind[];
const register = (ctx: PluginContext, kind: Kind, id: string) => ctx[kind].register(makers[kind](id) as never);

describe("registering", () => {
  test("plugins register tools, providers, agents and commands; the kernel lists them with their owner", async () => {
    const { kernel } = await kernelWith([
      plugin("builtin", (ctx) => {
        ctx.tools.register(tool("read"));
        ctx.providers.register(provider("acme"));
        ctx.agents.register(agent("reviewer"));
      }),
      plugin("extras", (ctx) => {
        ctx.tools.register(tool("grep"));
        ctx.commands.register(command("review"));
      }),
    ]);
    expect(kernel.tools.get("read")?.description).toBe("the read tool");
    expect(kernel.tools.list().map((t) => t.id)).toEqual(["read", "grep"]);
    expect(kernel.tools.owner("grep")).toBe("extras");
    expect(kernel.providers.owner("acme")).toBe("builtin");
    expect(kernel.agents.get("reviewer")).toEqual({ id: "reviewer", mode: "primary" });
    expect(kernel.commands.owner("review")).toBe("extras");
    expect(kernel.describe().registries).toEqual({
      tools: [
        { id: "read", plugin: "builtin" },
        { id: "grep", plugin: "extras" },
      ],
      providers: [{ id: "acme", plugin: "builtin" }],
      agents: [...BUILTIN_AGENTS.map((a) => ({ id: a.id, plugin: "kernel" })), { id: "reviewer", plugin: "builtin" }],
      commands: [{ id: "review", plugin: "extras" }],
      compactions: [],
    });
  });

  test("a plugin sees what its dependencies registered during its own setup", async () => {
    let seen: string[] = [];
    await kernelWith([
      plugin(
        "consumer",
        (ctx) => {
          seen = ctx.tools.list().map((t) => t.id);
        },
        { dependencies: ["producer"] },
      ),
      plugin("producer", (ctx) => ctx.tools.register(tool("read"))),
    ]);
    expect(seen).toEqual(["read"]);
  });

  test("a registration without an id fails the plugin's setup", async () => {
    const { kernel } = await kernelWith([plugin("anonymous", (ctx) => ctx.tools.register({ ...tool("x"), id: "" }))]);
    expect(kernel.describe().errors[0]).toMatchObject({ plugin: "anonymous", stage: "setup" });
    expect(kernel.tools.list()).toEqual([]);
  });
});

describe("duplicate ids", () => {
  test.each(KINDS)("registering a taken %s id throws REGISTRY_DUPLICATE naming both plugins", async (kind) => {
    let thrown: unknown;
    await kernelWith([
      plugin("first", (ctx) => register(ctx, kind, "same")),
      plugin("second", (ctx) => {
        try {
          register(ctx, kind, "same");
        } catch (error) {
          thrown = error;
          throw error;
        }
      }),
    ]);
    expect(TesseraError.isInstance(thrown)).toBe(true);
    expect(thrown).toMatchObject({ code: ErrorCodes.REGISTRY_DUPLICATE });
    expect((thrown as Error).message).toContain('"first"');
    expect((thrown as Error).message).toContain('"second"');
    expect((thrown as Error).message).toContain('"same"');
  });

  test.each(KINDS)("the second plugin's setup fails on a duplicate %s, leaving nothing of it registered or tapped", async (kind) => {
    const { kernel } = await kernelWith([
      plugin("first", (ctx) => register(ctx, kind, "same")),
      plugin("second", (ctx) => {
        ctx.tap("chat.system", (_i, o) => void o.system.push("second"));
        for (const other of KINDS) register(ctx, other, "second-only");
        register(ctx, kind, "same");
      }),
    ]);
    expect(kernel.describe().plugins.map((p) => p.name)).toEqual(["first"]);
    const [error] = kernel.describe().errors;
    expect(error).toMatchObject({ plugin: "second", stage: "setup", code: ErrorCodes.PLUGIN_SETUP });
    expect(error?.message).toContain('"first"');
    expect(kernel[kind].owner("same")).toBe("first");
    for (const other of KINDS) expect(kernel[other].has("second-only"), other).toBe(false);
    expect(kernel.describe().hooks["chat.system"]).toEqual([]);
  });

  test("one plugin registering the same id twice fails its setup", async () => {
    const { kernel } = await kernelWith([
      plugin("twice", (ctx) => {
        ctx.tools.register(tool("read"));
        ctx.tools.register(tool("read"));
      }),
    ]);
    expect(kernel.describe().errors[0]).toMatchObject({ plugin: "twice", stage: "setup" });
    expect(kernel.describe().errors[0]?.message).toMatch(/tool "read" is registered by both/);
    expect(kernel.tools.has("read")).toBe(false);
  });

  test("the same id in different registries is not a duplicate", async () => {
    const { kernel } = await kernelWith([
      plugin("reviewer", (ctx) => {
        ctx.agents.register(agent("review"));
        ctx.commands.register(command("review"));
      }),
    ]);
    expect(kernel.describe().errors).toEqual([]);
    expect(kernel.agents.has("review") && kernel.commands.has("review")).toBe(true);
  });
});

describe("after setup", () => {
  async function keptContext() {
    let kept: PluginContext | undefined;
    const { kernel } = await kernelWith([plugin("late", (ctx) => void (kept = ctx))]);
    return { kernel, ctx: kept! };
  }

  test.each(KINDS)("registering a %s through a plugin's context throws KERNEL_SEALED", async (kind) => {
    const { kernel, ctx } = await keptContext();
    expect(() => register(ctx, kind, "late-entry")).toThrow(expect.objectContaining({ code: ErrorCodes.KERNEL_SEALED }));
    expect(kernel[kind].has("late-entry")).toBe(false);
  });

  test("tapping through a plugin's context throws KERNEL_SEALED and adds no tap", async () => {
    const { kernel, ctx } = await keptContext();
    expect(() => ctx.tap("chat.system", () => {})).toThrow(expect.objectContaining({ code: ErrorCodes.KERNEL_SEALED }));
    expect(kernel.describe().hooks["chat.system"]).toEqual([]);
  });

  test("registering from a timer that fires after setup resolved throws KERNEL_SEALED", async () => {
    let lateError: unknown;
    let fired!: () => void;
    const done = new Promise<void>((resolve) => (fired = resolve));
    const { kernel } = await kernelWith([
      plugin("sneaky", (ctx) => {
        setTimeout(() => {
          try {
            ctx.tools.register(tool("late"));
          } catch (error) {
            lateError = error;
          }
          fired();
        }, 0);
      }),
    ]);
    await done;
    expect(lateError).toMatchObject({ code: ErrorCodes.KERNEL_SEALED });
    expect(kernel.tools.has("late")).toBe(false);
  });

  test.each(KINDS)("registering a %s on the ready kernel's registry throws KERNEL_SEALED", async (kind) => {
    const { kernel } = await kernelWith([]);
    expect(kernel[kind].isSealed).toBe(true);
    expect(() => kernel[kind].register("host", makers[kind]("x") as never)).toThrow(
      expect.objectContaining({ code: ErrorCodes.KERNEL_SEALED }),
    );
  });
});

describe("unknown hooks", () => {
  test("tapping an unknown hook name from JavaScript fails that plugin's setup, leaving nothing behind", async () => {
    const { kernel } = await kernelWith([
      plugin("typo", (ctx) => {
        ctx.tools.register(tool("typo-tool"));
        ctx.tap("chat.system", () => {});
        (ctx.tap as (hook: string, fn: () => void) => void)("chat.parms", () => {});
      }),
      plugin("fine", (ctx) => ctx.tap("chat.params", () => {})),
    ]);
    const [error] = kernel.describe().errors;
    expect(error).toMatchObject({ plugin: "typo", stage: "setup" });
    expect(error?.message).toContain('"chat.parms"');
    expect(kernel.tools.has("typo-tool")).toBe(false);
    expect(kernel.describe().hooks["chat.system"]).toEqual([]);
    expect(kernel.describe().plugins.map((p) => p.name)).toEqual(["fine"]);
  });

  test("tapping a hook without a function fails setup", async () => {
    const { kernel } = await kernelWith([plugin("nofn", (ctx) => ctx.tap("chat.system", undefined as never))]);
    expect(kernel.describe().errors[0]).toMatchObject({ plugin: "nofn", stage: "setup" });
  });
});
