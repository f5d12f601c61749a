/**
 * Rule 4: what happens when a tap throws or hangs — per hook policy: `fail` rejects, guards fail
 * closed (a blocked tool call, a denied permission), observers log, roll back and carry on.
 */
import { describe, expect, test } from "vitest";
import {
  ErrorCodes,
  PluginError,
  PluginErrorEvent,
  type BusEvent,
  type ChatParamsInput,
  type HookName,
  type PermissionAskInput,
  type PermissionAskOutput,
  type PluginContext,
  type StepOutput,
} from "@tessera/kernel";
import { kernelWith, never, plugin, rejectionOf, settle } from "./helpers.js";

const paramsInput: ChatParamsInput = {
  sessionID: "s1",
  agent: "build",
  model: { providerID: "acme", modelID: "m1" },
  provider: { id: "acme", options: {} },
};
const toolInput = { tool: "bash", sessionID: "s1", callID: "c1" };
const permissionInput: PermissionAskInput = { permission: "bash", patterns: ["git push *"], metadata: {}, sessionID: "s1" };
const ask = (): PermissionAskOutput => ({ status: "ask" });

const elapsed = async <T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> => {
  const start = performance.now();
  const value = await work();
  return { ms: performance.now() - start, value };
};

describe("a throwing tap", () => {
  test("becomes a PluginError with code, plugin, hook and the original error as cause", async () => {
    const original = new Error("bad temperature");
    const { kernel } = await kernelWith([
      plugin("tuner", (ctx) =>
        ctx.tap("chat.params", () => {
          throw original;
        }),
      ),
    ]);
    const error = await rejectionOf(kernel.trigger("chat.params", paramsInput, { options: {} }));
    expect(error).toBeInstanceOf(PluginError);
    expect(PluginError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: ErrorCodes.PLUGIN_ERROR, plugin: "tuner", hook: "chat.params" });
    expect((error as PluginError).cause).toBe(original);
    expect((error as PluginError).message).toContain("tuner");
    expect((error as PluginError).message).toContain("chat.params");
    expect((error as PluginError).message).toContain("bad temperature");
  });

  test("an async tap that rejects becomes the same PluginError", async () => {
    const original = new Error("async failure");
    const { kernel } = await kernelWith([
      plugin("tuner", (ctx) =>
        ctx.tap("chat.headers", async () => {
          await settle();
          throw original;
        }),
      ),
    ]);
    const error = await rejectionOf(kernel.trigger("chat.headers", paramsInput, { headers: {} }));
    expect(error).toMatchObject({ code: ErrorCodes.PLUGIN_ERROR, plugin: "tuner", hook: "chat.headers", cause: original });
  });

  test("on a fail hook, later taps do not run", async () => {
    const ran: string[] = [];
    const { kernel } = await kernelWith([
      plugin("first", (ctx) => ctx.tap("shell.env", () => void ran.push("first"))),
      plugin("thrower", (ctx) =>
        ctx.tap("shell.env", () => {
          throw new Error("no env for you");
        }),
      ),
      plugin("last", (ctx) => ctx.tap("shell.env", () => void ran.push("last"))),
    ]);
    await expect(kernel.trigger("shell.env", { cwd: "/", sessionID: "s1" }, { env: {} })).rejects.toMatchObject({
      plugin: "thrower",
    });
    expect(ran).toEqual(["first"]);
  });
});

describe("tool.execute.before (a guard without a safe output)", () => {
  test("a throwing tap blocks the call: trigger rejects with the PluginError and later taps do not run", async () => {
    const ran: string[] = [];
    const { kernel } = await kernelWith([
      plugin("guard", (ctx) =>
        ctx.tap("tool.execute.before", (input) => {
          if (input.tool === "bash") throw new Error("bash is blocked here");
        }),
      ),
      plugin("rewriter", (ctx) =>
        ctx.tap("tool.execute.before", (_input, output) => {
          ran.push("rewriter");
          output.args.command = "rm -rf /";
        }),
      ),
    ]);
    const output = { args: { command: "ls" } };
    const error = await rejectionOf(kernel.trigger("tool.execute.before", toolInput, output));
    expect(error).toBeInstanceOf(PluginError);
    expect(error).toMatchObject({ code: ErrorCodes.PLUGIN_ERROR, plugin: "guard", hook: "tool.execute.before" });
    expect((error as Error).message).toContain("bash is blocked here");
    expect(ran).toEqual([]);
    expect(output.args.command).toBe("ls");
  });

  test("a tap that does not throw lets the call through with rewritten arguments", async () => {
    const { kernel } = await kernelWith([
      plugin("guard", (ctx) => ctx.tap("tool.execute.before", (_input, output) => void (output.args.timeout = 5))),
    ]);
    await expect(kernel.trigger("tool.execute.before", toolInput, { args: { command: "ls" } })).resolves.toEqual({
      args: { command: "ls", timeout: 5 },
    });
  });
});

