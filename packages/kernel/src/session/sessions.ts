import { decodeOrThrow, decodeOrWarn, encode, isForeignKeyError } from "./codec.js";
import type { StoreContext } from "./context.js";
import { SessionStoreError } from "./errors.js";
import { SessionInfoSchema, type SessionInfo, type SessionRevert } from "./session-info.js";
import { transaction } from "./transaction.js";

export interface CreateSessionInput {
  directory: string;
  /** Default: "New session - <ISO time>" ("Child session - …" for a child). */
  title?: string;
  /** Makes this a child (subagent) session of an existing session. */
  parentID?: string;
}

export interface SessionPatch {
  title?: string;
  directory?: string;
  /** `null` clears the revert point. */
  revert?: SessionRevert | null;
}

export interface ListSessionsOptions {
  /** A session id: only its children. `null`: only top-level sessions. Unset: all. */
  parentID?: string | null;
  /** Only sessions run in this directory. */
  directory?: string;
  limit?: number;
}

/**
 * Upsert by id. Never `INSERT OR REPLACE`: that deletes the old row first, and the delete would
 * cascade to the session's messages and child sessions.
 */
export function writeSession(ctx: StoreContext, input: SessionInfo): SessionInfo {
  const info = encode(SessionInfoSchema, input, "session");
  try {
    ctx
      .statement(
        `INSERT INTO session (id, parent_id, directory, time_created, time_updated, data)
         VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT(id) DO UPDATE SET parent_id = excluded.parent_id, directory = excluded.directory,
           time_created = excluded.time_created, time_updated = excluded.time_updated, data = excluded.data`,
      )
      .run(info.id, info.parentID ?? null, info.directory, info.time.created, info.time.updated, JSON.stringify(info));
  } catch (error) {
    if (isForeignKeyError(error)) {
      throw new SessionStoreError("SESSION_NOT_FOUND", `parent session ${info.parentID} not found`, { cause: error });
    }
    throw error;
  }
  return info;
}

export function createSession(ctx: StoreContext, input: CreateSessionInput): SessionInfo {
  const now = ctx.now();
  const title = input.title ?? `${input.parentID ? "Child" : "New"} session - ${new Date(now).toISOString()}`;
  const info: SessionInfo = {
    id: ctx.newId("session"),
    title,
    directory: input.directory,
    time: { created: now, updated: now },
    ...(input.parentID !== undefined && { parentID: input.parentID }),
  };
  return transaction(ctx.db, () => writeSession(ctx, info));
}

export function getSession(ctx: StoreContext, id: string): SessionInfo | undefined {
  const row = ctx.statement("SELECT data FROM session WHERE id = ?").get(id);
  if (!row) return undefined;
  return decodeOrWarn(SessionInfoSchema, row["data"], `session ${id}`, ctx.warn);
}

/** For writes that start from the stored session: a missing or damaged session is an error. */
export function requireSession(ctx: StoreContext, id: string): SessionInfo {
  const row = ctx.statement("SELECT data FROM session WHERE id = ?").get(id);
  if (!row) throw new SessionStoreError("SESSION_NOT_FOUND", `session ${id} not found`);
  return decodeOrThrow(SessionInfoSchema, row["data"], `session ${id}`);
}

export function listSessions(ctx: StoreContext, options: ListSessionsOptions = {}): SessionInfo[] {
  const where: string[] = [];
  const params: (string | number)[] = [];
  if (options.parentID === null) where.push("parent_id IS NULL");
  else if (options.parentID !== undefined) {
    where.push("parent_id = ?");
    params.push(options.parentID);
  }
  if (options.directory !== undefined) {
    where.push("directory = ?");
    params.push(options.directory);
  }
  params.push(options.limit ?? -1);
  const rows = ctx
    .statement(
      `SELECT id, data FROM session ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
       ORDER BY time_updated DESC, id DESC LIMIT ?`,
    )
    .all(...params);
  const sessions: SessionInfo[] = [];
  for (const row of rows) {
    const info = decodeOrWarn(SessionInfoSchema, row["data"], `session ${String(row["id"])}`, ctx.warn);
    if (info) sessions.push(info);
  }
  return sessions;
}

export function updateSession(ctx: StoreContext, id: string, patch: SessionPatch): SessionInfo {
  return transaction(ctx.db, () => {
    const current = requireSession(ctx, id);
    const { revert, ...rest } = patch;
    // Never backwards, even if the clock stepped back: "updated" orders the session list.
    const updated = Math.max(ctx.now(), current.time.updated);
    const next: SessionInfo = { ...current, ...stripUndefined(rest), time: { ...current.time, updated } };
    if (revert === null) delete next.revert;
    else if (revert !== undefined) next.revert = revert;
    return writeSession(ctx, next);
  });
}

/** Deletes the session, its messages and parts, and (through the parent_id cascade) every descendant session. */
export function deleteSession(ctx: StoreContext, id: string): boolean {
  return transaction(ctx.db, () => Number(ctx.statement("DELETE FROM session WHERE id = ?").run(id).changes) > 0);
}

/**
 * Moves a session up the "recent" list when it gets a message. Done in SQL so it costs one small
 * update; a damaged session row is left alone rather than failing the message write.
 */
export function touchSession(ctx: StoreContext, id: string, time: number): void {
  ctx
    .statement(
      `UPDATE session SET time_updated = ?1,
         data = CASE WHEN json_valid(data) THEN json_set(data, '$.time.updated', ?1) ELSE data END
       WHERE id = ?2 AND time_updated < ?1`,
    )
    .run(time, id);
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
