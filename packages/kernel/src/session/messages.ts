import type { SQLOutputValue } from "node:sqlite";
import { decodeOrWarn, encode, isForeignKeyError } from "./codec.js";
import type { StoreContext } from "./context.js";
import { SessionStoreError } from "./errors.js";
import { MessageSchema, type Message } from "./message.js";
import { PartSchema, type Part } from "./part.js";
import { touchSession } from "./sessions.js";
import { transaction } from "./transaction.js";

export interface MessageWithParts {
  info: Message;
  /** In creation (id) order. */
  parts: Part[];
}

/** A page of a session's messages in ascending id order. */
export interface MessagePage {
  /** At most this many messages. Default: all. */
  limit?: number;
  /** Only messages with an id greater than this one (the next page after it). */
  after?: string;
  /** Only messages with an id less than this one; with `limit`, the ones nearest to it. */
  before?: string;
}

// Interrupted rows are what crash recovery looks for: a tool call that never finished, or an
// assistant message that never completed.
const isUnfinishedMessage = (info: Message) => info.role === "assistant" && info.time.completed === undefined;
const isUnfinishedPart = (part: Part) =>
  part.type === "tool" && (part.state.status === "pending" || part.state.status === "running");

/** Upserts one message row, without touching its parts or its session. */
export function writeMessage(ctx: StoreContext, input: Message): Message {
  const info = encode(MessageSchema, input, "message");
  let row: Record<string, SQLOutputValue> | undefined;
  try {
    row = ctx
      .statement(
        `INSERT INTO message (id, session_id, role, time_created, unfinished, owner, data)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(id) DO UPDATE SET role = excluded.role, time_created = excluded.time_created,
           unfinished = excluded.unfinished, owner = excluded.owner, data = excluded.data
         WHERE message.session_id = excluded.session_id
         RETURNING id`,
      )
      .get(
        info.id,
        info.sessionID,
        info.role,
        info.time.created,
        isUnfinishedMessage(info) ? 1 : 0,
        ctx.owner,
        JSON.stringify(info),
      );
  } catch (error) {
    if (isForeignKeyError(error)) {
      throw new SessionStoreError("SESSION_NOT_FOUND", `session ${info.sessionID} not found`, { cause: error });
    }
    throw error;
  }
  if (!row) {
    throw new SessionStoreError("RECORD_INVALID", `message ${info.id} belongs to another session than ${info.sessionID}`);
  }
  return info;
}

/** Upserts one part row. The (message_id, session_id) foreign key keeps a part inside its message's session. */
export function writePart(ctx: StoreContext, input: Part): Part {
  const part = encode(PartSchema, input, "part");
  let row: Record<string, SQLOutputValue> | undefined;
  try {
    row = ctx
      .statement(
        `INSERT INTO part (id, message_id, session_id, type, unfinished, owner, data)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(id) DO UPDATE SET type = excluded.type, unfinished = excluded.unfinished,
           owner = excluded.owner, data = excluded.data
         WHERE part.message_id = excluded.message_id AND part.session_id = excluded.session_id
         RETURNING id`,
      )
      .get(
        part.id,
        part.messageID,
        part.sessionID,
        part.type,
        isUnfinishedPart(part) ? 1 : 0,
        ctx.owner,
        JSON.stringify(part),
      );
  } catch (error) {
    if (isForeignKeyError(error)) {
      throw new SessionStoreError(
        "MESSAGE_NOT_FOUND",
        `message ${part.messageID} not found in session ${part.sessionID}`,
        { cause: error },
      );
    }
    throw error;
  }
  if (!row) throw new SessionStoreError("RECORD_INVALID", `part ${part.id} belongs to another message than ${part.messageID}`);
  return part;
}

/** Creates or replaces a message (its row only; parts are written separately) and marks its session as recently updated. */
export function updateMessage<M extends Message>(ctx: StoreContext, input: M): M {
  return transaction(ctx.db, () => {
    // The parsed record has the same variant as the input (parsing only drops unknown keys).
    const info = writeMessage(ctx, input) as M;
    touchSession(ctx, info.sessionID, ctx.now());
    return info;
  });
}

/**
 * Creates or replaces one part. Writes exactly one row, whatever the size of its message, so a
 * streaming turn costs one small write per update rather than rewriting the message.
 */
export function updatePart<P extends Part>(ctx: StoreContext, input: P): P {
  // The parsed part has the same variant as the input (parsing only drops unknown keys).
  return transaction(ctx.db, () => writePart(ctx, input) as P);
}

