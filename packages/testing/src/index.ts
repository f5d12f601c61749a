/**
 * @tessera/testing — test kit for Tessera and its plugins.
 *
 * `startScriptedServer` runs a scripted model on 127.0.0.1 that speaks the OpenAI Chat
 * Completions wire format (SSE), so the real HTTP path of the agent can be tested without keys.
 */
export { startScriptedServer } from "./server.js";
export type {
  ErrorTurn,
  ScriptEntry,
  ScriptedErrorPayload,
  ScriptedFinishReason,
  ScriptedRequest,
  ScriptedServer,
  ScriptedServerOptions,
  ScriptedToolCall,
  ScriptedUsage,
  StreamTurn,
  Turn,
  TurnFactory,
  TurnTiming,
  UsageChunkMode,
} from "./types.js";
