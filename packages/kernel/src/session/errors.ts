import { ErrorCodes, TesseraError } from "../errors.js";

const MARKER = Symbol.for("tessera.session-store-error");

/** The session store's codes: part of the kernel's one table of error codes (errors.ts). */
export const SessionStoreErrorCodes = {
  SESSION_NOT_FOUND: ErrorCodes.SESSION_NOT_FOUND,
  MESSAGE_NOT_FOUND: ErrorCodes.MESSAGE_NOT_FOUND,
  PART_NOT_FOUND: ErrorCodes.PART_NOT_FOUND,
  RECORD_INVALID: ErrorCodes.RECORD_INVALID,
  RECORD_CORRUPT: ErrorCodes.RECORD_CORRUPT,
  SCHEMA_UNSUPPORTED: ErrorCodes.SCHEMA_UNSUPPORTED,
  TRANSACTION_ASYNC: ErrorCodes.TRANSACTION_ASYNC,
  STORE_CLOSED: ErrorCodes.STORE_CLOSED,
} as const;

export type SessionStoreErrorCode = (typeof SessionStoreErrorCodes)[keyof typeof SessionStoreErrorCodes];

/** A session store failure: a TesseraError with one of the store's codes. */
export class SessionStoreError extends TesseraError {
  readonly [MARKER] = true;
  declare readonly code: SessionStoreErrorCode;

  constructor(code: SessionStoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = "SessionStoreError";
  }

  static override isInstance(value: unknown): value is SessionStoreError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}
