import { z } from "zod";
import { MessageIDSchema, SessionIDSchema } from "./ids.js";

export const TokensSchema = z.object({
  input: z.number(),
  output: z.number(),
  reasoning: z.number(),
  cache: z.object({ read: z.number(), write: z.number() }),
});
export type Tokens = z.infer<typeof TokensSchema>;

export const ModelRefSchema = z.object({ providerID: z.string(), modelID: z.string() });
export type ModelRef = z.infer<typeof ModelRefSchema>;

// Every error variant has a human message and may say whether retrying could help.
const errorFields = { message: z.string(), retryable: z.boolean().optional() };

/** Why an assistant message failed, discriminated on `name`. */
export const MessageErrorSchema = z.discriminatedUnion("name", [
  /** The user or a crash stopped the turn. */
  z.object({ name: z.literal("AbortedError"), ...errorFields }),
  z.object({
    name: z.literal("APIError"),
    ...errorFields,
    statusCode: z.number().int().optional(),
    responseHeaders: z.record(z.string(), z.string()).optional(),
    responseBody: z.string().optional(),
  }),
  z.object({ name: z.literal("ProviderAuthError"), ...errorFields, providerID: z.string() }),
  /** The model hit its output limit before finishing. */
  z.object({ name: z.literal("OutputLengthError"), ...errorFields }),
  z.object({ name: z.literal("ContextOverflowError"), ...errorFields }),
  z.object({ name: z.literal("UnknownError"), ...errorFields }),
]);
export type MessageError = z.infer<typeof MessageErrorSchema>;

const messageBase = { id: MessageIDSchema, sessionID: SessionIDSchema };

export const UserMessageSchema = z.object({
  ...messageBase,
  role: z.literal("user"),
  time: z.object({ created: z.number() }),
  agent: z.string(),
  model: ModelRefSchema,
  /** Extra system prompt for this turn only. */
  system: z.string().optional(),
  /** Per-turn tool switches: `{ bash: false }` hides bash from the model for this turn. */
  tools: z.record(z.string(), z.boolean()).optional(),
});
export type UserMessage = z.infer<typeof UserMessageSchema>;

export const AssistantMessageSchema = z.object({
  ...messageBase,
  role: z.literal("assistant"),
  /** The user message this answers. */
  parentID: MessageIDSchema,
  providerID: z.string(),
  modelID: z.string(),
  agent: z.string(),
  /** `completed` is unset while the model is still answering; crash recovery relies on that. */
  time: z.object({ created: z.number(), completed: z.number().optional() }),
  cost: z.number(),
  tokens: TokensSchema,
  /** The model's finish reason ("stop", "tool-calls", "length" …); unset until a step finishes. */
  finish: z.string().optional(),
  error: MessageErrorSchema.optional(),
  /** Marks a compaction summary. */
  summary: z.boolean().optional(),
});
export type AssistantMessage = z.infer<typeof AssistantMessageSchema>;

export const MessageSchema = z.discriminatedUnion("role", [UserMessageSchema, AssistantMessageSchema]);
export type Message = z.infer<typeof MessageSchema>;
