/** Rule 2: taps run pre, then normal, then post; within a band, in config order — deterministically. */
import { describe, expect, test } from "vitest";
import type { ChatSystemInput, Kernel, PluginContext } from "@tessera/kernel";
import { KernelReadyEvent } from "@tessera/kernel";
import { kernelFor, kernelWith, plugin, project } from "./helpers.js";

const input: ChatSystemInput = { sessionID: "s1", agent: "build", model: { providerID: "p", modelID: "m" } };

async function runOrder(kernel: Kernel): Promise<string[]> {
  return (await kernel.trigger("chat.system", input, { system: [] })).system;
}

const push =
  (label: string) =>
  (_input: unknown, output: { system: string[] }): void =>
    void output.system.push(label);

describe("tap order", () => {
  test("pre taps run first, then normal, then post, whatever order they were tapped in", async () => {
    const { kernel } = await kernelWith([
      plugin("only", (ctx) => {
        ctx.tap("chat.system", push("post"), { order: "post" });
        ctx.tap("chat.system", push("normal"));
        ctx.tap("chat.system", push("pre"), { order: "pre" });
      }),
    ]);
    expect(await runOrder(kernel)).toEqual(["pre", "normal", "post"]);
  });

  test("within a band, taps run in the plugins' config order", async () => {
    const { kernel } = await kernelWith(["c", "a", "b"].map((name) => plugin(name, (ctx) => ctx.tap("chat.system", push(name)))));
    expect(await runOrder(kernel)).toEqual(["c", "a", "b"]);
  });

  test("bands win over config order: a later plugin's pre tap runs before an earlier plugin's normal tap", async () => {
    const { kernel } = await kernelWith([
      plugin("first", (ctx) => {
        ctx.tap("chat.system", push("first:post"), { order: "post" });
        ctx.tap("chat.system", push("first"));
      }),
      plugin("second", (ctx) => {
        ctx.tap("chat.system", push("second"));
        ctx.tap("chat.system", push("second:pre"), { order: "pre" });
        ctx.tap("chat.system", push("second:post"), { order: "post" });
      }),
    ]);
    expect(await runOrder(kernel)).toEqual(["second:pre", "first", "second", "first:post", "second:post"]);
  });

  test("a plugin's several taps in one band run in the order it tapped them", async () => {
    const { kernel } = await kernelWith([
      plugin("many", (ctx) => {
        ctx.tap("chat.system", push("one"));
        ctx.tap("chat.system", push("two"));
        ctx.tap("chat.system", push("three"));
      }),
    ]);
    expect(await runOrder(kernel)).toEqual(["one", "two", "three"]);
  });

  test("when dependencies reorder setup, taps still run in config order", async () => {
    const setupOrder: string[] = [];
    const tapper = (name: string) => (ctx: PluginContext) => {
      setupOrder.push(name);
      ctx.tap("chat.system", push(name));
    };
    const { kernel } = await kernelWith([
      plugin("needs-both", tapper("needs-both"), { dependencies: ["base", "middle"] }),
      plugin("middle", tapper("middle"), { dependencies: ["base"] }),
      plugin("base", tapper("base")),
    ]);
    expect(setupOrder).toEqual(["base", "middle", "needs-both"]);
    expect(await runOrder(kernel)).toEqual(["needs-both", "middle", "base"]);
  });

  test("describe() lists each hook's taps in the order they run", async () => {
    const { kernel } = await kernelWith([
      plugin("late", (ctx) => ctx.tap("chat.system", push("late"), { order: "post" })),
      plugin("early", (ctx) => ctx.tap("chat.system", push("early"), { order: "pre" })),
      plugin("middle", (ctx) => ctx.tap("chat.system", push("middle"))),
    ]);
    expect(kernel.describe().hooks["chat.system"]).toEqual([
      { plugin: "early", order: "pre" },
      { plugin: "middle", order: "normal" },
      { plugin: "late", order: "post" },
    ]);
    expect(await runOrder(kernel)).toEqual(["early", "middle", "late"]);
  });
});

describe("tap order across plugin sources (fixture: order)", () => {
  // Kernel-option plugins come first, then config plugins in config order, then discovered ones;
  // zeta is listed before alpha but depends on it, so alpha is set up first.
  const expected = ["alpha:pre", "beta:pre", "first", "zeta", "alpha", "beta", "first:post", "alpha:post"];

  async function orderKernel() {
    const setupOrder: string[][] = [];
    const first = plugin("first", (ctx) => {
      ctx.tap("chat.system", push("first"));
      ctx.tap("chat.system", push("first:post"), { order: "post" });
      ctx.bus.subscribe(KernelReadyEvent, (event) => setupOrder.push(event.properties.plugins));
    });
    const { kernel, log } = await kernelFor(project("order"), { plugins: [first] });
    expect(kernel.describe().errors).toEqual([]);
    expect(log.problems()).toEqual([]);
    return { kernel, setupOrder };
  }

  test("taps run by band, then by position: options, config order, discovered", async () => {
    const { kernel, setupOrder } = await orderKernel();
    expect(setupOrder).toEqual([["first", "alpha", "zeta", "beta"]]);
    expect(await runOrder(kernel)).toEqual(expected);
  });

  test("the order is the same on every trigger and for every kernel built from the same project", async () => {
    const one = await orderKernel();
    const two = await orderKernel();
    expect(await runOrder(one.kernel)).toEqual(expected);
    expect(await runOrder(one.kernel)).toEqual(expected);
    expect(await runOrder(two.kernel)).toEqual(expected);
  });
});
