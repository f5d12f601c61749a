const MARKER = Symbol.for("tessera.session-store-error");

export const SessionStoreErrorCodes = {
  /** No session with that id (or the parent of a new child session does not exist). */
  SESSION_NOT_FOUND: "SESSION_NOT_FOUND",
  /** No message with that id in that session. */
  MESSAGE_NOT_FOUND: "MESSAGE_NOT_FOUND",
  /** No part with that id, or not one `appendPartText` can append to. */
  PART_NOT_FOUND: "PART_NOT_FOUND",
  /** A record to write did not match its schema, or tried to move to another session or message. */
  RECORD_INVALID: "RECORD_INVALID",
  /** A stored row the operation depends on is unreadable (invalid JSON or schema mismatch). */
  RECORD_CORRUPT: "RECORD_CORRUPT",
  /** The database was written by a newer Tessera, or a migration failed. */
  SCHEMA_UNSUPPORTED: "SCHEMA_UNSUPPORTED",
  /** A transaction callback returned a promise; node:sqlite transactions must be synchronous. */
  TRANSACTION_ASYNC: "TRANSACTION_ASYNC",
  /** The store was used after `close()`. */
  STORE_CLOSED: "STORE_CLOSED",
} as const;

export type SessionStoreErrorCode = (typeof SessionStoreErrorCodes)[keyof typeof SessionStoreErrorCodes];

/**
 * The session store's errors. Not a TesseraError: the kernel's error codes are a closed set owned
 * by errors.ts, and these codes are specific to storage. Carries a `Symbol.for` marker for the same
 * reason TesseraError does: `isInstance` must work across duplicate installs of the kernel.
 */
export class SessionStoreError extends Error {
  readonly [MARKER] = true;
  readonly code: SessionStoreErrorCode;

  constructor(code: SessionStoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "SessionStoreError";
    this.code = code;
  }

  static isInstance(value: unknown): value is SessionStoreError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}
