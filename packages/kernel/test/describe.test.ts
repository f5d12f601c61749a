/** Rule 9: describe() — plugins, taps per hook in run order, registry contents with owners, load errors. */
import { describe, expect, test } from "vitest";
import { z } from "zod";
import { BUILTIN_AGENTS, defineTool, ErrorCodes, hookNames, KERNEL_API_VERSION, type Kernel } from "@tessera/kernel";
import { kernelFor, kernelWith, plugin, project, type Project } from "./helpers.js";

const core = plugin("core", (ctx) => {
  ctx.tap("tool.execute.after", () => {});
  ctx.tap("chat.params", () => {}, { order: "pre" });
  ctx.tools.register(
    defineTool({
      id: "read",
      description: "Read a file",
      parameters: z.object({ path: z.string() }),
      execute: async ({ path }) => ({ title: path, output: "" }),
    }),
  );
  ctx.providers.register({ id: "acme", languageModel: () => Promise.reject(new Error("offline")) });
  ctx.agents.register({ id: "reviewer", mode: "primary" });
});

async function describedFixture(): Promise<{ p: Project; kernel: Kernel }> {
  const p = project("describe");
  const { kernel } = await kernelFor(p, { plugins: [core] });
  return { p, kernel };
}

describe("describe()", () => {
  test("reports the kernel version, directory, plugins, taps, registries and load errors", async () => {
    const { p, kernel } = await describedFixture();
    const configFile = p.path("tessera.config.json");
    const emptyHooks = Object.fromEntries(hookNames.map((h) => [h, []]));
    const described = kernel.describe();
    expect(described).toEqual({
      kernel: KERNEL_API_VERSION,
      directory: p.root,
      plugins: [
        {
          name: "core",
          version: "1.0.0",
          source: "kernel options",
          spec: "inline",
          dependencies: [],
          hooks: ["chat.params", "tool.execute.after"],
        },
        {
          name: "audit",
          version: "0.2.0",
          source: configFile,
          spec: "./plugins/audit.ts",
          file: p.path("plugins/audit.ts"),
          dependencies: ["core"],
          hooks: ["tool.execute.after", "event"],
        },
      ],
      hooks: {
        ...emptyHooks,
        "chat.params": [{ plugin: "core", order: "pre" }],
        "tool.execute.after": [
          { plugin: "core", order: "normal" },
          { plugin: "audit", order: "post" },
        ],
        event: [{ plugin: "audit", order: "normal" }],
      },
      registries: {
        tools: [{ id: "read", plugin: "core" }],
        providers: [{ id: "acme", plugin: "core" }],
        agents: [...BUILTIN_AGENTS.map((a) => ({ id: a.id, plugin: "kernel" })), { id: "reviewer", plugin: "core" }],
        commands: [{ id: "audit", plugin: "audit" }],
        compactions: [],
      },
      errors: [
        {
          plugin: "broken",
          stage: "setup",
          source: configFile,
          code: ErrorCodes.PLUGIN_SETUP,
          message: expect.stringContaining("broken on purpose"),
        },
      ],
    });
  });

  test("lists every hook, in table order, even when nothing taps it", async () => {
    const { kernel } = await kernelWith([]);
    expect(Object.keys(kernel.describe().hooks)).toEqual([...hookNames]);
  });

  test("lists plugins in config order, not setup order", async () => {
    const { kernel } = await kernelWith([plugin("dependent", () => {}, { dependencies: ["base"] }), plugin("base")]);
    expect(kernel.describe().plugins.map((p) => p.name)).toEqual(["dependent", "base"]);
  });

  test("lists a plugin's hooks once each, even when it taps a hook several times", async () => {
    const { kernel } = await kernelWith([
      plugin("busy", (ctx) => {
        ctx.tap("chat.system", () => {});
        ctx.tap("chat.system", () => {}, { order: "post" });
        ctx.tap("chat.message", () => {});
      }),
    ]);
    expect(kernel.describe().plugins[0]?.hooks).toEqual(["chat.message", "chat.system"]);
    expect(kernel.describe().hooks["chat.system"]).toEqual([
      { plugin: "busy", order: "normal" },
      { plugin: "busy", order: "post" },
    ]);
  });

  test("is plain data that survives JSON", async () => {
    const { kernel } = await describedFixture();
    const described = kernel.describe();
    expect(JSON.parse(JSON.stringify(described))).toEqual(described);
  });

  test("an empty kernel describes itself with no plugins, no taps and no errors", async () => {
    const { kernel, project: p } = await kernelWith([]);
    const described = kernel.describe();
    expect(described.plugins).toEqual([]);
    expect(described.errors).toEqual([]);
    expect(described.directory).toBe(p.root);
    expect(Object.values(described.hooks).flat()).toEqual([]);
    expect(described.registries).toEqual({
      tools: [],
      providers: [],
      agents: BUILTIN_AGENTS.map((a) => ({ id: a.id, plugin: "kernel" })),
      commands: [],
      compactions: [],
    });
  });
});
