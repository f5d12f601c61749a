import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { IdGenerator } from "./ids.js";

/** What the store's operations share: one connection, this store's identity, and its injected effects. */
export interface StoreContext {
  readonly db: DatabaseSync;
  /** This open store's id; written on every message and part so recovery knows whose rows are whose. */
  readonly owner: string;
  readonly warn: (message: string) => void;
  readonly now: () => number;
  readonly newId: IdGenerator;
  /** A cached prepared statement: streaming calls the same few statements thousands of times. */
  statement(sql: string): StatementSync;
}

export function createContext(
  db: DatabaseSync,
  fields: Omit<StoreContext, "db" | "statement">,
): StoreContext {
  const cache = new Map<string, StatementSync>();
  return {
    db,
    ...fields,
    statement(sql) {
      let statement = cache.get(sql);
      if (!statement) {
        statement = db.prepare(sql);
        cache.set(sql, statement);
      }
      return statement;
    },
  };
}
