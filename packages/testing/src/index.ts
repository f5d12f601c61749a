/**
 * @tessera/testing — test kit for Tessera and its plugins.
 *
 * `startScriptedServer` runs a scripted model on 127.0.0.1 that speaks the OpenAI Chat
 * Completions wire format (SSE), so the real HTTP path of the agent can be tested without keys.
 * `startAnthropicServer`, `startResponsesServer` and `startGeminiServer` speak the Anthropic
 * Messages, OpenAI Responses and Gemini `streamGenerateContent` formats with the same scripts.
 *
 * In process, without HTTP: `scriptedModel` (an `ai/test` mock playing scripted steps),
 * `mockProvider` (serves it as `mock/mock-model`), `tempProject` (a temp git project with an
 * isolated home) and `testKernel` (a real kernel over one, with the plugins under test).
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
export { finishPart, rawStream, scriptedModel, streamParts } from "./kernel/model.js";
export type { ScriptedModel, ScriptedStep, StepCall, StepToolCall, StepUsage, StreamStep } from "./kernel/model.js";
export { mockProvider } from "./kernel/provider.js";
export { tempProject } from "./kernel/project.js";
export type { TempProject } from "./kernel/project.js";
export { testKernel, testPlugin } from "./kernel/kernel.js";
export type { PluginEntry, TestKernel, TestKernelOptions } from "./kernel/kernel.js";
export { recordEvents, toolParts } from "./kernel/inspect.js";
export type { RecordedEvents } from "./kernel/inspect.js";
