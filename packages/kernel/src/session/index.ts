/**
 * The session data layer: zod schemas for sessions, messages and parts (the source of truth for
 * both the types and the JSON stored), ascending ids, and the SQLite store.
 */
export { SessionStore } from "./session-store.js";
export type { SessionStoreOptions } from "./session-store.js";
export type { CreateSessionInput, SessionPatch, ListSessionsOptions } from "./sessions.js";
export type { MessageWithParts, MessagePage } from "./messages.js";
export { SessionStoreError, SessionStoreErrorCodes } from "./errors.js";
export type { SessionStoreErrorCode } from "./errors.js";
export { defaultDatabasePath, DATABASE_FILE, DEFAULT_BUSY_TIMEOUT_MS } from "./database.js";
export { SCHEMA_VERSION } from "./migrations.js";
export { ABORTED_TOOL_ERROR } from "./recover.js";

export {
  newId,
  createIdGenerator,
  ID_PREFIXES,
  SessionIDSchema,
  MessageIDSchema,
  PartIDSchema,
} from "./ids.js";
export type { IdKind, IdGenerator } from "./ids.js";

export { SessionInfoSchema, SessionRevertSchema } from "./session-info.js";
export type { SessionInfo, SessionRevert } from "./session-info.js";

export {
  MessageSchema,
  UserMessageSchema,
  AssistantMessageSchema,
  MessageErrorSchema,
  TokensSchema,
  ModelRefSchema,
} from "./message.js";
export type { Message, UserMessage, AssistantMessage, MessageError, Tokens, ModelRef } from "./message.js";

export {
  PartSchema,
  TextPartSchema,
  ReasoningPartSchema,
  FilePartSchema,
  FilePartSourceSchema,
  ToolPartSchema,
  ToolStateSchema,
  ToolStatePendingSchema,
  ToolStateRunningSchema,
  ToolStateCompletedSchema,
  ToolStateErrorSchema,
  StepStartPartSchema,
  StepFinishPartSchema,
  PatchPartSchema,
  AgentPartSchema,
  SubtaskPartSchema,
  CompactionPartSchema,
  RetryPartSchema,
} from "./part.js";
export type {
  Part,
  PartType,
  TextPart,
  ReasoningPart,
  FilePart,
  FilePartSource,
  ToolPart,
  ToolState,
  ToolStatePending,
  ToolStateRunning,
  ToolStateCompleted,
  ToolStateError,
  StepStartPart,
  StepFinishPart,
  PatchPart,
  AgentPart,
  SubtaskPart,
  CompactionPart,
  RetryPart,
} from "./part.js";
