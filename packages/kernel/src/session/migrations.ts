import type { DatabaseSync } from "node:sqlite";
import { SessionStoreError } from "./errors.js";
import { transaction } from "./transaction.js";

export interface Migration {
  /** What the migration does, for error messages. */
  readonly name: string;
  readonly up: (db: DatabaseSync) => void;
}

/**
 * The schema's history, oldest first. Migration N (1-based) brings `PRAGMA user_version` to N.
 * Append only: never edit or reorder a migration that has shipped, since existing databases have
 * already run it.
 *
 * Rows keep the record as JSON (`data`, the zod schema's output) plus the columns queries filter
 * and sort on. `unfinished`/`owner` let crash recovery find interrupted rows through a small
 * partial index instead of parsing every part on every start.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    name: "create session, message, part and store_instance tables",
    up: (db) =>
      db.exec(`
        CREATE TABLE session (
          id TEXT PRIMARY KEY,
          parent_id TEXT REFERENCES session(id) ON DELETE CASCADE,
          directory TEXT NOT NULL,
          time_created INTEGER NOT NULL,
          time_updated INTEGER NOT NULL,
          data TEXT NOT NULL
        ) STRICT;
        CREATE INDEX session_updated ON session(time_updated DESC, id DESC);
        CREATE INDEX session_parent ON session(parent_id, time_updated DESC);

        CREATE TABLE message (
          id TEXT PRIMARY KEY,
          session_id TEXT NOT NULL REFERENCES session(id) ON DELETE CASCADE,
          role TEXT NOT NULL,
          time_created INTEGER NOT NULL,
          unfinished INTEGER NOT NULL DEFAULT 0,
          owner TEXT,
          data TEXT NOT NULL,
          UNIQUE (id, session_id)
        ) STRICT;
        CREATE INDEX message_session ON message(session_id, id);
        CREATE INDEX message_unfinished ON message(owner) WHERE unfinished = 1;

        CREATE TABLE part (
          id TEXT PRIMARY KEY,
          message_id TEXT NOT NULL,
          session_id TEXT NOT NULL,
          type TEXT NOT NULL,
          unfinished INTEGER NOT NULL DEFAULT 0,
          owner TEXT,
          data TEXT NOT NULL,
          -- The pair, not message_id alone: a part can never claim a session its message is not in.
          FOREIGN KEY (message_id, session_id) REFERENCES message(id, session_id) ON DELETE CASCADE
        ) STRICT;
        CREATE INDEX part_message ON part(message_id, id);
        CREATE INDEX part_session ON part(session_id, message_id, id);
        CREATE INDEX part_unfinished ON part(owner) WHERE unfinished = 1;

        -- Open stores, so recovery can tell a dead process's interrupted rows from a live one's.
        CREATE TABLE store_instance (
          id TEXT PRIMARY KEY,
          pid INTEGER NOT NULL,
          host TEXT NOT NULL,
          started INTEGER NOT NULL
        ) STRICT;
      `),
  },
];

export const SCHEMA_VERSION = MIGRATIONS.length;

function userVersion(db: DatabaseSync): number {
  const row = db.prepare("PRAGMA user_version").get();
  return Number(row?.["user_version"] ?? 0);
}

/** Brings the database up to SCHEMA_VERSION in one transaction; a no-op when it is already there. */
export function migrate(db: DatabaseSync, migrations: readonly Migration[] = MIGRATIONS): number {
  const target = migrations.length;
  // Cheap check outside the write lock: reopening an up-to-date database takes no lock at all.
  if (userVersion(db) === target) return 0;
  return transaction(db, () => {
    // Re-read under the lock: another process may have migrated while this one waited.
    const current = userVersion(db);
    if (current > target) {
      throw new SessionStoreError(
        "SCHEMA_UNSUPPORTED",
        `the session database is at schema version ${current}, newer than this Tessera's ${target}; upgrade Tessera`,
      );
    }
    for (let version = current + 1; version <= target; version++) {
      const migration = migrations[version - 1]!;
      try {
        migration.up(db);
      } catch (error) {
        throw new SessionStoreError(
          "SCHEMA_UNSUPPORTED",
          `session database migration ${version} (${migration.name}) failed: ${(error as Error).message}`,
          { cause: error },
        );
      }
    }
    // PRAGMA takes no bound parameters; target is a number we computed.
    db.exec(`PRAGMA user_version = ${target}`);
    return target - current;
  });
}
