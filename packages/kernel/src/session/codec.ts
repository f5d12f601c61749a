import type { SQLOutputValue } from "node:sqlite";
import type { z } from "zod";
import { SessionStoreError } from "./errors.js";

/**
 * Validates a record before it is written; the parsed output (unknown keys stripped) is what gets
 * stored, so the database only ever holds what the schema describes.
 */
export function encode<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new SessionStoreError("RECORD_INVALID", `invalid ${what}: ${describeIssues(result.error)}`, {
      cause: result.error,
    });
  }
  return result.data;
}

export type DecodeResult<T> = { ok: true; value: T } | { ok: false; reason: string };

/** Reads a stored row's JSON back through its schema. Never throws: damage is data, not a crash. */
export function decode<S extends z.ZodType>(schema: S, data: SQLOutputValue | undefined): DecodeResult<z.output<S>> {
  if (typeof data !== "string") return { ok: false, reason: "no JSON text" };
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch (error) {
    return { ok: false, reason: `invalid JSON (${(error as Error).message})` };
  }
  const result = schema.safeParse(json);
  return result.success ? { ok: true, value: result.data } : { ok: false, reason: describeIssues(result.error) };
}

/**
 * For listings: a damaged row is reported through `warn` and skipped, so one bad row (a crash
 * mid-write by an old version, a hand edit) never hides the rest of a session.
 */
export function decodeOrWarn<S extends z.ZodType>(
  schema: S,
  data: SQLOutputValue | undefined,
  what: string,
  warn: (message: string) => void,
): z.output<S> | undefined {
  const result = decode(schema, data);
  if (result.ok) return result.value;
  warn(`session store: skipped unreadable ${what}: ${result.reason}`);
  return undefined;
}

/** For operations that must read a row to change it: damage is an error, since guessing would lose data. */
export function decodeOrThrow<S extends z.ZodType>(schema: S, data: SQLOutputValue | undefined, what: string): z.output<S> {
  const result = decode(schema, data);
  if (result.ok) return result.value;
  throw new SessionStoreError("RECORD_CORRUPT", `${what} is unreadable: ${result.reason}`);
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length ? issue.path.join(".") : "(root)"}: ${issue.message}`)
    .join("; ");
}

/** SQLITE_CONSTRAINT_FOREIGNKEY: the referenced session or message does not exist. */
export function isForeignKeyError(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { errcode?: unknown }).errcode === 787;
}
