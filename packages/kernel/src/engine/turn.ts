import type { MessageWithParts } from "../session/messages.js";
import type { AssistantMessage, UserMessage } from "../session/message.js";
import type { SubtaskPart } from "../session/part.js";
import type { RecentCall } from "./doom-loop.js";

/** What the loop needs to know of a session's history, derived from the stored messages each step. */
export interface TurnState {
  readonly lastUser?: UserMessage;
  readonly lastAssistant?: AssistantMessage;
  readonly lastFinished?: AssistantMessage;
  /** Subtask parts of the last user message that no assistant message has run yet. */
  readonly pendingSubtasks: SubtaskPart[];
  /** Tool calls answering the last user message, oldest first (for doom-loop detection). */
  readonly recentCalls: RecentCall[];
}

/** Finish reasons after which the model expects another step. */
const CONTINUE_REASONS = new Set(["tool-calls", "unknown"]);

export function turnState(history: readonly MessageWithParts[]): TurnState {
  let lastUser: UserMessage | undefined;
  let lastAssistant: AssistantMessage | undefined;
  let lastFinished: AssistantMessage | undefined;
  let userIndex = -1;
  for (let i = history.length - 1; i >= 0; i--) {
    const info = history[i]!.info;
    if (info.role === "user" && !lastUser) {
      lastUser = info;
      userIndex = i;
    }
    if (info.role === "assistant") {
      lastAssistant ??= info;
      if (!lastFinished && info.finish && !info.error) lastFinished = info;
    }
    if (lastUser && lastAssistant && lastFinished) break;
  }
  const answers = userIndex === -1 ? [] : history.slice(userIndex + 1);
  const ranSubtasks = new Set<string>();
  const recentCalls: RecentCall[] = [];
  for (const { parts } of answers) {
    for (const part of parts) {
      if (part.type !== "tool") continue;
      const subtask = "metadata" in part.state ? part.state.metadata?.subtask : undefined;
      if (typeof subtask === "string") ranSubtasks.add(subtask);
      if (part.state.status !== "pending") recentCalls.push({ tool: part.tool, input: part.state.input });
    }
  }
  const pendingSubtasks =
    userIndex === -1
      ? []
      : history[userIndex]!.parts.filter((p): p is SubtaskPart => p.type === "subtask" && !ranSubtasks.has(p.id));
  return {
    ...(lastUser ? { lastUser } : {}),
    ...(lastAssistant ? { lastAssistant } : {}),
    ...(lastFinished ? { lastFinished } : {}),
    pendingSubtasks,
    recentCalls,
  };
}

/** The turn is over: the last assistant message answers the last user message and stopped for good. */
export function isTurnDone(state: TurnState): boolean {
  const { lastUser, lastAssistant } = state;
  if (!lastUser) return true;
  if (!lastAssistant || lastAssistant.id < lastUser.id) return false;
  if (state.pendingSubtasks.length > 0) return false;
  if (lastAssistant.error) return true;
  return lastAssistant.finish !== undefined && !CONTINUE_REASONS.has(lastAssistant.finish);
}
