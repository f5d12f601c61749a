import type { ToolSet } from "ai";

interface RawToolCall {
  readonly toolName: string;
  readonly input: string;
}

/**
 * Repairs a model's tool call where that is safe: a tool name in the wrong case or with `-` for
 * `_`, and JSON input wrapped in a code fence or with trailing commas. Returns `null` when it
 * cannot; the call then reaches the model as an error that says what was wrong.
 */
export function repairToolCall<T extends RawToolCall>(toolCall: T, tools: ToolSet): T | null {
  const names = Object.keys(tools);
  const toolName = names.includes(toolCall.toolName) ? toolCall.toolName : matchName(toolCall.toolName, names);
  if (!toolName) return null;
  const input = parses(toolCall.input) ? toolCall.input : repairJson(toolCall.input);
  if (input === undefined) return null;
  if (toolName === toolCall.toolName && input === toolCall.input) return null;
  return { ...toolCall, toolName, input };
}

function matchName(name: string, names: readonly string[]): string | undefined {
  const normal = (n: string) => n.toLowerCase().replace(/-/g, "_");
  return names.find((n) => normal(n) === normal(name));
}

function repairJson(text: string): string | undefined {
  let candidate = text.trim();
  const fence = /^```(?:json)?\s*([\s\S]*?)\s*```$/.exec(candidate);
  if (fence) candidate = fence[1]!;
  candidate = candidate.replace(/,\s*([}\]])/g, "$1");
  return parses(candidate) ? candidate : undefined;
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
