/**
 * How agents and plugins shape each model call: the system prompt, sampling parameters, headers,
 * the tools offered, and agents defined in `.tessera/agents/*.md`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { z } from "zod";
import { defineTool, type PluginDefinition, type ToolDefinition } from "@tessera/kernel";
import { providerPrompt } from "../../src/engine/system-prompt.js";
import { mockProvider, scriptedModel, testKernel, testPlugin, type ScriptedStep } from "./harness.js";

async function start(script: ScriptedStep[], plugins: PluginDefinition[] = [], options: Parameters<typeof testKernel>[1] = {}) {
  const scripted = scriptedModel(script);
  const test = await testKernel([mockProvider(scripted.model), ...plugins], options);
  onTestFinished(() => test.kernel.dispose());
  const session = test.kernel.sessions.createSession();
  return { ...test, ...scripted, engine: test.kernel.sessions, session };
}

type Call = { prompt: Array<{ role: string; content: unknown }>; tools?: Array<{ name: string; description?: string }> };
const systemOf = (call: Call | undefined) => (call?.prompt ?? []).filter((m) => m.role === "system").map((m) => String(m.content)).join("\n\n");
const toolNames = (call: Call | undefined) => (call?.tools ?? []).map((t) => t.name).sort();

/** Tools that do nothing, with the given ids (for checking which are offered). */
function dummyTools(...ids: string[]): PluginDefinition {
  return testPlugin("dummy-tools", (ctx) => {
    for (const id of ids) {
      ctx.tools.register(
        defineTool({
          id,
          description: `The ${id} tool`,
          parameters: z.object({ value: z.string().optional() }),
          permission: () => [],
          async execute() {
            return { title: id, output: "" };
          },
        }) as ToolDefinition,
      );
    }
  });
}

describe("the system prompt", () => {
  it("is the provider's default, then the environment, then AGENTS.md, then what chat.system taps add", async () => {
    const taps: unknown[] = [];
    const extra = testPlugin("extra-system", (ctx) =>
      ctx.tap("chat.system", (input, output) => {
        taps.push({ ...input });
        output.system.push("Always answer in haiku.");
      }),
    );
    const { engine, session, model, dir } = await start([{ text: "ok" }], [extra], {
      setup: (dir) => writeFileSync(join(dir, "AGENTS.md"), "Use pnpm, never npm."),
    });
    await engine.prompt({ sessionID: session.id, text: "hi" });

    const system = systemOf(model.doStreamCalls[0]);
    const positions = [
      system.indexOf(providerPrompt("mock", "mock-model").slice(0, 200)),
      system.indexOf(`<env>\nWorking directory: ${dir}\nIs directory a git repo: yes`),
      system.indexOf(`Instructions from: ${join(dir, "AGENTS.md")}\nUse pnpm, never npm.`),
      system.indexOf("Always answer in haiku."),
    ];
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(positions[0]).toBe(0);
    expect(taps).toEqual([{ sessionID: session.id, agent: "build", model: { providerID: "mock", modelID: "mock-model" } }]);
  });

  it("starts with the agent's own prompt instead of the provider's default", async () => {
    const { engine, session, model } = await start([{ text: "ok" }], [], {
      config: { agent: { build: { prompt: "You are a careful builder who writes tests first." } } },
    });
    await engine.prompt({ sessionID: session.id, text: "hi" });
    const system = systemOf(model.doStreamCalls[0]);
    expect(system.startsWith("You are a careful builder who writes tests first.")).toBe(true);
    expect(system).not.toContain(providerPrompt("mock", "mock-model").slice(0, 200));
    expect(system).toContain("<env>");
  });
});

