import { randomUUID } from "node:crypto";
import type { DatabaseSync } from "node:sqlite";
import { stderrSink } from "../logger.js";
import { createContext, type StoreContext } from "./context.js";
import { DEFAULT_BUSY_TIMEOUT_MS, defaultDatabasePath, openDatabase } from "./database.js";
import { SessionStoreError } from "./errors.js";
import { forkSession } from "./fork.js";
import { newId as defaultNewId, type IdGenerator } from "./ids.js";
import { registerInstance, unregisterInstance } from "./instances.js";
import type { Message } from "./message.js";
import * as messages from "./messages.js";
import type { MessagePage, MessageWithParts } from "./messages.js";
import { migrate } from "./migrations.js";
import type { Part } from "./part.js";
import { recoverInterrupted } from "./recover.js";
import type { SessionInfo } from "./session-info.js";
import * as sessions from "./sessions.js";
import type { CreateSessionInput, ListSessionsOptions, SessionPatch } from "./sessions.js";
import { transaction } from "./transaction.js";

export interface SessionStoreOptions {
  /** The database file, or ":memory:". Default: `<data dir>/tessera.db` (see `tesseraPaths`). */
  path?: string;
  /** Environment used to find the data dir (TESSERA_DATA_DIR, XDG_DATA_HOME, HOME). Default: process.env. */
  env?: NodeJS.ProcessEnv;
  /** Receives one line per damaged row skipped while reading. Default: a `[warn]` line on stderr. */
  warn?: (message: string) => void;
  /** Clock for session and message times. Default: Date.now. */
  now?: () => number;
  /** Id generator. Default: the process-wide ascending generator. */
  newId?: IdGenerator;
  /** How long a write waits for another process's lock before failing. Default: 5000 ms. */
  busyTimeoutMs?: number;
}

const defaultWarn = (message: string) => stderrSink({ time: Date.now(), level: "warn", tag: "session-store", message });

/**
 * Sessions, messages and parts in SQLite. Opening migrates the schema and recovers what a crashed
 * process left half-done; every write is one transaction. All methods are synchronous (node:sqlite is).
 */
export class SessionStore {
  /** The database file (or ":memory:"). */
  readonly path: string;
  /** How many interrupted parts and messages were recovered when the store opened. */
  readonly recoveredOnOpen: number;
  readonly #db: DatabaseSync;
  readonly #ctx: StoreContext;
  #closed = false;

  constructor(options: SessionStoreOptions | string = {}) {
    const opts = typeof options === "string" ? { path: options } : options;
    this.path = opts.path ?? defaultDatabasePath(opts.env);
    this.#db = openDatabase(this.path, opts.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS);
    this.#ctx = createContext(this.#db, {
      owner: `ins_${randomUUID()}`,
      warn: opts.warn ?? defaultWarn,
      now: opts.now ?? Date.now,
      newId: opts.newId ?? defaultNewId,
    });
    try {
      migrate(this.#db);
      transaction(this.#db, () => registerInstance(this.#ctx));
      this.recoveredOnOpen = recoverInterrupted(this.#ctx);
    } catch (error) {
      this.#db.close();
      throw error;
    }
  }

  // Sessions

  createSession(input: CreateSessionInput): SessionInfo {
    return sessions.createSession(this.#open(), input);
  }

  /** The session, or undefined when it does not exist (or its row is damaged, which is reported through `warn`). */
  getSession(id: string): SessionInfo | undefined {
    return sessions.getSession(this.#open(), id);
  }

  /** Most recently updated first. */
  listSessions(options?: ListSessionsOptions): SessionInfo[] {
    return sessions.listSessions(this.#open(), options);
  }

  /** Applies the patch and bumps `time.updated`. Throws SESSION_NOT_FOUND. */
  updateSession(id: string, patch: SessionPatch): SessionInfo {
    return sessions.updateSession(this.#open(), id, patch);
  }

  /** Deletes the session with its messages, parts and child sessions. False when it did not exist. */
  deleteSession(id: string): boolean {
    return sessions.deleteSession(this.#open(), id);
  }

  /** Copies the session's messages and parts (up to and including `upToMessageID`) into a new session. */
  fork(sessionID: string, upToMessageID?: string): SessionInfo {
    return forkSession(this.#open(), sessionID, upToMessageID);
  }

  // Messages and parts

  /** Creates or replaces a message's own record (not its parts) and bumps its session's `time.updated`. */
  updateMessage<M extends Message>(message: M): M {
    return messages.updateMessage(this.#open(), message);
  }

  /** Creates or replaces one part: one row written, whatever the size of the message. */
  updatePart<P extends Part>(part: P): P {
    return messages.updatePart(this.#open(), part);
  }

  /** Appends streamed text to a text or reasoning part without resending it. Throws PART_NOT_FOUND. */
  appendPartText(partID: string, delta: string): void {
    messages.appendPartText(this.#open(), partID, delta);
  }

  getMessage(messageID: string): MessageWithParts | undefined {
    return messages.getMessage(this.#open(), messageID);
  }

  getPart(partID: string): Part | undefined {
    return messages.getPart(this.#open(), partID);
  }

  /** A session's messages with their parts, in ascending id order; damaged rows are skipped and reported. */
  listMessages(sessionID: string, page?: MessagePage): MessageWithParts[] {
    return messages.listMessages(this.#open(), sessionID, page);
  }

  removeMessage(messageID: string): boolean {
    return messages.removeMessage(this.#open(), messageID);
  }

  removePart(partID: string): boolean {
    return messages.removePart(this.#open(), partID);
  }

  // Whole-store operations

  /**
   * Runs several writes as one: if `fn` throws, none of them land. `fn` must be synchronous.
   * Store methods called inside join this transaction.
   */
  transaction<T>(fn: () => T): T {
    return transaction(this.#open().db, fn);
  }

  /** Marks work left unfinished by stores that are gone as aborted; runs on open too. Returns the count. */
  recoverInterrupted(): number {
    return recoverInterrupted(this.#open());
  }

  /** Closes the database. Idempotent. Anything this store left unfinished is recovered by the next store to open. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      transaction(this.#db, () => unregisterInstance(this.#ctx));
    } finally {
      this.#db.close();
    }
  }

  #open(): StoreContext {
    if (this.#closed) throw new SessionStoreError("STORE_CLOSED", `the session store at ${this.path} is closed`);
    return this.#ctx;
  }
}
