/** The session engine: prompt → loop → processor, the tool chokepoint, permissions, retry and agents. */
export { SessionEngine } from "./engine.js";
export type { PromptInput, PromptResult } from "./engine.js";
export type { PromptFile } from "./user-message.js";
export { PermissionDeniedError } from "./permission.js";
export type { PermissionAsker, AskRequest } from "./permission.js";
export { ToolCallError, executeToolCall } from "./tool-call.js";
export { DOOM_LOOP_THRESHOLD, isDoomLoop } from "./doom-loop.js";
export { DEFAULT_MAX_STEPS } from "./loop.js";
export { MAX_RETRY_ATTEMPTS } from "./processor.js";
export { DEFAULT_FLUSH_INTERVAL_MS } from "./part-writer.js";
export { toModelMessages } from "./model-messages.js";
export { parseModelRef, ModelResolveError } from "./models.js";
export { toMessageError, isContextOverflow } from "./model-errors.js";
export { retryDelay, retryMessage, sleep, RETRY_INITIAL_MS, RETRY_MAX_MS } from "./retry.js";
export { stepUsage, addTokens, emptyTokens } from "./usage.js";
export { BUILTIN_AGENTS, DEFAULT_AGENT, resolveAgents, isToolEnabled } from "./agents.js";
export { buildSystemPrompt } from "./system-prompt.js";
export {
  SessionStatusSchema,
  SessionCreated,
  SessionUpdated,
  SessionDeleted,
  SessionStatusChanged,
  SessionIdle,
  SessionErrored,
  MessageUpdated,
  MessagePartUpdated,
  MessagePartRemoved,
  PermissionAsked,
  PermissionReplied,
  PermissionDecided,
  PermissionReplySchema,
} from "./events.js";
export type { SessionStatus, PermissionReply } from "./events.js";
