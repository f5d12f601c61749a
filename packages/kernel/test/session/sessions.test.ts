import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ErrorCodes, TesseraError } from "../../src/errors.js";
import { SessionStore, SessionStoreError } from "../../src/session/index.js";
import { assistantMessage, harness, tempDir, textPart, userMessage } from "./helpers.js";

describe("sessions", () => {
  it("a created session can be read back, with a generated id, title and times", () => {
    const store = harness().open();
    const session = store.createSession({ directory: "/repo" });
    expect(session.id).toMatch(/^ses_/);
    expect(session.title).toMatch(/^New session - /);
    expect(session.time.updated).toBe(session.time.created);
    expect(store.getSession(session.id)).toEqual(session);
    expect(store.getSession("ses_missing")).toBeUndefined();
  });

  it("a child session needs an existing parent", () => {
    const store = harness().open();
    const parent = store.createSession({ directory: "/repo" });
    const child = store.createSession({ directory: "/repo", parentID: parent.id });
    expect(child.parentID).toBe(parent.id);
    expect(child.title).toMatch(/^Child session - /);
    expect(() => store.createSession({ directory: "/repo", parentID: "ses_nope" })).toThrow(
      expect.objectContaining({ code: "SESSION_NOT_FOUND" }),
    );
  });

  it("store errors are kernel errors: a code from the one table, recognised by TesseraError.isInstance", () => {
    const store = harness().open();
    let caught: unknown;
    try {
      store.updateSession("ses_nope", { title: "x" });
    } catch (error) {
      caught = error;
    }
    expect(SessionStoreError.isInstance(caught)).toBe(true);
    expect(TesseraError.isInstance(caught)).toBe(true);
    expect(caught).toMatchObject({ code: ErrorCodes.SESSION_NOT_FOUND, name: "SessionStoreError" });
  });

  it("sessions are listed most recently updated first, and updating one moves it to the top", () => {
    const store = harness().open();
    const a = store.createSession({ directory: "/repo", title: "a" });
    const b = store.createSession({ directory: "/repo", title: "b" });
    const c = store.createSession({ directory: "/repo", title: "c" });
    expect(store.listSessions().map((s) => s.title)).toEqual(["c", "b", "a"]);
    store.updateSession(a.id, { title: "a2" });
    expect(store.listSessions().map((s) => s.id)).toEqual([a.id, c.id, b.id]);
    expect(store.listSessions({ limit: 2 }).map((s) => s.id)).toEqual([a.id, c.id]);
  });

  it("a new message moves its session to the top of the list", () => {
    const store = harness().open();
    const old = store.createSession({ directory: "/repo" });
    const recent = store.createSession({ directory: "/repo" });
    store.updateMessage(userMessage(old.id));
    expect(store.listSessions().map((s) => s.id)).toEqual([old.id, recent.id]);
    expect(store.getSession(old.id)!.time.updated).toBeGreaterThan(recent.time.updated);
  });

  it("sessions can be listed by parent, top-level only, or by directory", () => {
    const store = harness().open();
    const root = store.createSession({ directory: "/a" });
    const child = store.createSession({ directory: "/a", parentID: root.id });
    const other = store.createSession({ directory: "/b" });
    expect(store.listSessions({ parentID: root.id }).map((s) => s.id)).toEqual([child.id]);
    expect(store.listSessions({ parentID: null }).map((s) => s.id)).toEqual([other.id, root.id]);
    expect(store.listSessions({ directory: "/b" }).map((s) => s.id)).toEqual([other.id]);
  });

  it("updating a session patches only the given fields and bumps time.updated", () => {
    const store = harness().open();
    const session = store.createSession({ directory: "/repo", title: "before" });
    const updated = store.updateSession(session.id, { title: "after" });
    expect(updated).toMatchObject({ id: session.id, title: "after", directory: "/repo" });
    expect(updated.time.created).toBe(session.time.created);
    expect(updated.time.updated).toBeGreaterThan(session.time.updated);
    expect(store.getSession(session.id)).toEqual(updated);
  });

  it("a revert point can be set and cleared", () => {
    const store = harness().open();
    const session = store.createSession({ directory: "/repo" });
    const revert = { messageID: "msg_x", snapshot: "abc" };
    expect(store.updateSession(session.id, { revert }).revert).toEqual(revert);
    expect(store.getSession(session.id)!.revert).toEqual(revert);
    expect(store.updateSession(session.id, { revert: null }).revert).toBeUndefined();
    expect(store.getSession(session.id)!.revert).toBeUndefined();
  });

  it("updating a session that does not exist fails with SESSION_NOT_FOUND", () => {
    const store = harness().open();
    const error = (() => {
      try {
        store.updateSession("ses_missing", { title: "x" });
      } catch (e) {
        return e;
      }
    })();
    expect(SessionStoreError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "SESSION_NOT_FOUND" });
  });

  it("deleting a session deletes its messages, parts and all descendant sessions", () => {
    const h = harness();
    const store = h.open();
    const root = store.createSession({ directory: "/repo" });
    const child = store.createSession({ directory: "/repo", parentID: root.id });
    const grandchild = store.createSession({ directory: "/repo", parentID: child.id });
    const keep = store.createSession({ directory: "/repo" });
    for (const session of [root, grandchild, keep]) {
      const user = store.updateMessage(userMessage(session.id));
      store.updatePart(textPart(user, "hello"));
    }

    expect(store.deleteSession(root.id)).toBe(true);
    expect(store.listSessions().map((s) => s.id)).toEqual([keep.id]);
    const raw = h.raw();
    expect(raw.prepare("SELECT DISTINCT session_id FROM message").all().map((r) => r["session_id"])).toEqual([keep.id]);
    expect(raw.prepare("SELECT DISTINCT session_id FROM part").all().map((r) => r["session_id"])).toEqual([keep.id]);
    expect(store.deleteSession(root.id)).toBe(false);
  });

  it("unknown keys in a written record are not stored", () => {
    const h = harness();
    const store = h.open();
    const session = store.createSession({ directory: "/repo" });
    const user = userMessage(session.id);
    store.updateMessage({ ...user, sneaky: true } as typeof user);
    const data = h.raw().prepare("SELECT data FROM message WHERE id = ?").get(user.id)!["data"];
    expect(JSON.parse(String(data))).toEqual(user);
  });

  it("without a path the database lives in TESSERA_DATA_DIR, else in XDG_DATA_HOME/tessera", () => {
    const dir = tempDir();
    const a = new SessionStore({ env: { TESSERA_DATA_DIR: join(dir, "data") }, warn: () => {} });
    a.close();
    expect(a.path).toBe(join(dir, "data", "tessera.db"));
    expect(existsSync(a.path)).toBe(true);

    const b = new SessionStore({ env: { XDG_DATA_HOME: join(dir, "xdg") }, warn: () => {} });
    b.close();
    expect(b.path).toBe(join(dir, "xdg", "tessera", "tessera.db"));
    expect(existsSync(b.path)).toBe(true);
  });

  it("an in-memory store works for tests", () => {
    const store = new SessionStore(":memory:");
    const session = store.createSession({ directory: "/repo" });
    const user = store.updateMessage(userMessage(session.id));
    const reply = store.updateMessage(assistantMessage(session.id, user.id, { time: { created: 1, completed: 2 } }));
    expect(store.listMessages(session.id).map((m) => m.info.id)).toEqual([user.id, reply.id]);
    store.close();
  });
});
