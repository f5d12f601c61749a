/**
 * @tessera/testing — test kit for Tessera and its plugins.
 *
 * `startScriptedServer` runs a scripted model on 127.0.0.1 that speaks the OpenAI Chat
 * Completions wire format (SSE), so the real HTTP path of the agent can be tested without keys.
 * `startAnthropicServer`, `startResponsesServer` and `startGeminiServer` speak the Anthropic
 * Messages, OpenAI Responses and Gemini `streamGenerateContent` formats with the same scripts.
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
export { startAnthropicServer, startGeminiServer, startResponsesServer } from "./provider-server.js";
export type {
  ProviderScriptEntry,
  ProviderScriptedServer,
  ProviderServerOptions,
  ProviderStreamError,
  ProviderStreamTurn,
  ProviderTurn,
  ProviderTurnFactory,
  ProviderUsage,
  ProviderWireFormat,
} from "./provider-types.js";
