import { z } from "zod";
import { MessageIDSchema, PartIDSchema, SessionIDSchema } from "./ids.js";

/** Where a revert rolled the session back to; the messages after it are kept until the revert is committed. */
export const SessionRevertSchema = z.object({
  messageID: MessageIDSchema,
  partID: PartIDSchema.optional(),
  snapshot: z.string().optional(),
});
export type SessionRevert = z.infer<typeof SessionRevertSchema>;

export const SessionInfoSchema = z.object({
  id: SessionIDSchema,
  /** Set on a subagent's child session; deleting the parent deletes its children. */
  parentID: SessionIDSchema.optional(),
  title: z.string(),
  /** The working directory the session runs in. */
  directory: z.string(),
  time: z.object({ created: z.number(), updated: z.number() }),
  revert: SessionRevertSchema.optional(),
});
export type SessionInfo = z.infer<typeof SessionInfoSchema>;