/**
 * Appends a streamed delta to a text or reasoning part inside SQLite, so the caller need not send
 * (nor the store re-validate) the whole text for every token.
 */
export function appendPartText(ctx: StoreContext, partID: string, delta: string): void {
  transaction(ctx.db, () => {
    let row: Record<string, SQLOutputValue> | undefined;
    try {
      row = ctx
        .statement(
          `UPDATE part SET data = json_set(data, '$.text', coalesce(json_extract(data, '$.text'), '') || ?)
           WHERE id = ? AND type IN ('text', 'reasoning')
           RETURNING id`,
        )
        .get(delta, partID);
    } catch (error) {
      throw new SessionStoreError("RECORD_CORRUPT", `part ${partID} is unreadable: ${(error as Error).message}`, {
        cause: error,
      });
    }
    if (!row) throw new SessionStoreError("PART_NOT_FOUND", `no text or reasoning part ${partID}`);
  });
}

export function getPart(ctx: StoreContext, id: string): Part | undefined {
  const row = ctx.statement("SELECT data FROM part WHERE id = ?").get(id);
  return row ? decodeOrWarn(PartSchema, row["data"], `part ${id}`, ctx.warn) : undefined;
}

export function getMessage(ctx: StoreContext, id: string): MessageWithParts | undefined {
  const row = ctx.statement("SELECT data FROM message WHERE id = ?").get(id);
  if (!row) return undefined;
  const info = decodeOrWarn(MessageSchema, row["data"], `message ${id}`, ctx.warn);
  if (!info) return undefined;
  const parts = ctx.statement("SELECT id, data FROM part WHERE message_id = ? ORDER BY id").all(id);
  return { info, parts: decodeParts(ctx, parts) };
}

export function listMessages(ctx: StoreContext, sessionID: string, page: MessagePage = {}): MessageWithParts[] {
  const where = ["session_id = ?"];
  const params: (string | number)[] = [sessionID];
  if (page.after !== undefined) {
    where.push("id > ?");
    params.push(page.after);
  }
  if (page.before !== undefined) {
    where.push("id < ?");
    params.push(page.before);
  }
  // "The page before X" means the messages nearest X, so walk backwards and flip.
  const backwards = page.before !== undefined && page.after === undefined && page.limit !== undefined;
  params.push(page.limit ?? -1);
  const rows = ctx
    .statement(`SELECT id, data FROM message WHERE ${where.join(" AND ")} ORDER BY id ${backwards ? "DESC" : "ASC"} LIMIT ?`)
    .all(...params);
  if (backwards) rows.reverse();
  if (rows.length === 0) return [];

  const messages: MessageWithParts[] = [];
  const byID = new Map<string, MessageWithParts>();
  for (const row of rows) {
    const info = decodeOrWarn(MessageSchema, row["data"], `message ${String(row["id"])}`, ctx.warn);
    if (!info) continue;
    const entry: MessageWithParts = { info, parts: [] };
    messages.push(entry);
    byID.set(String(row["id"]), entry);
  }
  // One range query for the whole page's parts rather than one query per message.
  const partRows = ctx
    .statement(
      `SELECT id, message_id, data FROM part
       WHERE session_id = ? AND message_id >= ? AND message_id <= ? ORDER BY message_id, id`,
    )
    .all(sessionID, String(rows[0]!["id"]), String(rows[rows.length - 1]!["id"]));
  for (const row of partRows) {
    const entry = byID.get(String(row["message_id"]));
    if (!entry) continue; // a part of a skipped (damaged) message, or of one outside the page
    const part = decodeOrWarn(PartSchema, row["data"], `part ${String(row["id"])}`, ctx.warn);
    if (part) entry.parts.push(part);
  }
  return messages;
}

/** Deletes a message and its parts. */
export function removeMessage(ctx: StoreContext, id: string): boolean {
  return transaction(ctx.db, () => Number(ctx.statement("DELETE FROM message WHERE id = ?").run(id).changes) > 0);
}

export function removePart(ctx: StoreContext, id: string): boolean {
  return transaction(ctx.db, () => Number(ctx.statement("DELETE FROM part WHERE id = ?").run(id).changes) > 0);
}

function decodeParts(ctx: StoreContext, rows: Record<string, SQLOutputValue>[]): Part[] {
  const parts: Part[] = [];
  for (const row of rows) {
    const part = decodeOrWarn(PartSchema, row["data"], `part ${String(row["id"])}`, ctx.warn);
    if (part) parts.push(part);
  }
  return parts;
}
