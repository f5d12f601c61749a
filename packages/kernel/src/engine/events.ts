import { z } from "zod";
import { defineEvent } from "../bus/bus.js";
import { MessageErrorSchema, MessageSchema } from "../session/message.js";
import { PartSchema } from "../session/part.js";
import { SessionInfoSchema } from "../session/session-info.js";

/** idle → busy → (retry → busy)* → idle. */
export const SessionStatusSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("idle") }),
  z.object({ type: z.literal("busy") }),
  z.object({ type: z.literal("retry"), attempt: z.number().int(), message: z.string(), next: z.number() }),
]);
export type SessionStatus = z.infer<typeof SessionStatusSchema>;

export const SessionCreated = defineEvent("session.created", z.object({ info: SessionInfoSchema }));
export const SessionUpdated = defineEvent("session.updated", z.object({ info: SessionInfoSchema }));
export const SessionDeleted = defineEvent("session.deleted", z.object({ sessionID: z.string() }));
export const SessionStatusChanged = defineEvent(
  "session.status",
  z.object({ sessionID: z.string(), status: SessionStatusSchema }),
);
export const SessionIdle = defineEvent("session.idle", z.object({ sessionID: z.string() }));
export const SessionErrored = defineEvent(
  "session.error",
  z.object({ sessionID: z.string(), messageID: z.string().optional(), error: MessageErrorSchema }),
);
export const MessageUpdated = defineEvent("message.updated", z.object({ info: MessageSchema }));
/** `delta` carries only the new text of a streaming text or reasoning part. */
export const MessagePartUpdated = defineEvent(
  "message.part.updated",
  z.object({ part: PartSchema, delta: z.string().optional() }),
);

/** A part was removed (a retried attempt's half-streamed text, for example). */
export const MessagePartRemoved = defineEvent(
  "message.part.removed",
  z.object({ sessionID: z.string(), messageID: z.string(), partID: z.string() }),
);

export const PermissionReplySchema = z.enum(["once", "always", "reject"]);
export type PermissionReply = z.infer<typeof PermissionReplySchema>;

const PermissionRequestEventSchema = z.object({
  id: z.string(),
  sessionID: z.string(),
  permission: z.string(),
  patterns: z.array(z.string()),
  metadata: z.record(z.string(), z.unknown()),
  agent: z.string().optional(),
  tool: z.object({ messageID: z.string(), callID: z.string() }).optional(),
  /** Why it asks (the rule, what "always" would store), when the deciding plugin said. */
  reason: z.string().optional(),
});

/** A permission request is waiting for the interactive asker. */
export const PermissionAsked = defineEvent("permission.asked", PermissionRequestEventSchema);
/** The asker answered. A permissions plugin stores "always" answers from this event. */
export const PermissionReplied = defineEvent(
  "permission.replied",
  z.object({ id: z.string(), sessionID: z.string(), reply: PermissionReplySchema, request: PermissionRequestEventSchema }),
);
/** Every decision with what made it: the plugin (and its reason) or the asker. */
export const PermissionDecided = defineEvent(
  "permission.decided",
  PermissionRequestEventSchema.extend({
    status: z.enum(["allow", "deny"]),
    decidedBy: z.string(),
    reason: z.string().optional(),
  }),
);
