import type { LanguageModel } from "ai";
import type { z } from "zod";
import type { PermissionRequest, PermissionStatus } from "./hooks/types.js";
import type { SessionStore } from "./session/session-store.js";

/** What a tool's `execute` gets besides its arguments. */
export interface ToolContext {
  readonly sessionID: string;
  readonly messageID: string;
  readonly callID: string;
  readonly agent: string;
  /** The project directory. */
  readonly directory: string;
  /** Fires when the user aborts the step; long-running tools must stop. */
  readonly abort: AbortSignal;
  /**
   * Asks permission through the kernel (the `permission.ask` hook, then the interactive asker).
   * Resolves when allowed; rejects with a clear error when denied. Headless runs fail closed.
   */
  ask(request: Omit<PermissionRequest, "sessionID" | "tool" | "agent">): Promise<void>;
  /** Streams a progress title or metadata to the UI while the tool runs. */
  metadata(update: { title?: string; metadata?: Record<string, unknown> }): void;
  /**
   * Runs a subagent in a child session (hooks and permissions apply inside it exactly as here)
   * and resolves with its final answer.
   */
  subtask(input: { agent: string; prompt: string; description: string }): Promise<{ sessionID: string; text: string }>;
}

/** What a tool needs permission for, before it runs. */
export interface ToolPermission {
  readonly permission: string;
  /** What the rule patterns match: paths relative to the project, or the command for bash. */
  readonly patterns: readonly string[];
  readonly metadata?: Readonly<Record<string, unknown>>;
}

export interface ToolResult {
  title: string;
  output: string;
  metadata?: Record<string, unknown>;
  /** Files (for example images) to hand to the model with the result. */
  attachments?: Array<{ mediaType: string; url: string; filename?: string }>;
}

export interface ToolDefinition<Params extends z.ZodType = z.ZodType> {
  readonly id: string;
  readonly description: string;
  /** Validated by the kernel before `execute`; an invalid argument becomes a tool error the model sees. */
  readonly parameters: Params;
  /**
   * The permissions this call needs, asked by the kernel before `execute`. Return `[]` when the
   * call needs none. A tool without `permission` is asked for as `{ permission: <tool id>,
   * patterns: ["*"] }`, so third-party and MCP tools fail closed. Tools may also call `ctx.ask`
   * while running, for needs they only discover then.
   */
  permission?(args: z.output<Params>, ctx: { directory: string }): ToolPermission[] | Promise<ToolPermission[]>;
  execute(args: z.output<Params>, ctx: ToolContext): Promise<ToolResult>;
}

/** Identity helper that infers `args` from the zod parameters. */
export function defineTool<Params extends z.ZodType>(tool: ToolDefinition<Params>): ToolDefinition<Params> {
  return tool;
}

/** A language model the AI SDK can call (provider instances, not gateway id strings). */
export type KernelLanguageModel = Exclude<LanguageModel, string>;

/** USD per million tokens (the models.dev convention). */
export interface ModelCost {
  readonly input: number;
  readonly output: number;
  readonly cache_read?: number;
  readonly cache_write?: number;
  /** Prices when the prompt exceeds 200k tokens, for models that charge more past that. */
  readonly context_over_200k?: Omit<ModelCost, "context_over_200k">;
}

/** What the kernel needs to know of a model: its limits (for overflow checks) and its prices. */
export interface ModelInfo {
  readonly id: string;
  readonly name?: string;
  readonly limit?: { readonly context: number; readonly output: number };
  readonly cost?: ModelCost;
  readonly toolCall?: boolean;
  readonly reasoning?: boolean;
  readonly attachment?: boolean;
}

export interface ProviderDefinition {
  readonly id: string;
  readonly name?: string;
  /** Returns the model to stream from; throws a clear error for an unknown model id. */
  languageModel(modelID: string): KernelLanguageModel | Promise<KernelLanguageModel>;
  /** Limits and prices of a model, when known. */
  model?(modelID: string): ModelInfo | undefined;
  /** The models this provider offers now (for listings and "did you mean"). */
  models?(): ModelInfo[];
  /** The provider's default system prompt family, e.g. "anthropic"; defaults to the provider id. */
  readonly promptFamily?: string;
}

export type AgentMode = "primary" | "subagent" | "all";

export interface AgentDefinition {
  readonly id: string;
  readonly description?: string;
  readonly mode: AgentMode;
  /** Replaces the provider's default system prompt. */
  readonly prompt?: string;
  /** `provider/model`; defaults to the session's model. */
  readonly model?: string;
  readonly temperature?: number;
  readonly topP?: number;
  /** Tool switches: `{ edit: false }` hides a tool from this agent. */
  readonly tools?: Readonly<Record<string, boolean>>;
  /** Permission rules layered over the global ones. */
  readonly permission?: Readonly<Record<string, PermissionStatus | Readonly<Record<string, PermissionStatus>>>>;
  /** Hidden agents are internal (title, compaction) and not offered to users. */
  readonly hidden?: boolean;
  readonly maxSteps?: number;
}

export interface CommandDefinition {
  readonly id: string;
  readonly description: string;
  /** Prompt template; `$ARGUMENTS` and `$1`… are replaced by the command's arguments. */
  readonly template: string;
  readonly agent?: string;
  readonly model?: string;
}

/**
 * What a compaction strategy gets: the session, the store to read and write its messages (mark tool
 * outputs compacted, store a summary message with `summary: true`), and the model in use to write
 * the summary with (for example with the hidden `compaction` agent's prompt).
 */
export interface CompactionContext {
  readonly sessionID: string;
  readonly store: SessionStore;
  readonly model: {
    readonly providerID: string;
    readonly modelID: string;
    readonly info?: ModelInfo;
    /** The model itself, when it could be resolved. */
    readonly language?: KernelLanguageModel;
  };
  readonly abort: AbortSignal;
  /** Tokens the last finished step used (prompt + output), for overflow decisions. */
  readonly lastTokens?: number;
  /** Why compaction runs: the context is nearly full, the provider said it overflowed, or the user asked. */
  readonly reason: "overflow" | "provider-overflow" | "manual";
}

/**
 * A way to shrink a session's context. The loop asks `isOverflow` before each step (and always
 * compacts after a provider's context-overflow error); `compact` must leave the session ready for
 * the next step. With none registered, compaction does nothing.
 */
export interface CompactionStrategy {
  readonly id: string;
  isOverflow?(ctx: CompactionContext): boolean | Promise<boolean>;
  compact(ctx: CompactionContext): Promise<"continue" | "stop">;
}
