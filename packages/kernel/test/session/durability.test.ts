import { describe, expect, it } from "vitest";
import { SCHEMA_VERSION } from "../../src/session/index.js";
import { harness, textPart, userMessage } from "./helpers.js";

describe("durability", () => {
  it("reopening a database keeps its data and does not run migrations again", () => {
    const h = harness();
    const first = h.open();
    const session = first.createSession({ directory: "/repo" });
    const user = first.updateMessage(userMessage(session.id));
    first.updatePart(textPart(user, "hello"));
    const saved = first.getSession(session.id);
    first.close();

    const raw = h.raw();
    expect(raw.prepare("PRAGMA user_version").get()!["user_version"]).toBe(SCHEMA_VERSION);
    // Drop an index migration 1 creates: if reopening ran migrations again, it would come back (or fail).
    raw.exec("DROP INDEX message_session");
    raw.close();

    const second = h.open();
    expect(second.getSession(session.id)).toEqual(saved);
    expect(second.listMessages(session.id)[0]!.parts[0]).toMatchObject({ text: "hello" });
    const index = h.raw().prepare("SELECT name FROM sqlite_master WHERE name = 'message_session'").get();
    expect(index).toBeUndefined();
  });

  it("a database written by a newer Tessera is refused rather than misread", () => {
    const h = harness();
    h.open().close();
    const raw = h.raw();
    raw.exec(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
    raw.close();
    expect(() => h.open()).toThrow(expect.objectContaining({ code: "SCHEMA_UNSUPPORTED" }));
  });

  it("the database file uses WAL, so other processes can read while a turn is being written", () => {
    const h = harness();
    h.open();
    expect(h.raw().prepare("PRAGMA journal_mode").get()!["journal_mode"]).toBe("wal");
  });

  it("a write waits for another process's lock up to the busy timeout, then fails", () => {
    const h = harness();
    const store = h.open({ busyTimeoutMs: 150 });
    const session = store.createSession({ directory: "/repo" });
    const other = h.raw();
    other.exec("BEGIN IMMEDIATE");
    const started = Date.now();
    expect(() => store.updateSession(session.id, { title: "x" })).toThrow(/locked|busy/i);
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
    other.exec("ROLLBACK");
    expect(store.updateSession(session.id, { title: "x" }).title).toBe("x");
  });

  it("writes grouped in a transaction that throws midway leave nothing behind", () => {
    const h = harness();
    const store = h.open();
    const kept = store.createSession({ directory: "/repo" });
    expect(() =>
      store.transaction(() => {
        const session = store.createSession({ directory: "/repo" });
        const user = store.updateMessage(userMessage(session.id));
        store.updatePart(textPart(user, "half"));
        store.updateSession(kept.id, { title: "changed" });
        throw new Error("crash midway");
      }),
    ).toThrow("crash midway");
    expect(store.listSessions().map((s) => [s.id, s.title])).toEqual([[kept.id, kept.title]]);
    expect(h.raw().prepare("SELECT (SELECT count(*) FROM message) + (SELECT count(*) FROM part) AS n").get()!["n"]).toBe(0);
  });

  it("a fork that fails midway leaves no partial copy", () => {
    const h = harness();
    const store = h.open();
    const session = store.createSession({ directory: "/repo" });
    for (let i = 0; i < 3; i++) store.updatePart(textPart(store.updateMessage(userMessage(session.id)), `m${i}`));
    // Make the third copied part fail to insert.
    h.raw().exec(`
      CREATE TRIGGER fail_third_copy BEFORE INSERT ON part
      WHEN new.session_id <> '${session.id}' AND (SELECT count(*) FROM part WHERE session_id = new.session_id) = 2
      BEGIN SELECT RAISE(ABORT, 'disk on fire'); END;
    `);
    expect(() => store.fork(session.id)).toThrow("disk on fire");
    expect(store.listSessions().map((s) => s.id)).toEqual([session.id]);
    expect(h.raw().prepare("SELECT count(*) AS n FROM message").get()!["n"]).toBe(3);
  });

  it("an inner transaction that fails is undone while the outer one's writes still land", () => {
    const store = harness().open();
    const outer = store.transaction(() => {
      const session = store.createSession({ directory: "/repo", title: "outer" });
      try {
        store.transaction(() => {
          store.updateSession(session.id, { title: "inner" });
          throw new Error("inner fails");
        });
      } catch {
        // the caller chose to carry on
      }
      return session;
    });
    expect(store.getSession(outer.id)!.title).toBe("outer");
  });

  it("an async transaction callback is refused and rolled back", () => {
    const store = harness().open();
    expect(() =>
      store.transaction(async () => {
        store.createSession({ directory: "/repo" });
      }),
    ).toThrow(expect.objectContaining({ code: "TRANSACTION_ASYNC" }));
    expect(store.listSessions()).toEqual([]);
  });

  it("a closed store refuses further use, and closing twice is harmless", () => {
    const store = harness().open();
    store.close();
    store.close();
    expect(() => store.listSessions()).toThrow(expect.objectContaining({ code: "STORE_CLOSED" }));
  });

  it("two stores on one file see each other's writes", () => {
    const h = harness();
    const a = h.open();
    const b = h.open();
    const session = a.createSession({ directory: "/repo" });
    b.updateMessage(userMessage(session.id));
    expect(a.listMessages(session.id)).toHaveLength(1);
  });
});
