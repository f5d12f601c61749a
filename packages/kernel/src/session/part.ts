import { z } from "zod";
import { MessageIDSchema, PartIDSchema, SessionIDSchema } from "./ids.js";
import { MessageErrorSchema, ModelRefSchema, TokensSchema } from "./message.js";

const partBase = { id: PartIDSchema, sessionID: SessionIDSchema, messageID: MessageIDSchema };
const record = z.record(z.string(), z.unknown());

export const TextPartSchema = z.object({
  ...partBase,
  type: z.literal("text"),
  text: z.string(),
  /** Written by Tessera or a plugin rather than typed by the user or the model. */
  synthetic: z.boolean().optional(),
  /** Kept for display but not sent to the model. */
  ignored: z.boolean().optional(),
  time: z.object({ start: z.number(), end: z.number().optional() }).optional(),
  metadata: record.optional(),
});
export type TextPart = z.infer<typeof TextPartSchema>;

export const ReasoningPartSchema = z.object({
  ...partBase,
  type: z.literal("reasoning"),
  text: z.string(),
  time: z.object({ start: z.number(), end: z.number().optional() }),
  metadata: record.optional(),
});
export type ReasoningPart = z.infer<typeof ReasoningPartSchema>;

/** The span of the prompt text a file or agent reference was written as (`@src/a.ts`). */
const SourceTextSchema = z.object({ value: z.string(), start: z.number().int(), end: z.number().int() });
const PositionSchema = z.object({ line: z.number().int(), character: z.number().int() });

export const FilePartSourceSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("file"), path: z.string(), text: SourceTextSchema.optional() }),
  z.object({
    type: z.literal("symbol"),
    path: z.string(),
    name: z.string(),
    kind: z.number().int(),
    range: z.object({ start: PositionSchema, end: PositionSchema }),
    text: SourceTextSchema.optional(),
  }),
  z.object({ type: z.literal("resource"), clientName: z.string(), uri: z.string(), text: SourceTextSchema.optional() }),
]);
export type FilePartSource = z.infer<typeof FilePartSourceSchema>;

export const FilePartSchema = z.object({
  ...partBase,
  type: z.literal("file"),
  mediaType: z.string(),
  /** A `data:` URL for inline content, or a `file:`/`https:` URL. */
  url: z.string(),
  filename: z.string().optional(),
  source: FilePartSourceSchema.optional(),
});
export type FilePart = z.infer<typeof FilePartSchema>;

export const ToolStatePendingSchema = z.object({
  status: z.literal("pending"),
  input: record,
  /** The arguments as streamed so far, before they parse as JSON. */
  raw: z.string(),
});
export const ToolStateRunningSchema = z.object({
  status: z.literal("running"),
  input: record,
  title: z.string().optional(),
  metadata: record.optional(),
  time: z.object({ start: z.number() }),
});
export const ToolStateCompletedSchema = z.object({
  status: z.literal("completed"),
  input: record,
  output: z.string(),
  title: z.string(),
  metadata: record,
  /** `compacted` is set when pruning replaced the output with a placeholder in the model's context. */
  time: z.object({ start: z.number(), end: z.number(), compacted: z.number().optional() }),
  attachments: z.array(FilePartSchema).optional(),
});
export const ToolStateErrorSchema = z.object({
  status: z.literal("error"),
  input: record,
  error: z.string(),
  metadata: record.optional(),
  time: z.object({ start: z.number(), end: z.number() }),
});

/** pending → running → completed | error (pending may go straight to error). */
export const ToolStateSchema = z.discriminatedUnion("status", [
  ToolStatePendingSchema,
  ToolStateRunningSchema,
  ToolStateCompletedSchema,
  ToolStateErrorSchema,
]);
export type ToolState = z.infer<typeof ToolStateSchema>;
export type ToolStatePending = z.infer<typeof ToolStatePendingSchema>;
export type ToolStateRunning = z.infer<typeof ToolStateRunningSchema>;
export type ToolStateCompleted = z.infer<typeof ToolStateCompletedSchema>;
export type ToolStateError = z.infer<typeof ToolStateErrorSchema>;

export const ToolPartSchema = z.object({
  ...partBase,
  type: z.literal("tool"),
  /** The model's id for this call, used to match its result. */
  callID: z.string(),
  tool: z.string(),
  state: ToolStateSchema,
  metadata: record.optional(),
});
export type ToolPart = z.infer<typeof ToolPartSchema>;

export const StepStartPartSchema = z.object({ ...partBase, type: z.literal("step-start"), snapshot: z.string().optional() });
export type StepStartPart = z.infer<typeof StepStartPartSchema>;

export const StepFinishPartSchema = z.object({
  ...partBase,
  type: z.literal("step-finish"),
  reason: z.string(),
  tokens: TokensSchema,
  cost: z.number(),
  snapshot: z.string().optional(),
});
export type StepFinishPart = z.infer<typeof StepFinishPartSchema>;

/** Files a step changed, and the snapshot hash to restore them from. */
export const PatchPartSchema = z.object({
  ...partBase,
  type: z.literal("patch"),
  hash: z.string(),
  files: z.array(z.string()),
});
export type PatchPart = z.infer<typeof PatchPartSchema>;

/** An `@agent` mention in the user's prompt. */
export const AgentPartSchema = z.object({
  ...partBase,
  type: z.literal("agent"),
  name: z.string(),
  source: SourceTextSchema.optional(),
});
export type AgentPart = z.infer<typeof AgentPartSchema>;

/** A request to run a subagent in a child session. */
export const SubtaskPartSchema = z.object({
  ...partBase,
  type: z.literal("subtask"),
  prompt: z.string(),
  description: z.string(),
  agent: z.string(),
  model: ModelRefSchema.optional(),
});
export type SubtaskPart = z.infer<typeof SubtaskPartSchema>;

/** A request to compact the conversation; `auto` when overflow triggered it rather than the user. */
export const CompactionPartSchema = z.object({ ...partBase, type: z.literal("compaction"), auto: z.boolean() });
export type CompactionPart = z.infer<typeof CompactionPartSchema>;

/** A failed model call that is being retried. */
export const RetryPartSchema = z.object({
  ...partBase,
  type: z.literal("retry"),
  attempt: z.number().int(),
  error: MessageErrorSchema,
  time: z.object({ created: z.number() }),
});
export type RetryPart = z.infer<typeof RetryPartSchema>;

export const PartSchema = z.discriminatedUnion("type", [
  TextPartSchema,
  ReasoningPartSchema,
  FilePartSchema,
  ToolPartSchema,
  StepStartPartSchema,
  StepFinishPartSchema,
  PatchPartSchema,
  AgentPartSchema,
  SubtaskPartSchema,
  CompactionPartSchema,
  RetryPartSchema,
]);
export type Part = z.infer<typeof PartSchema>;
export type PartType = Part["type"];
