import type { DatabaseSync } from "node:sqlite";
import { SessionStoreError } from "./errors.js";

const depth = new WeakMap<DatabaseSync, number>();

/**
 * Runs `fn` in a transaction: all of its writes land, or none do. The outermost call takes the
 * write lock up front (BEGIN IMMEDIATE), so it waits on busy_timeout rather than failing halfway
 * when another process writes; nested calls use savepoints, so a caller that catches an inner
 * failure keeps its own writes but none of the inner ones.
 *
 * `fn` must be synchronous: node:sqlite is, and an await inside would let other writes of this
 * connection slip into the transaction.
 */
export function transaction<T>(db: DatabaseSync, fn: () => T): T {
  const level = depth.get(db) ?? 0;
  const savepoint = `tessera_${level}`;
  db.exec(level === 0 ? "BEGIN IMMEDIATE" : `SAVEPOINT ${savepoint}`);
  depth.set(db, level + 1);
  try {
    const result = fn();
    if (isThenable(result)) {
      throw new SessionStoreError("TRANSACTION_ASYNC", "a session store transaction callback must be synchronous");
    }
    db.exec(level === 0 ? "COMMIT" : `RELEASE ${savepoint}`);
    return result;
  } catch (error) {
    // SQLite rolls back by itself on some errors (SQLITE_FULL, I/O); rolling back again would throw
    // and hide the original error.
    if (db.isTransaction) {
      db.exec(level === 0 ? "ROLLBACK" : `ROLLBACK TO ${savepoint}; RELEASE ${savepoint}`);
    }
    throw error;
  } finally {
    depth.set(db, level);
  }
}

function isThenable(value: unknown): boolean {
  return typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function";
}
