import { describe, expect, it } from "vitest";
import { newId, type SessionStore } from "../../src/session/index.js";
import { assistantMessage, harness, textPart, toolPart, userMessage } from "./helpers.js";

function conversation(store: SessionStore, turns: number) {
  const session = store.createSession({ directory: "/repo" });
  const ids: string[] = [];
  for (let i = 0; i < turns; i++) {
    const user = store.updateMessage(userMessage(session.id));
    store.updatePart(textPart(user, `question ${i}`));
    const reply = store.updateMessage(assistantMessage(session.id, user.id, { time: { created: i, completed: i } }));
    store.updatePart(textPart(reply, `answer ${i}`));
    ids.push(user.id, reply.id);
  }
  return { session, ids };
}

describe("messages and parts", () => {
  it("a message comes back with its parts in the order they were created", () => {
    const store = harness().open();
    const session = store.createSession({ directory: "/repo" });
    const user = store.updateMessage(userMessage(session.id, { system: "be brief", tools: { bash: false } }));
    const first = store.updatePart(textPart(user, "one"));
    const second = store.updatePart({
      id: newId("part"),
      sessionID: session.id,
      messageID: user.id,
      type: "file",
      mediaType: "text/plain",
      url: "file:///repo/a.ts",
    });
    expect(store.getMessage(user.id)).toEqual({ info: user, parts: [first, second] });
    expect(store.getPart(first.id)).toEqual(first);
    expect(store.getMessage("msg_missing")).toBeUndefined();
  });

  it("writing a message or part again with the same id replaces it", () => {
    const store = harness().open();
    const session = store.createSession({ directory: "/repo" });
    const user = store.updateMessage(userMessage(session.id));
    const reply = store.updateMessage(assistantMessage(session.id, user.id));
    const tool = store.updatePart(toolPart(reply, { status: "running", input: { command: "ls" }, time: { start: 1 } }));
    store.updatePart({
      ...tool,
      state: { status: "completed", input: { command: "ls" }, output: "a.ts", title: "ls", metadata: {}, time: { start: 1, end: 2 } },
    });
    store.updateMessage({ ...reply, finish: "stop", time: { created: reply.time.created, completed: 5 } });

    const [, got] = store.listMessages(session.id);
    expect(got!.info).toMatchObject({ finish: "stop", time: { completed: 5 } });
    expect(got!.parts).toHaveLength(1);
    expect(got!.parts[0]).toMatchObject({ state: { status: "completed", output: "a.ts" } });
  });

  it("a message needs an existing session, and a part an existing message in the same session", () => {
    const store = harness().open();
    const session = store.createSession({ directory: "/repo" });
    const other = store.createSession({ directory: "/repo" });
    const user = store.updateMessage(userMessage(session.id));
    expect(() => store.updateMessage(userMessage("ses_missing"))).toThrow(expect.objectContaining({ code: "SESSION_NOT_FOUND" }));
    expect(() => store.updatePart(textPart({ id: "msg_missing", sessionID: session.id }, "x"))).toThrow(
      expect.objectContaining({ code: "MESSAGE_NOT_FOUND" }),
    );
    expect(() => store.updatePart(textPart({ id: user.id, sessionID: other.id }, "x"))).toThrow(
      expect.objectContaining({ code: "MESSAGE_NOT_FOUND" }),
    );
    expect(() => store.updateMessage({ ...user, sessionID: other.id })).toThrow(expect.objectContaining({ code: "RECORD_INVALID" }));
    expect(store.getMessage(user.id)!.info.sessionID).toBe(session.id);
  });

  it("a record that does not match its schema is refused and nothing is written", () => {
    const store = harness().open();
    const session = store.createSession({ directory: "/repo" });
    const user = store.updateMessage(userMessage(session.id));
    const bad = { ...textPart(user, "x"), text: 42 } as unknown as ReturnType<typeof textPart>;
    expect(() => store.updatePart(bad)).toThrow(expect.objectContaining({ code: "RECORD_INVALID", message: expect.stringContaining("text") }));
    expect(store.getMessage(user.id)!.parts).toEqual([]);
  });

  it("messages are listed oldest first, a page at a time", () => {
    const store = harness().open();
    const { session, ids } = conversation(store, 3); // 6 messages
    const page = (options: Parameters<SessionStore["listMessages"]>[1]) =>
      store.listMessages(session.id, options).map((m) => m.info.id);

    expect(page({})).toEqual(ids);
    expect(page({ limit: 2 })).toEqual(ids.slice(0, 2));
    expect(page({ limit: 2, after: ids[1] })).toEqual(ids.slice(2, 4));
    expect(page({ limit: 10, after: ids[4] })).toEqual(ids.slice(5));
    expect(page({ limit: 2, before: ids[5] })).toEqual(ids.slice(3, 5));
    expect(page({ before: ids[2] })).toEqual(ids.slice(0, 2));
    expect(page({ after: ids[0], before: ids[3] })).toEqual(ids.slice(1, 3));
    expect(page({ after: ids[5] })).toEqual([]);
  });

  it("each listed message carries only its own parts", () => {
    const store = harness().open();
    const { session } = conversation(store, 3);
    const texts = store.listMessages(session.id, { limit: 3, after: store.listMessages(session.id)[0]!.info.id }).map((m) =>
      m.parts.map((p) => (p.type === "text" ? p.text : p.type)),
    );
    expect(texts).toEqual([["answer 0"], ["question 1"], ["answer 1"]]);
  });

  it("streamed text deltas accumulate in the part", () => {
    const store = harness().open();
    const session = store.createSession({ directory: "/repo" });
    const user = store.updateMessage(userMessage(session.id));
    const reply = store.updateMessage(assistantMessage(session.id, user.id));
    const text = store.updatePart({ ...textPart(reply, ""), time: { start: 1 } });
    for (const delta of ["Hel", "lo, ", "wor", "ld"]) store.appendPartText(text.id, delta);
    expect(store.getPart(text.id)).toEqual({ ...text, text: "Hello, world" });

    const tool = store.updatePart(toolPart(reply, { status: "pending", input: {}, raw: "" }));
    expect(() => store.appendPartText(tool.id, "x")).toThrow(expect.objectContaining({ code: "PART_NOT_FOUND" }));
    expect(() => store.appendPartText("prt_missing", "x")).toThrow(expect.objectContaining({ code: "PART_NOT_FOUND" }));
  });

  it("streaming into one part writes only that part's row, never the message or its other parts", () => {
    const h = harness();
    const store = h.open();
    const session = store.createSession({ directory: "/repo" });
    const user = store.updateMessage(userMessage(session.id));
    const reply = store.updateMessage(assistantMessage(session.id, user.id));
    for (let i = 0; i < 50; i++) store.updatePart(textPart(reply, `earlier part ${i}`));
    const streaming = store.updatePart(textPart(reply, ""));

    const raw = h.raw();
    raw.exec(`
      CREATE TABLE audit (tbl TEXT, id TEXT);
      CREATE TRIGGER audit_part AFTER UPDATE ON part BEGIN INSERT INTO audit VALUES ('part', new.id); END;
      CREATE TRIGGER audit_message AFTER UPDATE ON message BEGIN INSERT INTO audit VALUES ('message', new.id); END;
    `);
    let text = "";
    for (let i = 0; i < 100; i++) {
      text += `tok${i} `;
      if (i % 2) store.appendPartText(streaming.id, `tok${i} `);
      else store.updatePart({ ...streaming, text });
    }
    const writes = raw.prepare("SELECT tbl, id, count(*) AS n FROM audit GROUP BY tbl, id").all();
    expect(writes).toEqual([expect.objectContaining({ tbl: "part", id: streaming.id, n: 100 })]);
    expect(store.getPart(streaming.id)).toMatchObject({ text });
  });

  it("removing a message removes its parts; a part can be removed on its own", () => {
    const h = harness();
    const store = h.open();
    const { session, ids } = conversation(store, 2);
    const reply = store.getMessage(ids[3]!)!;
    expect(store.removePart(reply.parts[0]!.id)).toBe(true);
    expect(store.getMessage(ids[3]!)!.parts).toEqual([]);
    expect(store.removeMessage(ids[0]!)).toBe(true);
    expect(store.removeMessage(ids[0]!)).toBe(false);
    expect(store.listMessages(session.id).map((m) => m.info.id)).toEqual(ids.slice(1));
    expect(h.raw().prepare("SELECT count(*) AS n FROM part WHERE message_id = ?").get(ids[0]!)!["n"]).toBe(0);
  });
});
