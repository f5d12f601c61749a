import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { tesseraPaths } from "../paths.js";

export const DATABASE_FILE = "tessera.db";
export const DEFAULT_BUSY_TIMEOUT_MS = 5000;

/** `<data dir>/tessera.db`, where the data dir honours TESSERA_DATA_DIR and XDG_DATA_HOME. */
export function defaultDatabasePath(env: NodeJS.ProcessEnv = process.env): string {
  return join(tesseraPaths(env).data, DATABASE_FILE);
}

export function openDatabase(path: string, busyTimeoutMs: number): DatabaseSync {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const db = new DatabaseSync(path, { enableForeignKeyConstraints: true });
  try {
    // busy_timeout first, so that switching to WAL waits for another process's lock instead of failing.
    db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
    // WAL lets readers in other processes (a second terminal, `tessera sessions`) run beside a writer;
    // NORMAL sync is durable in WAL except for the last commits on power loss, never corrupting.
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = NORMAL");
    db.exec("PRAGMA foreign_keys = ON");
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}
