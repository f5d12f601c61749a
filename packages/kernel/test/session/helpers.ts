import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { onTestFinished } from "vitest";
import {
  newId,
  SessionStore,
  type AssistantMessage,
  type SessionStoreOptions,
  type TextPart,
  type ToolPart,
  type ToolState,
  type UserMessage,
} from "../../src/session/index.js";

/** A fresh temp directory, removed when the test ends. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "tessera-session-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface Harness {
  dir: string;
  path: string;
  warnings: string[];
  /** Opens (or reopens) a store on the harness's database; closed when the test ends. */
  open(options?: SessionStoreOptions): SessionStore;
  /** A raw connection to the same file, for inspecting or damaging rows behind the store's back. */
  raw(): DatabaseSync;
}

/** A clock that ticks 1 ms per reading, so "newer" is deterministic without sleeping. */
export function tickingClock(start = 1_700_000_000_000): () => number {
  let time = start;
  return () => time++;
}

export function harness(): Harness {
  const dir = tempDir();
  const path = join(dir, "tessera.db");
  const warnings: string[] = [];
  const now = tickingClock();
  return {
    dir,
    path,
    warnings,
    open(options = {}) {
      const store = new SessionStore({ path, warn: (m) => warnings.push(m), now, ...options });
      onTestFinished(() => store.close());
      return store;
    },
    raw() {
      const db = new DatabaseSync(path);
      onTestFinished(() => {
        if (db.isOpen) db.close();
      });
      return db;
    },
  };
}

export function userMessage(sessionID: string, extra: Partial<UserMessage> = {}): UserMessage {
  return {
    id: newId("message"),
    sessionID,
    role: "user",
    time: { created: Date.now() },
    agent: "build",
    model: { providerID: "anthropic", modelID: "claude-sonnet-4" },
    ...extra,
  };
}

export function assistantMessage(sessionID: string, parentID: string, extra: Partial<AssistantMessage> = {}): AssistantMessage {
  return {
    id: newId("message"),
    sessionID,
    role: "assistant",
    parentID,
    providerID: "anthropic",
    modelID: "claude-sonnet-4",
    agent: "build",
    time: { created: Date.now() },
    cost: 0,
    tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
    ...extra,
  };
}

export function textPart(message: { id: string; sessionID: string }, text: string): TextPart {
  return { id: newId("part"), sessionID: message.sessionID, messageID: message.id, type: "text", text };
}

export function toolPart(message: { id: string; sessionID: string }, state: ToolState): ToolPart {
  return {
    id: newId("part"),
    sessionID: message.sessionID,
    messageID: message.id,
    type: "tool",
    callID: `call_${Math.random().toString(36).slice(2)}`,
    tool: "bash",
    state,
  };
}
