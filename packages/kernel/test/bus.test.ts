/** Rule 6: the bus — typed events, validated payloads, isolated subscribers, and the `event` hook. */
import { randomUUID } from "node:crypto";
import { describe, expect, test } from "vitest";
import { z } from "zod";
import {
  Bus,
  defineEvent,
  ErrorCodes,
  KernelReadyEvent,
  listEventDefinitions,
  TesseraError,
  type BusEvent,
  type BusEventEnvelope,
} from "@tessera/kernel";
import { kernelWith, plugin, settle } from "./helpers.js";

/** Event names are process-wide; each test defines its own. */
const uniqueType = (name: string) => `test.${name}.${randomUUID().slice(0, 8)}`;

const fileEdited = () => defineEvent(uniqueType("file.edited"), z.object({ path: z.string(), lines: z.number().int().default(0) }));

describe("defineEvent", () => {
  test("returns a frozen definition with the type and zod schema, listed among the definitions", () => {
    const schema = z.object({ id: z.string() });
    const type = uniqueType("session.created");
    const definition = defineEvent(type, schema);
    expect(definition).toEqual({ type, schema });
    expect(Object.isFrozen(definition)).toBe(true);
    expect(listEventDefinitions()).toContainEqual(definition);
  });

  test("defining a name again with another schema throws EVENT_INVALID; with the same schema (or an identical copy) it is allowed", () => {
    const schema = z.object({ id: z.string() });
    const type = uniqueType("twice");
    defineEvent(type, schema);
    expect(() => defineEvent(type, schema)).not.toThrow();
    expect(() => defineEvent(type, z.object({ id: z.string() }))).not.toThrow();
    expect(() => defineEvent(type, z.object({ other: z.number() }))).toThrow(
      expect.objectContaining({ code: ErrorCodes.EVENT_INVALID, message: expect.stringContaining(type) }),
    );
  });

  test("the kernel's own events are defined", () => {
    const types = listEventDefinitions().map((d) => d.type);
    expect(types).toContain("kernel.ready");
    expect(types).toContain("plugin.errored");
  });
});

describe("publish and subscribe", () => {
  test("a subscriber by definition receives the parsed properties (defaults applied)", () => {
    const bus = new Bus();
    const FileEdited = fileEdited();
    const received: BusEvent<typeof FileEdited>[] = [];
    bus.subscribe(FileEdited, (event) => void received.push(event));
    bus.publish(FileEdited, { path: "a.ts" });
    expect(received).toEqual([{ type: FileEdited.type, properties: { path: "a.ts", lines: 0 } }]);
  });

  test("a subscriber by type string receives the same events", () => {
    const bus = new Bus();
    const FileEdited = fileEdited();
    const received: unknown[] = [];
    bus.subscribe(FileEdited.type, (event) => void received.push(event.properties));
    bus.publish(FileEdited, { path: "b.ts", lines: 3 });
    expect(received).toEqual([{ path: "b.ts", lines: 3 }]);
  });

  test("a subscriber only receives events of its type", () => {
    const bus = new Bus();
    const [One, Two] = [fileEdited(), fileEdited()];
    const received: string[] = [];
    bus.subscribe(One, (event) => void received.push(event.type));
    bus.publish(Two, { path: "x" });
    bus.publish(One, { path: "y" });
    expect(received).toEqual([One.type]);
  });

  test("subscribeAll receives every event, after the type subscribers", () => {
    const bus = new Bus();
    const [One, Two] = [fileEdited(), fileEdited()];
    const order: string[] = [];
    bus.subscribeAll((event) => void order.push(`all:${event.type}`));
    bus.subscribe(One, (event) => void order.push(`one:${event.type}`));
    bus.publish(One, { path: "x" });
    bus.publish(Two, { path: "y" });
    expect(order).toEqual([`one:${One.type}`, `all:${One.type}`, `all:${Two.type}`]);
  });

  test("unsubscribing stops delivery", () => {
    const bus = new Bus();
    const FileEdited = fileEdited();
    const received: string[] = [];
    const offOne = bus.subscribe(FileEdited, () => void received.push("one"));
    const offAll = bus.subscribeAll(() => void received.push("all"));
    offOne();
    offAll();
    bus.publish(FileEdited, { path: "x" });
    expect(received).toEqual([]);
  });

  test("an invalid payload throws EVENT_INVALID naming the event, and nobody receives it", () => {
    const bus = new Bus();
    const FileEdited = fileEdited();
    const received: unknown[] = [];
    bus.subscribe(FileEdited, (event) => void received.push(event));
    bus.subscribeAll((event) => void received.push(event));
    let error: unknown;
    try {
      bus.publish(FileEdited, { path: 42 } as never);
    } catch (thrown) {
      error = thrown;
    }
    expect(TesseraError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: ErrorCodes.EVENT_INVALID });
    expect((error as Error).message).toContain(FileEdited.type);
    expect((error as Error).message).toContain("path");
    expect(received).toEqual([]);
  });

  test("a throwing subscriber breaks neither the publisher nor the other subscribers", () => {
    const failures: unknown[] = [];
    const bus = new Bus({ onSubscriberError: (error) => void failures.push(error) });
    const FileEdited = fileEdited();
    const received: string[] = [];
    bus.subscribe(FileEdited, () => {
      throw new Error("subscriber one broke");
    });
    bus.subscribe(FileEdited, () => void received.push("two"));
    bus.subscribeAll(() => {
      throw new Error("catch-all broke");
    });
    bus.subscribeAll(() => void received.push("all"));
    expect(() => bus.publish(FileEdited, { path: "x" })).not.toThrow();
    expect(received).toEqual(["two", "all"]);
    expect(failures.map((e) => (e as Error).message)).toEqual(["subscriber one broke", "catch-all broke"]);
  });

  test("on the kernel's bus, a throwing subscriber is logged, not thrown", async () => {
    const { kernel, log } = await kernelWith([]);
    const FileEdited = fileEdited();
    kernel.bus.subscribe(FileEdited, () => {
      throw new Error("subscriber broke");
    });
    expect(() => kernel.bus.publish(FileEdited, { path: "x" })).not.toThrow();
    expect(log.problems().some((r) => r.message.includes(FileEdited.type) && r.message.includes("subscriber broke"))).toBe(true);
  });
});

