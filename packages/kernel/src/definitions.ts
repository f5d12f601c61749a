import type { LanguageModel } from "ai";
import type { z } from "zod";
import type { PermissionRequest, PermissionStatus } from "./hooks/types.js";

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
  ask(request: Omit<PermissionRequest, "sessionID" | "tool">): Promise<void>;
  /** Streams a progress title or metadata to the UI while the tool runs. */
  metadata(update: { title?: string; metadata?: Record<string, unknown> }): void;
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
  execute(args: z.output<Params>, ctx: ToolContext): Promise<ToolResult>;
}

/** Identity helper that infers `args` from the zod parameters. */
export function defineTool<Params extends z.ZodType>(tool: ToolDefinition<Params>): ToolDefinition<Params> {
  return tool;
}

/** A language model the AI SDK can call (provider instances, not gateway id strings). */
export type KernelLanguageModel = Exclude<LanguageModel, string>;

export interface ProviderDefinition {
  readonly id: string;
  readonly name?: string;
  /** Returns the model to stream from; throws a clear error for an unknown model id. */
  languageModel(modelID: string): KernelLanguageModel | Promise<KernelLanguageModel>;
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
