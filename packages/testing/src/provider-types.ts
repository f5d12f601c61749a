/**
 * Public types of the scripted servers for the other wire formats: Anthropic Messages (SSE),
 * OpenAI Responses (SSE) and Gemini `streamGenerateContent` (SSE, `alt=sse`).
 *
 * They share the turn language of the chat-completions server (`text`, `reasoning`, `toolCalls`,
 * `usage`, `chunkSize`, `cutAfterChunks`, `hang`, error turns …); each server renders a turn in
 * its own wire format.
 */
import type { ErrorTurn, ScriptedRequest, StreamTurn } from "./types.js";

/** Usage of a turn. `input` is the whole prompt, cached parts included (as OpenAI counts it). */
export interface ProviderUsage {
  /** Whole prompt in tokens. Default: `ceil(length of the JSON of the request's messages / input / contents / 4)`. */
  input?: number;
  /** Completion tokens, reasoning included. Default: `ceil((text + reasoning + tool-call chars) / 4)`. */
  output?: number;
  /** Reasoning tokens (part of `output`). Default: `ceil(reasoning chars / 4)`. */
  reasoning?: number;
  /** Prompt tokens read from the cache (part of `input`). Default 0. */
  cacheRead?: number;
  /** Prompt tokens written to the cache (part of `input`; Anthropic only). Default 0. */
  cacheWrite?: number;
}

/**
 * An error the provider reports inside a 200 stream (Anthropic `event: error`, OpenAI Responses
 * `error`, Gemini a chunk with `error`), sent after `afterChunks` events instead of the rest.
 */
export interface ProviderStreamError {
  /** Events sent before the error event. Default: every content event (all but the finishing ones). */
  afterChunks?: number;
  message?: string;
  /** Anthropic `error.type` (default `overloaded_error`), Responses `code` (default `server_error`), Gemini `status` (default `INTERNAL`). */
  type?: string;
  /** Responses `code`; Gemini `error.code` (a number). */
  code?: string | number;
}

/** A successful streamed turn, in whatever wire format the server speaks. */
export interface ProviderStreamTurn extends Omit<StreamTurn, "usage"> {
  usage?: ProviderUsage;
  /** Replace the end of the stream with an in-stream error event. */
  streamError?: ProviderStreamError;
}

export type ProviderTurn = ProviderStreamTurn | ErrorTurn;
export type ProviderTurnFactory = (request: ScriptedRequest) => ProviderTurn | Promise<ProviderTurn>;
export type ProviderScriptEntry = ProviderTurn | ProviderTurnFactory;

/** The wire formats of the provider servers. */
export type ProviderWireFormat = "anthropic" | "openai-responses" | "gemini";

export interface ProviderServerOptions {
  script: ProviderScriptEntry[];
  /** Port to bind on 127.0.0.1. Default 0 (ephemeral). */
  port?: number;
  /** Model id reported when the request names none. Default `"scripted-model"`. */
  model?: string;
  /** Fixed `created_at` (seconds) for Responses objects. Default 1700000000. */
  created?: number;
}

export interface ProviderScriptedServer {
  /** The format this server speaks. */
  readonly format: ProviderWireFormat;
  /**
   * The `baseURL` for the AI SDK provider: `http://127.0.0.1:PORT/v1` (Anthropic, Responses) or
   * `http://127.0.0.1:PORT/v1beta` (Gemini).
   */
  readonly url: string;
  readonly port: number;
  /** Every request received, in order. */
  readonly requests: readonly ScriptedRequest[];
  /** Only the model requests (the ones that consume script entries). */
  readonly completionRequests: readonly ScriptedRequest[];
  /** Script entries not yet consumed. */
  readonly remaining: number;
  push(...turns: ProviderScriptEntry[]): void;
  /** Stop listening and destroy open connections. Idempotent. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}