describe("permission.ask (a guard that fails closed)", () => {
  test("a throwing tap denies, and later taps cannot flip the decision", async () => {
    const ran: string[] = [];
    const { kernel, log } = await kernelWith([
      plugin("allow-all", (ctx) => ctx.tap("permission.ask", (_i, output) => void (output.status = "allow"))),
      plugin("broken-policy", (ctx) =>
        ctx.tap("permission.ask", () => {
          throw new Error("policy server down");
        }),
      ),
      plugin("allow-again", (ctx) =>
        ctx.tap("permission.ask", (_i, output) => {
          ran.push("allow-again");
          output.status = "allow";
        }),
      ),
    ]);
    const decision = await kernel.trigger("permission.ask", permissionInput, ask());
    expect(decision.status).toBe("deny");
    expect(decision.reason).toContain("policy server down");
    expect(ran).toEqual([]);
    expect(log.problems().some((r) => r.data?.plugin === "broken-policy" && r.data?.hook === "permission.ask")).toBe(true);
  });

  test("a denial caused by a failing tap is recorded as decided by that plugin", async () => {
    const { kernel } = await kernelWith([
      plugin("allow-all", (ctx) => ctx.tap("permission.ask", (_i, output) => void (output.status = "allow"))),
      plugin("broken-policy", (ctx) =>
        ctx.tap("permission.ask", () => {
          throw new Error("policy server down");
        }),
      ),
    ]);
    const decision = await kernel.trigger("permission.ask", permissionInput, ask());
    expect(decision).toMatchObject({ status: "deny", decidedBy: "broken-policy" });
  });

  test("records which plugin changed the decision last in decidedBy", async () => {
    const { kernel } = await kernelWith([
      plugin("allow-git", (ctx) => ctx.tap("permission.ask", (_i, output) => void (output.status = "allow"))),
      plugin("observer", (ctx) => ctx.tap("permission.ask", () => {})),
      plugin("deny-push", (ctx) =>
        ctx.tap("permission.ask", (input, output) => {
          if (input.patterns.some((p) => p.startsWith("git push"))) output.status = "deny";
        }),
      ),
      plugin("agrees", (ctx) => ctx.tap("permission.ask", (_i, output) => void (output.status = "deny"))),
    ]);
    await expect(kernel.trigger("permission.ask", permissionInput, ask())).resolves.toMatchObject({
      status: "deny",
      decidedBy: "deny-push",
    });
  });

  test("when no tap changes the status, decidedBy stays unset", async () => {
    const { kernel } = await kernelWith([plugin("observer", (ctx) => ctx.tap("permission.ask", () => {}))]);
    const decision = await kernel.trigger("permission.ask", permissionInput, ask());
    expect(decision).toEqual({ status: "ask" });
  });

  test("a failing tap's denial is published on the bus as plugin.errored", async () => {
    const events: BusEvent[] = [];
    const { kernel } = await kernelWith([
      plugin("broken-policy", (ctx) =>
        ctx.tap("permission.ask", () => {
          throw new Error("policy server down");
        }),
      ),
    ]);
    kernel.bus.subscribe(PluginErrorEvent, (event) => void events.push(event));
    await kernel.trigger("permission.ask", permissionInput, ask());
    expect(events).toHaveLength(1);
    expect(events[0]?.properties).toMatchObject({ plugin: "broken-policy", hook: "permission.ask", code: ErrorCodes.PLUGIN_ERROR });
  });
});

