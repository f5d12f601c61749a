/**
 * Input and output types of every hook. A tap receives `(input, output)` and mutates `output`;
 * `input` is read-only context. These types are the public contract for plugin authors.
 */

import type { ModelRef } from "../session/message.js";

/** A message as the `chat.message` hook sees it. The session engine owns its full schema. */
export interface ChatMessage {
  id: string;
  sessionID: string;
  role: "user" | "assistant";
  [key: string]: unknown;
}

/** A message part (text, file, tool call …) as hooks see it. */
export interface ChatPart {
  id: string;
  type: string;
  [key: string]: unknown;
}

/** A JSON Schema object, as sent to a model for a tool's parameters. */
export type JsonSchema = Record<string, unknown>;

export interface ChatMessageInput {
  readonly sessionID: string;
  readonly agent: string;
  readonly model: ModelRef;
}
export interface ChatMessageOutput {
  message: ChatMessage;
  parts: ChatPart[];
}

export interface ChatSystemInput {
  readonly sessionID: string;
  readonly agent: string;
  readonly model: ModelRef;
}
export interface ChatSystemOutput {
  /** System prompt sections, in order. Taps may push, edit or remove entries. */
  system: string[];
}

export interface ChatParamsInput {
  readonly sessionID: string;
  readonly agent: string;
  readonly model: ModelRef;
  readonly provider: { readonly id: string; readonly options: Readonly<Record<string, unknown>> };
}
export interface ChatParamsOutput {
  temperature?: number;
  topP?: number;
  topK?: number;
  maxOutputTokens?: number;
  /** Provider-specific options, passed as the AI SDK's `providerOptions[provider.id]`. */
  options: Record<string, unknown>;
}

export type ChatHeadersInput = ChatParamsInput;
export interface ChatHeadersOutput {
  headers: Record<string, string>;
}

export interface ToolDefinitionInput {
  readonly toolID: string;
}
export interface ToolDefinitionOutput {
  description: string;
  parameters: JsonSchema;
}

export interface ToolExecuteBeforeInput {
  readonly tool: string;
  readonly sessionID: string;
  readonly callID: string;
}
export interface ToolExecuteBeforeOutput {
  /** The validated arguments; taps may rewrite them. Throwing blocks the call. */
  args: Record<string, unknown>;
}

export interface ToolExecuteAfterInput {
  readonly tool: string;
  readonly sessionID: string;
  readonly callID: string;
  readonly args: Readonly<Record<string, unknown>>;
}
export interface ToolExecuteAfterOutput {
  title: string;
  output: string;
  metadata: Record<string, unknown>;
}

/** What a tool asks permission for: e.g. `{ permission: "bash", patterns: ["git push *"] }`. */
export interface PermissionRequest {
  readonly permission: string;
  readonly patterns: readonly string[];
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly sessionID: string;
  /** The agent whose tool call asks (its rules layer over the global ones). */
  readonly agent?: string;
  readonly tool?: { readonly messageID: string; readonly callID: string };
}
export type PermissionStatus = "ask" | "allow" | "deny";
export type PermissionAskInput = PermissionRequest;
export interface PermissionAskOutput {
  status: PermissionStatus;
  /** Why: the rule, file and key, or the plugin that decided. Shown in tool errors. */
  reason?: string;
  /** Who decided: a plugin name, filled in by the kernel when a tap changes `status`. */
  decidedBy?: string;
}

export interface TextCompleteInput {
  readonly sessionID: string;
  readonly messageID: string;
  readonly partID: string;
}
export interface TextCompleteOutput {
  text: string;
}

/** Token usage of a step, as the AI SDK reports it. */
export interface StepUsage {
  input: number;
  output: number;
  reasoning: number;
  cache: { read: number; write: number };
}

export interface StepStartInput {
  readonly sessionID: string;
  readonly messageID: string;
}
export interface StepFinishInput {
  readonly sessionID: string;
  readonly messageID: string;
  readonly usage: Readonly<StepUsage>;
  readonly finishReason: string;
}
export interface StepOutput {
  /** Extra parts to store with the step (for example a snapshot's patch part). */
  parts: ChatPart[];
}

export interface SessionCompactingInput {
  readonly sessionID: string;
}
export interface SessionCompactingOutput {
  /** Extra context the summary must keep. */
  context: string[];
  /** Replaces the default compaction prompt when set. */
  prompt?: string;
}

export interface ShellEnvInput {
  readonly cwd: string;
  readonly sessionID: string;
}
export interface ShellEnvOutput {
  env: Record<string, string>;
}

/** A bus event as the `event` hook sees it. */
export interface BusEventEnvelope {
  readonly type: string;
  readonly properties: unknown;
}
export interface EventInput {
  readonly event: BusEventEnvelope;
}
export type EventOutput = Record<string, never>;

/** The hook table's types: one entry per hook, `input` and `output`. */
export interface HookTypes {
  "chat.message": { input: ChatMessageInput; output: ChatMessageOutput };
  "chat.system": { input: ChatSystemInput; output: ChatSystemOutput };
  "chat.params": { input: ChatParamsInput; output: ChatParamsOutput };
  "chat.headers": { input: ChatHeadersInput; output: ChatHeadersOutput };
  "tool.definition": { input: ToolDefinitionInput; output: ToolDefinitionOutput };
  "tool.execute.before": { input: ToolExecuteBeforeInput; output: ToolExecuteBeforeOutput };
  "tool.execute.after": { input: ToolExecuteAfterInput; output: ToolExecuteAfterOutput };
  "permission.ask": { input: PermissionAskInput; output: PermissionAskOutput };
  "text.complete": { input: TextCompleteInput; output: TextCompleteOutput };
  "step.start": { input: StepStartInput; output: StepOutput };
  "step.finish": { input: StepFinishInput; output: StepOutput };
  "session.compacting": { input: SessionCompactingInput; output: SessionCompactingOutput };
  "shell.env": { input: ShellEnvInput; output: ShellEnvOutput };
  event: { input: EventInput; output: EventOutput };
}

export type HookName = keyof HookTypes;
export type HookInput<K extends HookName> = HookTypes[K]["input"];
export type HookOutput<K extends HookName> = HookTypes[K]["output"];
/** A tap: reads `input`, mutates `output`. May be sync or async. */
export type HookFn<K extends HookName> = (input: HookInput<K>, output: HookOutput<K>) => void | Promise<void>;

/** When a tap runs relative to other plugins' taps on the same hook. */
export type TapOrder = "pre" | "normal" | "post";
