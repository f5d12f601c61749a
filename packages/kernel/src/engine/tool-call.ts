import { z } from "zod";
import type { ToolContext, ToolDefinition, ToolPermission, ToolResult } from "../definitions.js";
import { PluginError } from "../errors.js";
import type { HookInput, HookName, HookOutput } from "../hooks/types.js";
import type { Registry } from "../registry.js";
import type { PermissionGate } from "./permission.js";

/** A tool call that failed in a way the model should hear about (it becomes the tool's error result). */
export class ToolCallError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ToolCallError";
  }
}

export interface ToolCallDeps {
  readonly tools: Registry<ToolDefinition>;
  readonly gate: PermissionGate;
  trigger<K extends HookName>(hook: K, input: HookInput<K>, output: HookOutput<K>): Promise<HookOutput<K>>;
}

export interface ToolCallRequest {
  readonly tool: string;
  readonly callID: string;
  readonly args: unknown;
  /** Everything the tool's context needs except `ask`, which the chokepoint provides. */
  readonly context: Omit<ToolContext, "ask">;
}

/**
 * The one path every tool call takes, whatever the tool's origin (built in, plugin, MCP, subagent):
 * validate the arguments with the tool's zod schema → `tool.execute.before` → the permissions the
 * tool declares → execute → `tool.execute.after`. Anything that goes wrong becomes a
 * ToolCallError whose message tells the model what happened and what to do.
 */
export async function executeToolCall(deps: ToolCallDeps, call: ToolCallRequest): Promise<ToolResult> {
  const { context } = call;
  const tool = deps.tools.get(call.tool);
  if (!tool) throw new ToolCallError(unknownToolMessage(call.tool, deps.tools.list().map((t) => t.id)));

  let args = parseArgs(tool, call.args);
  const hookInput = { tool: tool.id, sessionID: context.sessionID, callID: call.callID };
  try {
    const before = await deps.trigger("tool.execute.before", hookInput, { args: args as Record<string, unknown> });
    // A plugin may rewrite the arguments; they must still satisfy the tool's schema.
    args = parseArgs(tool, before.args);
  } catch (error) {
    throw blocked(error, "blocked by");
  }

  const ask: ToolContext["ask"] = (request) =>
    deps.gate.ask(
      { ...request, sessionID: context.sessionID, agent: context.agent, tool: { messageID: context.messageID, callID: call.callID } },
      context.abort,
    );
  let permissions: ToolPermission[];
  try {
    permissions = tool.permission
      ? await tool.permission(args, { directory: context.directory })
      : [{ permission: tool.id, patterns: ["*"], metadata: { args } }];
  } catch (error) {
    throw new ToolCallError(`${tool.id} could not work out the permissions it needs: ${(error as Error)?.message ?? String(error)}`, { cause: error });
  }
  for (const p of permissions) await ask({ permission: p.permission, patterns: p.patterns, metadata: p.metadata ?? {} });

  context.abort.throwIfAborted();
  let result: ToolResult;
  try {
    result = await tool.execute(args, { ...context, ask });
  } catch (error) {
    if (error instanceof ToolCallError || context.abort.aborted) throw error;
    throw new ToolCallError(`${tool.id} failed: ${(error as Error)?.message ?? String(error)}`, { cause: error });
  }

  try {
    const after = await deps.trigger(
      "tool.execute.after",
      { ...hookInput, args: args as Record<string, unknown> },
      { title: result.title, output: result.output, metadata: { ...(result.metadata ?? {}) } },
    );
    return { ...result, title: after.title, output: after.output, metadata: after.metadata };
  } catch (error) {
    throw blocked(error, "result rejected by");
  }
}

function parseArgs(tool: ToolDefinition, args: unknown): unknown {
  const parsed = tool.parameters.safeParse(args ?? {});
  if (parsed.success) return parsed.data;
  throw new ToolCallError(
    `Invalid arguments for tool "${tool.id}":\n${z.prettifyError(parsed.error)}\nFix the arguments and call the tool again.`,
  );
}

function blocked(error: unknown, verb: string): ToolCallError {
  if (PluginError.isInstance(error)) {
    const cause = (error.cause as Error | undefined)?.message ?? error.message;
    return new ToolCallError(`Tool call ${verb} plugin "${error.plugin}" (hook ${error.hook}): ${cause}`, { cause: error });
  }
  return new ToolCallError((error as Error)?.message ?? String(error), { cause: error });
}

export function unknownToolMessage(name: string, available: string[]): string {
  return `Unknown tool "${name}". Available tools: ${available.join(", ") || "none"}. Call one of these instead.`;
}
