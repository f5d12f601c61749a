import type { ModelMessage } from "ai";
import type { MessageWithParts } from "../session/messages.js";
import type { FilePart, Part, ToolPart } from "../session/part.js";

/** What the model sees instead of a tool output that compaction pruned. */
export const COMPACTED_OUTPUT = "[Old tool result content cleared]";
/** What the model sees for a tool call that never finished (crash, abort). */
export const INTERRUPTED_OUTPUT = "Tool execution was interrupted";

/**
 * The messages the model sees: everything from the latest compaction summary on (or the whole
 * session), turned into AI SDK model messages. Tool calls become an assistant tool-call plus a
 * tool result; ignored and empty text is dropped; failed assistant messages without content are
 * skipped.
 */
export function toModelMessages(history: readonly MessageWithParts[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (const { info, parts } of sinceLastSummary(history)) {
    if (info.role === "user") {
      const content = userContent(parts);
      if (content.length > 0) out.push({ role: "user", content });
      continue;
    }
    const assistant: Exclude<ModelMessage, { role: "system" | "user" | "tool" }>["content"] = [];
    const results: Array<Extract<ModelMessage, { role: "tool" }>["content"][number]> = [];
    for (const part of parts) {
      if (part.type === "text" && !part.ignored && part.text !== "") assistant.push({ type: "text", text: part.text });
      else if (part.type === "reasoning" && part.text !== "") {
        assistant.push({ type: "reasoning", text: part.text, ...providerOptions(part.metadata) });
      } else if (part.type === "tool") {
        assistant.push({ type: "tool-call", toolCallId: part.callID, toolName: part.tool, input: part.state.input });
        results.push({ type: "tool-result", toolCallId: part.callID, toolName: part.tool, output: toolOutput(part) });
      }
    }
    if (assistant.length === 0) continue;
    out.push({ role: "assistant", content: assistant });
    if (results.length > 0) out.push({ role: "tool", content: results });
  }
  return out;
}

function sinceLastSummary(history: readonly MessageWithParts[]): readonly MessageWithParts[] {
  for (let i = history.length - 1; i >= 0; i--) {
    const { info } = history[i]!;
    if (info.role === "assistant" && info.summary && info.finish && !info.error) {
      const parentIndex = history.findIndex((m) => m.info.id === info.parentID);
      return history.slice(parentIndex === -1 ? i : parentIndex);
    }
  }
  return history;
}

function userContent(parts: readonly Part[]) {
  const content: Array<{ type: "text"; text: string } | { type: "file"; data: URL | string; mediaType: string; filename?: string }> = [];
  for (const part of parts) {
    if (part.type === "text" && !part.ignored && part.text !== "") content.push({ type: "text", text: part.text });
    else if (part.type === "file" && !readAsText(part)) content.push(filePart(part));
    else if (part.type === "compaction") content.push({ type: "text", text: "What did we do so far?" });
    else if (part.type === "subtask") {
      content.push({ type: "text", text: `The "${part.agent}" agent was asked to: ${part.description}` });
    }
  }
  return content;
}

/** A local text file, directory or unreadable binary: its synthetic text part already carries what the model may see. */
function readAsText(part: FilePart): boolean {
  return part.url.startsWith("file:") && ["text/plain", "application/x-directory", "application/octet-stream"].includes(part.mediaType);
}

function filePart(part: FilePart) {
  const data = part.url.startsWith("data:") ? part.url : new URL(part.url);
  return { type: "file" as const, data, mediaType: part.mediaType, ...(part.filename ? { filename: part.filename } : {}) };
}

function toolOutput(part: ToolPart) {
  const state = part.state;
  if (state.status === "completed") {
    return { type: "text" as const, value: state.time.compacted ? COMPACTED_OUTPUT : state.output };
  }
  if (state.status === "error") return { type: "error-text" as const, value: state.error };
  return { type: "error-text" as const, value: INTERRUPTED_OUTPUT };
}

function providerOptions(metadata: Record<string, unknown> | undefined) {
  const options = metadata?.providerOptions;
  return options && typeof options === "object" ? { providerOptions: options as Record<string, Record<string, never>> } : {};
}
