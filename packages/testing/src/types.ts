/**
 * Public types of the scripted model server.
 *
 * A *script* is an ordered list of turns. Every `POST /v1/chat/completions` request consumes the
 * next entry; an entry is either a {@link Turn} literal or a {@link TurnFactory} that builds the
 * turn from the request it answers.
 */

/** Token usage reported for a turn. Omitted fields are computed deterministically. */
export interface ScriptedUsage {
  /** `prompt_tokens`. Default: `ceil(length of the JSON of the request's messages / 4)`. */
  input?: number;
  /** `completion_tokens` (includes reasoning). Default: `ceil((text + reasoning + tool-call chars) / 4)`. */
  output?: number;
  /** `completion_tokens_details.reasoning_tokens`. Default: `ceil(reasoning chars / 4)`. */
  reasoning?: number;
  /** `prompt_tokens_details.cached_tokens`. Default: 0. */
  cacheRead?: number;
}

/** One tool call the scripted model makes. */
export interface ScriptedToolCall {
  /** Function name (`function.name`). */
  name: string;
  /**
   * Arguments. Objects/arrays are serialised with `JSON.stringify`; a string is sent verbatim,
   * which lets a test send malformed JSON.
   */
  arguments: Record<string, unknown> | unknown[] | string;
  /** Tool call id. Default: `call_<n>`, counting across the whole server. */
  id?: string;
}

/** Finish reasons the wire format knows. */
export type ScriptedFinishReason = "stop" | "length" | "tool_calls" | "content_filter";

/** Options every turn accepts. */
export interface TurnTiming {
  /** Wait this long before writing the first byte of the response. */
  delayMs?: number;
}

/** A successful, streamed (or, for `stream: false` requests, JSON) completion. */
export interface StreamTurn extends TurnTiming {
  /** Reasoning text, sent as `delta.reasoning_content` before the text. */
  reasoning?: string;
  /** Assistant text, sent as `delta.content`. */
  text?: string;
  /** Tool calls, sent as `delta.tool_calls` after the text. */
  toolCalls?: ScriptedToolCall[];
  /**
   * Characters per delta for reasoning, text and tool-call arguments. Default: 4. Text is always
   * split into at least two deltas when it has two or more characters.
   */
  chunkSize?: number;
  /** Default: `"tool_calls"` when `toolCalls` is non-empty, else `"stop"`. */
  finishReason?: ScriptedFinishReason;
  /** Usage reported in the final chunk. */
  usage?: ScriptedUsage;
  /** `model` field of the chunks. Default: the request's `model`, else the server's model id. */
  model?: string;
  /** Extra response headers. */
  headers?: Record<string, string>;
  /** Wait this long between two SSE events (explicit timer; default 0 = write back to back). */
  chunkDelayMs?: number;
  /**
   * Network drop: send this many SSE events (chunks), then destroy the socket. No finish chunk
   * is implied beyond what fits in n, and no `[DONE]`. `0` drops right after the headers.
   */
  cutAfterChunks?: number;
  /**
   * Never finish: send `afterChunks` events (default 0), then keep the connection open until
   * the client goes away or the server closes.
   */
  hang?: boolean;
  /** See {@link StreamTurn.hang}. */
  afterChunks?: number;
}

/** OpenAI-shaped error payload. */
export interface ScriptedErrorPayload {
  message?: string;
  /** Default derived from status: 400 `invalid_request_error`, 401 `authentication_error`, 429 `rate_limit_error`, 5xx `server_error`. */
  type?: string;
  code?: string | number | null;
  param?: string | null;
}

/** An HTTP error response. */
export interface ErrorTurn extends TurnTiming {
  /** HTTP status, e.g. 400, 401, 429, 500, 503. */
  status: number;
  /** Response headers, e.g. `{ "retry-after": "1" }` or `{ "retry-after-ms": "50" }`. */
  headers?: Record<string, string>;
  /** Fields of the `{ error: { message, type, code, param } }` body. */
  error?: ScriptedErrorPayload;
  /**
   * Raw body override: a string is sent verbatim (content-type text/plain unless a
   * content-type header is given), anything else as JSON. Replaces the `error` body.
   */
  body?: unknown;
}

export type Turn = StreamTurn | ErrorTurn;

/** A request the server received. */
export interface ScriptedRequest {
  /** 1-based sequence number over all requests (including non-completion ones). */
  index: number;
  method: string;
  /** Path without the query string, e.g. `/v1/chat/completions`. */
  path: string;
  /** Lower-cased header names, as Node delivers them. */
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body; `undefined` when empty; the raw string when it was not JSON. */
  body: any;
}

/** Builds a turn at request time, for dynamic behaviour. */
export type TurnFactory = (request: ScriptedRequest) => Turn | Promise<Turn>;

export type ScriptEntry = Turn | TurnFactory;

/**
 * When to send the final usage chunk (`choices: []`, `usage: {...}`):
 * - `"requested"` (default, what OpenAI does): only when the request has
 *   `stream_options.include_usage: true` (the AI SDK sends it when the provider is created with
 *   `includeUsage: true`); other chunks then carry `usage: null`.
 * - `"always"`: on every stream (what many OpenAI-compatible servers do).
 * - `"never"`.
 */
export type UsageChunkMode = "requested" | "always" | "never";

export interface ScriptedServerOptions {
  script: ScriptEntry[];
  /** Port to bind on 127.0.0.1. Default 0 (ephemeral). */
  port?: number;
  /** Model id listed by `GET /v1/models` and used when the request names none. Default `"scripted-model"`. */
  model?: string;
  /** See {@link UsageChunkMode}. Default `"requested"`. */
  usageChunk?: UsageChunkMode;
  /** Fixed `created` timestamp (seconds) in every chunk. Default 1700000000. */
  created?: number;
  /**
   * Answers every non-streaming request (`stream: false`, e.g. a background title call) without
   * consuming the script. Default: non-streaming requests take the next turn like any other.
   */
  nonStreaming?: ScriptEntry;
}

export interface ScriptedServer {
  /** Base URL including `/v1`, e.g. `http://127.0.0.1:54321/v1`. */
  readonly url: string;
  readonly port: number;
  /** Every request received, in order (completions, models, unknown paths). */
  readonly requests: readonly ScriptedRequest[];
  /** Only the `POST /v1/chat/completions` requests. */
  readonly completionRequests: readonly ScriptedRequest[];
  /** Script entries not yet consumed. */
  readonly remaining: number;
  /** Append more turns to the script. */
  push(...turns: ScriptEntry[]): void;
  /** Stop listening and destroy every open connection (hung streams included). Idempotent. */
  close(): Promise<void>;
  /** `await using server = await startScriptedServer(...)`. */
  [Symbol.asyncDispose](): Promise<void>;
}
