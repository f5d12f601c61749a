/** Rule 1: the hook table — exactly fourteen hooks, frozen, and taps mutate `output`. */
import { describe, expect, test } from "vitest";
import { hookNames, hookSpecs, isHookName, type ChatParamsOutput, type HookName } from "@tessera/kernel";
import { kernelWith, plugin } from "./helpers.js";

const HOOKS = [
  "chat.message",
  "chat.system",
  "chat.params",
  "chat.headers",
  "tool.definition",
  "tool.execute.before",
  "tool.execute.after",
  "permission.ask",
  "text.complete",
  "step.start",
  "step.finish",
  "session.compacting",
  "shell.env",
  "event",
] as const;

describe("the hook table", () => {
  test("has exactly the fourteen hooks", () => {
    expect([...hookNames].sort()).toEqual([...HOOKS].sort());
    expect(Object.keys(hookSpecs).sort()).toEqual([...HOOKS].sort());
  });

  test("a kernel exposes one tapable hook per name, and nothing else", async () => {
    const { kernel } = await kernelWith([]);
    expect(Object.keys(kernel.hooks).sort()).toEqual([...HOOKS].sort());
    for (const name of HOOKS) expect(typeof kernel.hooks[name].tapPromise).toBe("function");
  });

  test("is frozen: hooks cannot be added, replaced or removed", async () => {
    const { kernel } = await kernelWith([]);
    const table = kernel.hooks as unknown as Record<string, unknown>;
    expect(Object.isFrozen(table)).toBe(true);
    expect(() => (table["chat.new"] = {})).toThrow(TypeError);
    expect(() => (table["chat.params"] = {})).toThrow(TypeError);
    expect(() => delete table["event"]).toThrow(TypeError);
    expect(Object.keys(table)).toHaveLength(14);
  });

  test("the hook specs and names are frozen too", () => {
    expect(Object.isFrozen(hookSpecs)).toBe(true);
    expect(Object.isFrozen(hookNames)).toBe(true);
    expect(() => ((hookSpecs as unknown as Record<string, unknown>)["chat.new"] = { policy: "fail" })).toThrow(TypeError);
    expect(() => (hookNames as unknown as string[]).push("chat.new")).toThrow(TypeError);
  });

  test("each hook has its documented failure policy", () => {
    const policies = Object.fromEntries(HOOKS.map((h) => [h, hookSpecs[h].policy]));
    expect(policies).toEqual({
      "chat.message": "fail",
      "chat.system": "fail",
      "chat.params": "fail",
      "chat.headers": "fail",
      "tool.definition": "fail",
      "tool.execute.before": "fail-closed",
      "tool.execute.after": "fail",
      "permission.ask": "fail-closed",
      "text.complete": "fail-open",
      "step.start": "fail-open",
      "step.finish": "fail-open",
      "session.compacting": "fail-open",
      "shell.env": "fail",
      event: "fail-open",
    });
  });

  test("isHookName accepts the fourteen names and rejects anything else", () => {
    for (const name of HOOKS) expect(isHookName(name)).toBe(true);
    for (const name of ["chat.parms", "toString", "constructor", "__proto__", ""]) expect(isHookName(name)).toBe(false);
  });
});

describe("trigger", () => {
  test("a chat.params tap mutates output, and trigger resolves to that output", async () => {
    const { kernel } = await kernelWith([
      plugin("tuner", (ctx) =>
        ctx.tap("chat.params", (input, output) => {
          output.temperature = 0.2;
          output.options[input.provider.id] = { reasoningEffort: "high" };
        }),
      ),
    ]);
    const output: ChatParamsOutput = { options: {} };
    const result = await kernel.trigger(
      "chat.params",
      { sessionID: "s1", agent: "build", model: { providerID: "acme", modelID: "m1" }, provider: { id: "acme", options: {} } },
      output,
    );
    expect(result).toBe(output);
    expect(result).toEqual({ temperature: 0.2, options: { acme: { reasoningEffort: "high" } } });
  });

  test.each(HOOKS)("a tap on %s sees the input and its changes to output come back", async (hook: HookName) => {
    const { kernel } = await kernelWith([
      plugin("marker", (ctx) =>
        ctx.tap(hook, (input, output) => {
          (output as Record<string, unknown>).seen = (input as { marker?: unknown }).marker;
        }),
      ),
    ]);
    const output = {} as Record<string, unknown>;
    const result = await kernel.trigger(hook, { marker: hook } as never, output as never);
    expect(result).toBe(output);
    expect(output.seen).toBe(hook);
  });

  test("async taps run in series on the same output", async () => {
    const { kernel } = await kernelWith([
      plugin("slow", (ctx) =>
        ctx.tap("chat.system", async (_input, output) => {
          await new Promise((resolve) => setTimeout(resolve, 5));
          output.system.push("slow");
        }),
      ),
      plugin("fast", (ctx) => ctx.tap("chat.system", (_input, output) => void output.system.push(`fast after ${output.system.join(",")}`))),
    ]);
    const { system } = await kernel.trigger("chat.system", { sessionID: "s", agent: "a", model: { providerID: "p", modelID: "m" } }, { system: [] });
    expect(system).toEqual(["slow", "fast after slow"]);
  });

  test("with no taps, trigger resolves to the output unchanged", async () => {
    const { kernel } = await kernelWith([]);
    const output = { env: { A: "1" } };
    await expect(kernel.trigger("shell.env", { cwd: "/", sessionID: "s" }, output)).resolves.toBe(output);
    expect(output).toEqual({ env: { A: "1" } });
  });
});
