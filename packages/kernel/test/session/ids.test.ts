import { describe, expect, it } from "vitest";
import { createIdGenerator, MessageIDSchema, newId, PartIDSchema, SessionIDSchema } from "../../src/session/index.js";

function expectStrictlyAscending(ids: string[]) {
  for (let i = 1; i < ids.length; i++) {
    if (!(ids[i - 1]! < ids[i]!)) throw new Error(`id ${i} (${ids[i]}) does not sort after ${ids[i - 1]}`);
  }
}

describe("ids", () => {
  it("10,000 ids made in a tight loop sort in creation order as plain strings", () => {
    const ids = Array.from({ length: 10_000 }, () => newId("part"));
    expectStrictlyAscending(ids);
    expect(new Set(ids).size).toBe(10_000);
  });

  it("ids still ascend when the clock stands still or steps backwards", () => {
    let time = 1_700_000_000_000;
    const next = createIdGenerator(() => time);
    const ids: string[] = [];
    for (let i = 0; i < 70_000; i++) ids.push(next("message")); // more than one millisecond's counter
    time -= 5_000; // NTP stepped the clock back
    for (let i = 0; i < 100; i++) ids.push(next("message"));
    expectStrictlyAscending(ids);
  });

  it("each kind of record gets its own prefix, and schemas reject the wrong one", () => {
    expect(newId("session")).toMatch(/^ses_[0-9a-z]{26}$/);
    expect(newId("message")).toMatch(/^msg_/);
    expect(newId("part")).toMatch(/^prt_/);
    expect(SessionIDSchema.safeParse(newId("session")).success).toBe(true);
    expect(MessageIDSchema.safeParse(newId("session")).success).toBe(false);
    expect(PartIDSchema.safeParse("prt").success).toBe(false);
  });

  it("two generators ticking in the same millisecond still make different ids", () => {
    const a = createIdGenerator(() => 42);
    const b = createIdGenerator(() => 42);
    expect(a("session")).not.toBe(b("session"));
  });
});
