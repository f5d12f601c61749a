import type { StoreContext } from "./context.js";
import { SessionStoreError } from "./errors.js";
import type { Message } from "./message.js";
import { listMessages, writeMessage, writePart } from "./messages.js";
import type { Part } from "./part.js";
import type { SessionInfo } from "./session-info.js";
import { requireSession, writeSession } from "./sessions.js";
import { transaction } from "./transaction.js";

/**
 * Copies a session's conversation, up to and including `upToMessageID` (default: all of it), into
 * a new top-level session with fresh ids. The fork is independent: it has no parentID (so deleting
 * the original leaves it alone), no revert point (that referred to the original's ids), and no copies
 * of the original's child sessions. New ids are made in the original's order, so the fork sorts the same.
 */
export function forkSession(ctx: StoreContext, sessionID: string, upToMessageID?: string): SessionInfo {
  return transaction(ctx.db, () => {
    const source = requireSession(ctx, sessionID);
    let messages = listMessages(ctx, sessionID);
    if (upToMessageID !== undefined) {
      const last = messages.findIndex((message) => message.info.id === upToMessageID);
      if (last < 0) {
        throw new SessionStoreError("MESSAGE_NOT_FOUND", `message ${upToMessageID} not found in session ${sessionID}`);
      }
      messages = messages.slice(0, last + 1);
    }

    const now = ctx.now();
    const fork = writeSession(ctx, {
      id: ctx.newId("session"),
      title: `${source.title} (fork)`,
      directory: source.directory,
      time: { created: now, updated: now },
    });

    const messageIDs = new Map(messages.map(({ info }) => [info.id, ctx.newId("message")] as const));
    for (const { info, parts } of messages) {
      const id = messageIDs.get(info.id)!;
      const copy: Message =
        info.role === "assistant"
          ? { ...info, id, sessionID: fork.id, parentID: messageIDs.get(info.parentID) ?? info.parentID }
          : { ...info, id, sessionID: fork.id };
      writeMessage(ctx, copy);
      for (const part of parts) writePart(ctx, copyPart(ctx, part, fork.id, id));
    }
    return fork;
  });
}

function copyPart(ctx: StoreContext, part: Part, sessionID: string, messageID: string): Part {
  const copy: Part = { ...part, id: ctx.newId("part"), sessionID, messageID };
  // Attachments are file parts embedded in the tool result; they name their message too.
  if (copy.type === "tool" && copy.state.status === "completed" && copy.state.attachments) {
    copy.state = {
      ...copy.state,
      attachments: copy.state.attachments.map((file) => ({ ...file, id: ctx.newId("part"), sessionID, messageID })),
    };
  }
  return copy;
}
