import { describe, expect, it } from "vitest";
import { assistantMessage, harness, textPart, toolPart, userMessage } from "./helpers.js";

describe("damaged rows", () => {
  it("a message row with invalid JSON is skipped with a warning and the rest of the session still lists", () => {
    const h = harness();
    const store = h.open();
    const session = store.createSession({ directory: "/repo" });
    const a = store.updateMessage(userMessage(session.id));
    const b = store.updateMessage(userMessage(session.id));
    const c = store.updateMessage(userMessage(session.id));
    store.updatePart(textPart(b, "lost with its message"));
    store.updatePart(textPart(c, "still here"));
    h.raw().prepare("UPDATE message SET data = ? WHERE id = ?").run("{not json", b.id);

    const listed = store.listMessages(session.id);
    expect(listed.map((m) => m.info.id)).toEqual([a.id, c.id]);
    expect(listed[1]!.parts).toHaveLength(1);
    expect(h.warnings).toEqual([expect.stringContaining(`message ${b.id}`)]);
    expect(h.warnings[0]).toMatch(/invalid JSON/);
    expect(store.getMessage(b.id)).toBeUndefined();
  });

  it("a part that no longer matches its schema is skipped with a warning", () => {
    const h = harness();
    const store = h.open();
    const session = store.createSession({ directory: "/repo" });
    const user = store.updateMessage(userMessage(session.id));
    const reply = store.updateMessage(assistantMessage(session.id, user.id));
    const good = store.updatePart(textPart(reply, "fine"));
    const bad = store.updatePart(toolPart(reply, { status: "pending", input: {}, raw: "" }));
    h.raw()
      .prepare("UPDATE part SET data = ? WHERE id = ?")
      .run(JSON.stringify({ type: "tool", id: bad.id, state: { status: "exploded" } }), bad.id);

    expect(store.getMessage(reply.id)!.parts).toEqual([good]);
    expect(store.listMessages(session.id)[1]!.parts).toEqual([good]);
    expect(h.warnings).toHaveLength(2);
    expect(h.warnings[0]).toContain(`part ${bad.id}`);
  });

  it("a damaged session is left out of the session list with a warning, and refuses updates", () => {
    const h = harness();
    const store = h.open();
    const ok = store.createSession({ directory: "/repo" });
    const broken = store.createSession({ directory: "/repo" });
    h.raw().prepare("UPDATE session SET data = '[]' WHERE id = ?").run(broken.id);

    expect(store.listSessions().map((s) => s.id)).toEqual([ok.id]);
    expect(store.getSession(broken.id)).toBeUndefined();
    expect(h.warnings).toHaveLength(2);
    expect(() => store.updateSession(broken.id, { title: "x" })).toThrow(expect.objectContaining({ code: "RECORD_CORRUPT" }));
    // Its messages can still be written: recording the conversation matters more than the session's metadata.
    expect(() => store.updateMessage(userMessage(broken.id))).not.toThrow();
  });

  it("appending to a part whose row is damaged fails with RECORD_CORRUPT instead of writing more garbage", () => {
    const h = harness();
    const store = h.open();
    const session = store.createSession({ directory: "/repo" });
    const user = store.updateMessage(userMessage(session.id));
    const part = store.updatePart(textPart(user, "x"));
    h.raw().prepare("UPDATE part SET data = 'garbage' WHERE id = ?").run(part.id);
    expect(() => store.appendPartText(part.id, "y")).toThrow(expect.objectContaining({ code: "RECORD_CORRUPT" }));
  });
});
