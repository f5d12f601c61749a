import { z } from "zod";

const tokens = z.object({
  input: z.number(),
  output: z.number(),
  reasoning: z.number(),
  cache: z.object({ read: z.number(), write: z.number() }),
});

const base = { timestamp: z.number(), sessionID: z.string() };

/**
 * The `tessera run --format json` event stream: one JSON object per line, each with `type`,
 * `timestamp` (ms) and `sessionID`. Stable: fields are only ever added.
 */
export const JsonEventSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("session"),
    ...base,
    title: z.string(),
    directory: z.string(),
    model: z.string(),
    agent: z.string(),
    /** True when no provider is configured and the offline demo model answers. */
    demo: z.boolean(),
  }),
  z.object({ type: z.literal("step.start"), ...base, messageID: z.string() }),
  z.object({ type: z.literal("text.delta"), ...base, messageID: z.string(), partID: z.string(), delta: z.string() }),
  z.object({ type: z.literal("text"), ...base, messageID: z.string(), partID: z.string(), text: z.string() }),
  z.object({ type: z.literal("reasoning"), ...base, messageID: z.string(), partID: z.string(), text: z.string() }),
  z.object({
    type: z.literal("tool"),
    ...base,
    messageID: z.string(),
    partID: z.string(),
    callID: z.string(),
    tool: z.string(),
    status: z.enum(["running", "completed", "error"]),
    input: z.record(z.string(), z.unknown()),
    title: z.string().optional(),
    output: z.string().optional(),
    error: z.string().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  }),
  z.object({
    type: z.literal("permission"),
    ...base,
    permission: z.string(),
    patterns: z.array(z.string()),
    status: z.enum(["allow", "deny"]),
    decidedBy: z.string(),
    reason: z.string().optional(),
  }),
  z.object({
    type: z.literal("step.finish"),
    ...base,
    messageID: z.string(),
    reason: z.string(),
    tokens,
    cost: z.number(),
  }),
  z.object({
    type: z.literal("retry"),
    ...base,
    attempt: z.number().int(),
    message: z.string(),
    next: z.number(),
  }),
  z.object({ type: z.literal("error"), ...base, name: z.string(), message: z.string() }),
  z.object({
    type: z.literal("done"),
    ...base,
    status: z.enum(["completed", "error", "aborted"]),
    tokens,
    cost: z.number(),
    /** The final answer's text. */
    text: z.string(),
  }),
]);

export type JsonEvent = z.infer<typeof JsonEventSchema>;