describe("observer hooks (fail-open)", () => {
  const observers = ["event", "text.complete", "step.start", "step.finish"] as const satisfies readonly HookName[];
  const inputs: Record<(typeof observers)[number], unknown> = {
    event: { event: { type: "test.happened", properties: {} } },
    "text.complete": { sessionID: "s1", messageID: "m1", partID: "p1" },
    "step.start": { sessionID: "s1", messageID: "m1" },
    "step.finish": {
      sessionID: "s1",
      messageID: "m1",
      usage: { input: 1, output: 1, reasoning: 0, cache: { read: 0, write: 0 } },
      finishReason: "stop",
    },
  };
  const mark = (name: string) => (_input: unknown, output: unknown) => void ((output as Record<string, unknown>)[name] = true);

  test.each(observers)("on %s, a throwing tap is logged, its changes are rolled back, and later taps still run", async (hook) => {
    const { kernel, log } = await kernelWith([
      plugin("before", (ctx) => ctx.tap(hook, mark("before"))),
      plugin("thrower", (ctx) =>
        ctx.tap(hook, (input, output) => {
          // Ignore the kernel's own report of this failure, so a regression fails here instead of looping.
          if ((input as { event?: BusEvent }).event?.type === PluginErrorEvent.type) return;
          mark("thrower")(input, output);
          delete (output as Record<string, unknown>).before;
          throw new Error("observer broke");
        }),
      ),
      plugin("after", (ctx) => ctx.tap(hook, mark("after"))),
    ]);
    const output = await kernel.trigger(hook, inputs[hook] as never, {} as never);
    expect(output).toEqual({ before: true, after: true });
    const problem = log.problems().find((r) => r.data?.plugin === "thrower");
    expect(problem).toMatchObject({ level: "warn", data: { hook, code: ErrorCodes.PLUGIN_ERROR } });
    expect(problem?.message).toContain("observer broke");
  });

  test("a failing step.finish tap's pushed parts are removed, other taps' parts stay", async () => {
    const { kernel } = await kernelWith([
      plugin("snapshot", (ctx) => ctx.tap("step.finish", (_i, output) => void output.parts.push({ id: "p1", type: "patch" }))),
      plugin("thrower", (ctx) =>
        ctx.tap("step.finish", (_i, output) => {
          output.parts.push({ id: "p2", type: "junk" });
          output.parts[0]!.type = "mangled";
          output.parts.shift();
          throw new Error("half done");
        }),
      ),
      plugin("usage", (ctx) => ctx.tap("step.finish", (_i, output) => void output.parts.push({ id: "p3", type: "usage" }))),
    ]);
    const output: StepOutput = { parts: [] };
    await kernel.trigger("step.finish", inputs["step.finish"] as never, output);
    expect(output.parts.map((p) => p.id)).toEqual(["p1", "p3"]);
  });

  test("a failing text.complete tap's rewrite of the text is undone", async () => {
    const { kernel } = await kernelWith([
      plugin("thrower", (ctx) =>
        ctx.tap("text.complete", (_i, output) => {
          output.text = "garbage";
          throw new Error("rewrite failed");
        }),
      ),
      plugin("suffix", (ctx) => ctx.tap("text.complete", (_i, output) => void (output.text += "!"))),
    ]);
    await expect(kernel.trigger("text.complete", inputs["text.complete"] as never, { text: "hello" })).resolves.toEqual({
      text: "hello!",
    });
  });

  test("an observer failure is published as plugin.errored (except from the event hook itself)", async () => {
    const errors: unknown[] = [];
    const { kernel } = await kernelWith([
      plugin("thrower", (ctx) => {
        ctx.tap("step.start", () => {
          throw new Error("step observer broke");
        });
        ctx.tap("event", (input) => {
          if (input.event.type === "test.ping") throw new Error("event observer broke");
        });
      }),
    ]);
    kernel.bus.subscribe(PluginErrorEvent, (event) => void errors.push(event.properties));
    await kernel.trigger("step.start", inputs["step.start"] as never, { parts: [] });
    await kernel.trigger("event", { event: { type: "test.ping", properties: {} } }, {});
    await settle();
    expect(errors).toEqual([
      expect.objectContaining({ plugin: "thrower", hook: "step.start", code: ErrorCodes.PLUGIN_ERROR }),
    ]);
  });
});

