import { describe, expect, it } from "vitest";
import type { SessionStore } from "../../src/session/index.js";
import { assistantMessage, harness, textPart, toolPart, userMessage } from "./helpers.js";

function twoTurns(store: SessionStore) {
  const session = store.createSession({ directory: "/repo", title: "original" });
  const u1 = store.updateMessage(userMessage(session.id));
  store.updatePart(textPart(u1, "first question"));
  const a1 = store.updateMessage(assistantMessage(session.id, u1.id, { time: { created: 1, completed: 2 } }));
  store.updatePart(textPart(a1, "first answer"));
  store.updatePart(
    toolPart(a1, {
      status: "completed",
      input: { path: "a.png" },
      output: "image",
      title: "a.png",
      metadata: {},
      time: { start: 1, end: 2 },
      attachments: [{ id: "prt_att", sessionID: session.id, messageID: a1.id, type: "file", mediaType: "image/png", url: "data:," }],
    }),
  );
  const u2 = store.updateMessage(userMessage(session.id));
  store.updatePart(textPart(u2, "second question"));
  const a2 = store.updateMessage(assistantMessage(session.id, u2.id, { time: { created: 3, completed: 4 } }));
  store.updatePart(textPart(a2, "second answer"));
  return { session, u1, a1, u2, a2 };
}

const summary = (store: SessionStore, sessionID: string) =>
  store.listMessages(sessionID).map((m) => [m.info.role, m.parts.map((p) => (p.type === "text" ? p.text : p.type))]);

describe("fork", () => {
  it("a fork is a new session with the same conversation under new ids", () => {
    const store = harness().open();
    const { session } = twoTurns(store);
    const before = store.listMessages(session.id);
    const fork = store.fork(session.id);

    expect(fork.id).not.toBe(session.id);
    expect(fork).toMatchObject({ title: "original (fork)", directory: "/repo" });
    expect(fork.parentID).toBeUndefined();
    expect(summary(store, fork.id)).toEqual(summary(store, session.id));

    const copied = store.listMessages(fork.id);
    const originalIDs = new Set(before.flatMap((m) => [m.info.id, ...m.parts.map((p) => p.id)]));
    for (const { info, parts } of copied) {
      expect(info.sessionID).toBe(fork.id);
      expect(originalIDs.has(info.id)).toBe(false);
      for (const part of parts) {
        expect(part).toMatchObject({ sessionID: fork.id, messageID: info.id });
        expect(originalIDs.has(part.id)).toBe(false);
      }
    }
    expect(store.listMessages(session.id)).toEqual(before);
  });

  it("each copied answer points at the copied question, not the original", () => {
    const store = harness().open();
    const { session } = twoTurns(store);
    const fork = store.fork(session.id);
    const [u1, a1, u2, a2] = store.listMessages(fork.id).map((m) => m.info);
    expect(a1).toMatchObject({ role: "assistant", parentID: u1!.id });
    expect(a2).toMatchObject({ role: "assistant", parentID: u2!.id });
  });

  it("tool attachments in the copy belong to the copy", () => {
    const store = harness().open();
    const { session } = twoTurns(store);
    const fork = store.fork(session.id);
    const tool = store.listMessages(fork.id)[1]!.parts.find((p) => p.type === "tool")!;
    if (tool.type !== "tool" || tool.state.status !== "completed") throw new Error("expected a completed tool part");
    expect(tool.state.attachments![0]).toMatchObject({ sessionID: fork.id, messageID: tool.messageID });
    expect(tool.state.attachments![0]!.id).not.toBe("prt_att");
  });

  it("forking up to a message keeps that message and drops the ones after it", () => {
    const store = harness().open();
    const { session, a1 } = twoTurns(store);
    const fork = store.fork(session.id, a1.id);
    expect(summary(store, fork.id)).toEqual([
      ["user", ["first question"]],
      ["assistant", ["first answer", "tool"]],
    ]);
  });

  it("forking at a message of another session, or an unknown session, fails", () => {
    const store = harness().open();
    const { session } = twoTurns(store);
    const other = twoTurns(store);
    expect(() => store.fork(session.id, other.u1.id)).toThrow(expect.objectContaining({ code: "MESSAGE_NOT_FOUND" }));
    expect(() => store.fork("ses_missing")).toThrow(expect.objectContaining({ code: "SESSION_NOT_FOUND" }));
    expect(store.listSessions()).toHaveLength(2);
  });

  it("a fork outlives the deletion of its original", () => {
    const store = harness().open();
    const { session } = twoTurns(store);
    const fork = store.fork(session.id);
    store.deleteSession(session.id);
    expect(store.getSession(fork.id)).toEqual(fork);
    expect(store.listMessages(fork.id)).toHaveLength(4);
  });
});