describe("the event hook", () => {
  test("every published event reaches the event hook, with its parsed properties", async () => {
    const seen: BusEventEnvelope[] = [];
    const FileEdited = fileEdited();
    const { kernel } = await kernelWith([plugin("watcher", (ctx) => ctx.tap("event", (input) => void seen.push(input.event)))]);
    kernel.bus.publish(FileEdited, { path: "one.ts" });
    kernel.bus.publish(FileEdited, { path: "two.ts", lines: 2 });
    await settle();
    expect(seen.filter((e) => e.type === FileEdited.type)).toEqual([
      { type: FileEdited.type, properties: { path: "one.ts", lines: 0 } },
      { type: FileEdited.type, properties: { path: "two.ts", lines: 2 } },
    ]);
  });

  test("the kernel.ready event reaches the event hook and subscribers made during setup", async () => {
    const viaHook: string[] = [];
    const viaBus: unknown[] = [];
    await kernelWith([
      plugin("watcher", (ctx) => {
        ctx.tap("event", (input) => void viaHook.push(input.event.type));
        ctx.bus.subscribe(KernelReadyEvent, (event) => void viaBus.push(event.properties));
      }),
      plugin("other"),
    ]);
    await settle();
    expect(viaHook).toContain("kernel.ready");
    expect(viaBus).toEqual([{ plugins: ["watcher", "other"], errors: 0 }]);
  });

  test("events still reach the event hook when a subscriber throws", async () => {
    const seen: string[] = [];
    const FileEdited = fileEdited();
    const { kernel } = await kernelWith([plugin("watcher", (ctx) => ctx.tap("event", (input) => void seen.push(input.event.type)))]);
    kernel.bus.subscribe(FileEdited, () => {
      throw new Error("subscriber broke");
    });
    kernel.bus.publish(FileEdited, { path: "x" });
    await settle();
    expect(seen).toContain(FileEdited.type);
  });

  test("a throwing event tap neither breaks the publisher nor loops through plugin.errored", async () => {
    const seen: string[] = [];
    const FileEdited = fileEdited();
    const { kernel, log } = await kernelWith([
      plugin("broken-watcher", (ctx) =>
        ctx.tap("event", (input) => {
          if (input.event.type === FileEdited.type) throw new Error("watcher broke");
        }),
      ),
      plugin("watcher", (ctx) => ctx.tap("event", (input) => void seen.push(input.event.type))),
    ]);
    expect(() => kernel.bus.publish(FileEdited, { path: "x" })).not.toThrow();
    await settle();
    expect(seen.filter((t) => t === FileEdited.type)).toHaveLength(1);
    expect(seen).not.toContain("plugin.errored");
    expect(log.problems().some((r) => r.data?.plugin === "broken-watcher" && r.data?.hook === "event")).toBe(true);
  });
});