describe("timeouts", () => {
  const TIMEOUT = 50;
  const hang = (hook: HookName) => (ctx: PluginContext) => ctx.tap(hook, () => never());

  test("a never-settling tap on a fail hook rejects with PLUGIN_TIMEOUT naming plugin and hook, within the hook timeout", async () => {
    const { kernel } = await kernelWith([plugin("sleepy", hang("chat.params"))], { hookTimeoutMs: TIMEOUT });
    const { ms, value: error } = await elapsed(() => rejectionOf(kernel.trigger("chat.params", paramsInput, { options: {} })));
    expect(error).toBeInstanceOf(PluginError);
    expect(error).toMatchObject({ code: ErrorCodes.PLUGIN_TIMEOUT, plugin: "sleepy", hook: "chat.params" });
    expect((error as Error).message).toContain("sleepy");
    expect((error as Error).message).toContain("chat.params");
    expect(ms).toBeGreaterThanOrEqual(TIMEOUT - 5);
    expect(ms).toBeLessThan(TIMEOUT + 500);
  });

  test("a never-settling tap on tool.execute.before blocks the call with PLUGIN_TIMEOUT", async () => {
    const { kernel } = await kernelWith([plugin("sleepy", hang("tool.execute.before"))], { hookTimeoutMs: TIMEOUT });
    await expect(kernel.trigger("tool.execute.before", toolInput, { args: {} })).rejects.toMatchObject({
      code: ErrorCodes.PLUGIN_TIMEOUT,
      plugin: "sleepy",
      hook: "tool.execute.before",
    });
  });

  test("a never-settling tap on an observer hook is logged as PLUGIN_TIMEOUT and later taps still run; the kernel does not hang", async () => {
    const { kernel, log } = await kernelWith(
      [plugin("sleepy", hang("step.start")), plugin("after", (ctx) => ctx.tap("step.start", (_i, o) => void o.parts.push({ id: "x", type: "after" })))],
      { hookTimeoutMs: TIMEOUT },
    );
    const { ms, value: output } = await elapsed(() => kernel.trigger("step.start", { sessionID: "s1", messageID: "m1" }, { parts: [] }));
    expect(output.parts).toEqual([{ id: "x", type: "after" }]);
    expect(ms).toBeLessThan(TIMEOUT + 500);
    const problem = log.problems().find((r) => r.data?.code === ErrorCodes.PLUGIN_TIMEOUT);
    expect(problem).toMatchObject({ data: { plugin: "sleepy", hook: "step.start" } });
    expect(problem?.message).toContain("sleepy");
  });

  test("a never-settling tap on the event hook does not block publishing or later events", async () => {
    const seen: string[] = [];
    const { kernel, log } = await kernelWith(
      [
        plugin("sleepy", (ctx) => ctx.tap("event", (input) => (input.event.type === "test.slow" ? never() : undefined))),
        plugin("after", (ctx) => ctx.tap("event", (input) => void seen.push(input.event.type))),
      ],
      { hookTimeoutMs: TIMEOUT },
    );
    await kernel.trigger("event", { event: { type: "test.slow", properties: {} } }, {});
    expect(seen).toContain("test.slow");
    expect(log.problems().some((r) => r.data?.code === ErrorCodes.PLUGIN_TIMEOUT && r.data?.hook === "event")).toBe(true);
  });

  test("a never-settling permission.ask tap denies after the timeout", async () => {
    const { kernel } = await kernelWith([plugin("sleepy", hang("permission.ask"))], { hookTimeoutMs: TIMEOUT });
    const decision = await kernel.trigger("permission.ask", permissionInput, ask());
    expect(decision.status).toBe("deny");
    expect(decision.reason).toMatch(/timed out/);
  });

  test("a tap's own timeout option overrides a longer kernel hook timeout", async () => {
    const { kernel } = await kernelWith(
      [plugin("sleepy", (ctx) => ctx.tap("chat.params", () => never(), { timeout: 30 }))],
      { hookTimeoutMs: 60_000 },
    );
    const { ms, value: error } = await elapsed(() => rejectionOf(kernel.trigger("chat.params", paramsInput, { options: {} })));
    expect(error).toMatchObject({ code: ErrorCodes.PLUGIN_TIMEOUT, plugin: "sleepy" });
    expect(ms).toBeLessThan(1000);
  }, 2000);

  test("a tap's own timeout option overrides a shorter kernel hook timeout", async () => {
    const { kernel } = await kernelWith(
      [
        plugin("patient", (ctx) =>
          ctx.tap(
            "chat.params",
            async (_i, output) => {
              await new Promise((resolve) => setTimeout(resolve, 40));
              output.temperature = 1;
            },
            { timeout: 1000 },
          ),
        ),
      ],
      { hookTimeoutMs: 10 },
    );
    await expect(kernel.trigger("chat.params", paramsInput, { options: {} })).resolves.toEqual({ options: {}, temperature: 1 });
  });

  test("a tap that settles in time is not affected by the timeout", async () => {
    const { kernel } = await kernelWith(
      [
        plugin("quick", (ctx) =>
          ctx.tap("chat.params", async (_i, output) => {
            await settle();
            output.topP = 0.9;
          }),
        ),
      ],
      { hookTimeoutMs: TIMEOUT },
    );
    await expect(kernel.trigger("chat.params", paramsInput, { options: {} })).resolves.toEqual({ options: {}, topP: 0.9 });
  });
});
