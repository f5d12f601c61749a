import { decodeOrWarn } from "./codec.js";
import type { StoreContext } from "./context.js";
import { liveInstances } from "./instances.js";
import { MessageSchema } from "./message.js";
import { writeMessage, writePart } from "./messages.js";
import { PartSchema } from "./part.js";
import { transaction } from "./transaction.js";

/** The tool error recorded on a call whose process died before it finished. */
export const ABORTED_TOOL_ERROR = "aborted";

/**
 * Finishes what a dead process left half-done: pending or running tool calls become `error`
 * ("aborted"), and assistant messages that never completed get completed with an AbortedError, so
 * the next turn sends the model a consistent history. Rows of stores still open (in this or another
 * live process) are left alone. Returns how many parts and messages it changed.
 */
export function recoverInterrupted(ctx: StoreContext): number {
  return transaction(ctx.db, () => {
    // Also prunes registrations of crashed processes, whether or not they left rows behind.
    const live = liveInstances(ctx);
    const owners = ctx
      .statement(
        `SELECT owner FROM part WHERE unfinished = 1
         UNION SELECT owner FROM message WHERE unfinished = 1`,
      )
      .all()
      .map((row) => (row["owner"] === null ? null : String(row["owner"])));
    // Rows with no owner, or whose store closed or died, have nobody left to finish them.
    const dead = owners.filter((owner) => owner === null || !live.has(owner));
    if (dead.length === 0) return 0;

    const now = ctx.now();
    let count = 0;
    for (const owner of dead) {
      const ownerFilter = owner === null ? "owner IS NULL" : "owner = ?";
      const ownerParams = owner === null ? [] : [owner];

      const parts = ctx.statement(`SELECT id, data FROM part WHERE unfinished = 1 AND ${ownerFilter}`).all(...ownerParams);
      for (const row of parts) {
        const part = decodeOrWarn(PartSchema, row["data"], `part ${String(row["id"])}`, ctx.warn);
        if (part?.type !== "tool" || (part.state.status !== "pending" && part.state.status !== "running")) continue;
        const start = part.state.status === "running" ? part.state.time.start : now;
        writePart(ctx, {
          ...part,
          state: {
            status: "error",
            input: part.state.input,
            error: ABORTED_TOOL_ERROR,
            ...(part.state.status === "running" && part.state.metadata && { metadata: part.state.metadata }),
            time: { start, end: Math.max(start, now) },
          },
        });
        count++;
      }

      const messages = ctx
        .statement(`SELECT id, data FROM message WHERE unfinished = 1 AND ${ownerFilter}`)
        .all(...ownerParams);
      for (const row of messages) {
        const info = decodeOrWarn(MessageSchema, row["data"], `message ${String(row["id"])}`, ctx.warn);
        if (info?.role !== "assistant" || info.time.completed !== undefined) continue;
        writeMessage(ctx, {
          ...info,
          time: { ...info.time, completed: Math.max(info.time.created, now) },
          // An error the turn already recorded says more than "interrupted".
          error: info.error ?? { name: "AbortedError", message: "interrupted" },
        });
        count++;
      }
    }
    return count;
  });
}
