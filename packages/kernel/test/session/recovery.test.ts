import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { ABORTED_TOOL_ERROR } from "../../src/session/index.js";
import { assistantMessage, harness, toolPart, userMessage, type Harness } from "./helpers.js";

function turnInProgress(h: Harness) {
  const store = h.open();
  const session = store.createSession({ directory: "/repo" });
  const user = store.updateMessage(userMessage(session.id));
  const reply = store.updateMessage(assistantMessage(session.id, user.id, { time: { created: 100 } }));
  const running = store.updatePart(
    toolPart(reply, { status: "running", input: { command: "sleep 100" }, metadata: { pid: 1 }, time: { start: 150 } }),
  );
  const pending = store.updatePart(toolPart(reply, { status: "pending", input: {}, raw: '{"pa' }));
  return { store, session, reply, running, pending };
}

describe("crash recovery", () => {
  it("a tool left running when the store closed is an aborted error part after reopening", () => {
    const h = harness();
    const { store, running, pending, reply } = turnInProgress(h);
    store.close();

    const reopened = h.open();
    expect(reopened.recoveredOnOpen).toBe(3);
    const part = reopened.getPart(running.id)!;
    expect(part).toMatchObject({
      type: "tool",
      state: { status: "error", error: ABORTED_TOOL_ERROR, input: { command: "sleep 100" }, metadata: { pid: 1 } },
    });
    if (part.type !== "tool" || part.state.status !== "error") throw new Error("unreachable");
    expect(part.state.time.start).toBe(150);
    expect(part.state.time.end).toBeGreaterThanOrEqual(150);

    const wasPending = reopened.getPart(pending.id)!;
    expect(wasPending).toMatchObject({ state: { status: "error", error: "aborted" } });

    expect(reopened.getMessage(reply.id)!.info).toMatchObject({
      time: { completed: expect.any(Number) },
      error: { name: "AbortedError", message: "interrupted" },
    });
  });

  it("recovery keeps an error the interrupted message had already recorded", () => {
    const h = harness();
    const store = h.open();
    const session = store.createSession({ directory: "/repo" });
    const user = store.updateMessage(userMessage(session.id));
    const reply = store.updateMessage(
      assistantMessage(session.id, user.id, { error: { name: "APIError", message: "overloaded", retryable: true } }),
    );
    store.close();
    expect(h.open().getMessage(reply.id)!.info).toMatchObject({
      time: { completed: expect.any(Number) },
      error: { name: "APIError", message: "overloaded" },
    });
  });

  it("finished work is left untouched", () => {
    const h = harness();
    const store = h.open();
    const session = store.createSession({ directory: "/repo" });
    const user = store.updateMessage(userMessage(session.id));
    const reply = store.updateMessage(assistantMessage(session.id, user.id, { finish: "stop", time: { created: 1, completed: 2 } }));
    const done = store.updatePart(
      toolPart(reply, { status: "completed", input: {}, output: "ok", title: "t", metadata: {}, time: { start: 1, end: 2 } }),
    );
    store.close();
    const reopened = h.open();
    expect(reopened.recoveredOnOpen).toBe(0);
    expect(reopened.recoverInterrupted()).toBe(0);
    expect(reopened.getPart(done.id)).toEqual(done);
    expect(reopened.getMessage(reply.id)!.info).toEqual(reply);
  });

  it("opening a second store while the first is still working does not abort the first one's tools", () => {
    const h = harness();
    const { running } = turnInProgress(h);
    const second = h.open();
    expect(second.recoveredOnOpen).toBe(0);
    expect(second.recoverInterrupted()).toBe(0);
    expect(second.getPart(running.id)).toMatchObject({ state: { status: "running" } });
  });

  it("work left by a process that died without closing its store is recovered", () => {
    const h = harness();
    const { running } = turnInProgress(h);
    // Pretend the first store belongs to a process that has since exited (its pid is free now).
    const dead = spawnSync(process.execPath, ["-e", ""]).pid;
    h.raw().prepare("UPDATE store_instance SET pid = ?").run(dead);

    const survivor = h.open();
    expect(survivor.recoveredOnOpen).toBe(3);
    expect(survivor.getPart(running.id)).toMatchObject({ state: { status: "error", error: "aborted" } });
    expect(h.raw().prepare("SELECT count(*) AS n FROM store_instance").get()!["n"]).toBe(1);
  });

  it("recoverInterrupted can be called later, after another store has closed", () => {
    const h = harness();
    const watcher = h.open();
    const { store, running } = turnInProgress(h);
    expect(watcher.recoverInterrupted()).toBe(0);
    store.close();
    expect(watcher.recoverInterrupted()).toBe(3);
    expect(watcher.getPart(running.id)).toMatchObject({ state: { status: "error" } });
  });
});