describe("plugins shaping the model call", () => {
  it("chat.params sets the temperature and provider options the model is called with", async () => {
    const inputs: unknown[] = [];
    const params = testPlugin("params", (ctx) =>
      ctx.tap("chat.params", (input, output) => {
        inputs.push({ ...input });
        output.temperature = 0.25;
        output.topP = 0.9;
        output.options.reasoningEffort = "low";
      }),
    );
    const { engine, session, model } = await start([{ text: "ok" }], [params]);
    await engine.prompt({ sessionID: session.id, text: "hi" });

    const call = model.doStreamCalls[0]!;
    expect(call.temperature).toBe(0.25);
    expect(call.topP).toBe(0.9);
    expect(call.providerOptions).toEqual({ mock: { reasoningEffort: "low" } });
    // The model's output limit is the default budget.
    expect(call.maxOutputTokens).toBe(4_000);
    expect(inputs).toEqual([
      { sessionID: session.id, agent: "build", model: { providerID: "mock", modelID: "mock-model" }, provider: { id: "mock", options: {} } },
    ]);
  });

  it("chat.headers adds headers that reach the model call", async () => {
    const headers = testPlugin("headers", (ctx) =>
      ctx.tap("chat.headers", (input, output) => {
        output.headers["x-session"] = input.sessionID;
        output.headers["x-trace"] = "trace-123";
      }),
    );
    const { engine, session, model } = await start([{ text: "ok" }], [headers]);
    await engine.prompt({ sessionID: session.id, text: "hi" });
    expect(model.doStreamCalls[0]!.headers).toMatchObject({ "x-session": session.id, "x-trace": "trace-123" });
  });

  it("tool.definition changes the description the model sees", async () => {
    const rewriter = testPlugin("rewriter", (ctx) =>
      ctx.tap("tool.definition", (input, output) => {
        if (input.toolID === "grep") output.description = "Search file contents (prefer this over bash grep).";
      }),
    );
    const { engine, session, model } = await start([{ text: "ok" }], [dummyTools("grep", "glob"), rewriter]);
    await engine.prompt({ sessionID: session.id, text: "hi" });
    const tools = model.doStreamCalls[0]!.tools ?? [];
    expect(tools.find((t) => t.name === "grep")).toMatchObject({ description: "Search file contents (prefer this over bash grep)." });
    expect(tools.find((t) => t.name === "glob")).toMatchObject({ description: "The glob tool" });
  });
});

describe("the tools an agent is offered", () => {
  it("the plan agent is not offered edit, write or patch", async () => {
    const { engine, session, model } = await start([{ text: "build" }, { text: "plan" }], [dummyTools("read", "edit", "write", "patch", "bash")]);
    await engine.prompt({ sessionID: session.id, text: "hi" });
    await engine.prompt({ sessionID: session.id, text: "plan it", agent: "plan" });
    expect(toolNames(model.doStreamCalls[0])).toEqual(["bash", "edit", "patch", "read", "write"]);
    expect(toolNames(model.doStreamCalls[1])).toEqual(["bash", "read"]);
  });

  it("a prompt's tools switches hide a tool for that message", async () => {
    const { engine, session, model } = await start([{ text: "one" }, { text: "two" }], [dummyTools("read", "bash")]);
    await engine.prompt({ sessionID: session.id, text: "no shell please", tools: { bash: false } });
    await engine.prompt({ sessionID: session.id, text: "shell is fine again" });
    expect(toolNames(model.doStreamCalls[0])).toEqual(["read"]);
    expect(toolNames(model.doStreamCalls[1])).toEqual(["bash", "read"]);
  });
});

describe("agents from .tessera/agents/*.md", () => {
  it("a project's reviewer.md can be used as an agent: its body is the prompt and its frontmatter applies", async () => {
    const reviewer = [
      "---",
      "description: Reviews changes for bugs",
      "temperature: 0.1",
      "tools:",
      "  bash: false",
      "---",
      "You are the reviewer. Point out bugs; never edit files.",
      "",
    ].join("\n");
    const { engine, session, model } = await start([{ text: "Looks good." }], [dummyTools("read", "bash")], {
      setup: (dir) => {
        mkdirSync(join(dir, ".tessera", "agents"), { recursive: true });
        writeFileSync(join(dir, ".tessera", "agents", "reviewer.md"), reviewer);
      },
    });
    const { assistant } = await engine.prompt({ sessionID: session.id, text: "review my change", agent: "reviewer" });

    expect(assistant?.info).toMatchObject({ agent: "reviewer", finish: "stop" });
    const call = model.doStreamCalls[0]!;
    const system = systemOf(call);
    expect(system.startsWith("You are the reviewer. Point out bugs; never edit files.")).toBe(true);
    expect(system).not.toContain(providerPrompt("mock", "mock-model").slice(0, 200));
    expect(call.temperature).toBe(0.1);
    expect(toolNames(call)).toEqual(["read"]);
  });
});
