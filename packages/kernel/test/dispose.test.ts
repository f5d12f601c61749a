/** Rule 10: dispose() — plugins' dispose functions run last-set-up first; a failing one is logged, not thrown. */
import { describe, expect, test } from "vitest";
import type { Dispose } from "@tessera/kernel";
import { kernelWith, plugin } from "./helpers.js";

describe("dispose()", () => {
  test("runs dispose functions in reverse setup order (not config order)", async () => {
    const events: string[] = [];
    const tracked = (name: string) => () => {
      events.push(`setup ${name}`);
      return () => void events.push(`dispose ${name}`);
    };
    // Config order: dependent, base, last. Setup order: base, dependent, last.
    const { kernel } = await kernelWith([
      plugin("dependent", tracked("dependent"), { dependencies: ["base"] }),
      plugin("base", tracked("base")),
      plugin("last", tracked("last")),
    ]);
    await kernel.dispose();
    expect(events).toEqual([
      "setup base",
      "setup dependent",
      "setup last",
      "dispose last",
      "dispose dependent",
      "dispose base",
    ]);
  });

  test("awaits each async dispose before starting the next", async () => {
    const events: string[] = [];
    const slow =
      (name: string): (() => Dispose) =>
      () =>
      async () => {
        events.push(`start ${name}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
        events.push(`end ${name}`);
      };
    const { kernel } = await kernelWith([plugin("a", slow("a")), plugin("b", slow("b"))]);
    await kernel.dispose();
    expect(events).toEqual(["start b", "end b", "start a", "end a"]);
  });

  test("a dispose that throws is logged, not thrown, and the others still run", async () => {
    const disposed: string[] = [];
    const { kernel, log } = await kernelWith([
      plugin("first", () => () => void disposed.push("first")),
      plugin("sync-thrower", () => () => {
        throw new Error("cannot close the socket");
      }),
      plugin("async-thrower", () => async () => {
        throw new Error("cannot flush the cache");
      }),
      plugin("last", () => () => void disposed.push("last")),
    ]);
    await expect(kernel.dispose()).resolves.toBeUndefined();
    expect(disposed).toEqual(["last", "first"]);
    const warnings = log.problems().map((r) => r.message);
    expect(warnings).toContainEqual(expect.stringMatching(/"sync-thrower".*cannot close the socket/));
    expect(warnings).toContainEqual(expect.stringMatching(/"async-thrower".*cannot flush the cache/));
  });

  test("runs each dispose function once, even when called twice", async () => {
    let count = 0;
    const { kernel } = await kernelWith([plugin("once", () => () => void count++)]);
    await kernel.dispose();
    await kernel.dispose();
    expect(count).toBe(1);
  });

  test("does not dispose plugins whose setup failed", async () => {
    const disposed: string[] = [];
    const { kernel } = await kernelWith([
      plugin("ok", () => () => void disposed.push("ok")),
      plugin("fails", async () => {
        throw new Error("setup failed");
      }),
    ]);
    await kernel.dispose();
    expect(disposed).toEqual(["ok"]);
  });

  test("plugins that return nothing from setup need no dispose", async () => {
    const { kernel, log } = await kernelWith([plugin("plain")]);
    await expect(kernel.dispose()).resolves.toBeUndefined();
    expect(log.problems()).toEqual([]);
  });
});
