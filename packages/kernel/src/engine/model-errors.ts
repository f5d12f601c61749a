import { STATUS_CODES } from "node:http";
import type {
  APICallError as AiAPICallError,
  LoadAPIKeyError as AiLoadAPIKeyError,
  RetryError as AiRetryError,
  StreamProviderError as AiStreamProviderError,
} from "ai";

/**
 * The AI SDK's error classes, recognised the way their own `isInstance` does (a `Symbol.for`
 * marker), so classifying an error does not load the `ai` package (~100 ms) at start-up.
 */
const aiError = <T>(name: string) => {
  const marker = Symbol.for(`vercel.ai.error.${name}`);
  return { isInstance: (error: unknown): error is T => typeof error === "object" && error !== null && (error as Record<symbol, unknown>)[marker] === true };
};
const APICallError = aiError<AiAPICallError>("AI_APICallError");
const LoadAPIKeyError = aiError<AiLoadAPIKeyError>("AI_LoadAPIKeyError");
const RetryError = aiError<AiRetryError>("AI_RetryError");
const StreamProviderError = aiError<AiStreamProviderError>("AI_StreamProviderError");
import { MessageErrorSchema, type MessageError } from "../session/message.js";

/**
 * Turning whatever a model call throws into a `MessageError` the session can store, show and
 * decide to retry on.
 *
 * ## Contract for provider plugins
 *
 * A provider whose API reports an overflowing prompt in a way the patterns below miss can say
 * so explicitly: throw (or emit as a stream `error` part) an error whose `name` is
 * `"ContextOverflowError"`, or any error with a property `isContextOverflow === true`. The
 * marker is also honoured on the error's `cause`, so wrapping it (as the AI SDK does) keeps it.
 * The engine then compacts the session instead of failing or retrying the same prompt.
 */

/** What a stored response body is cut to, in UTF-16 code units: enough to diagnose, small enough to persist per message. */
export const RESPONSE_BODY_LIMIT = 4096;

/** Messages of retryable transport failures start with these, which `retryMessage` relies on. */
export const NETWORK_ERROR_PREFIX = "network error: ";
export const TIMEOUT_ERROR_PREFIX = "timed out: ";

export interface ToMessageErrorContext {
  /** The provider the call went to, named in auth errors. */
  readonly providerID?: string;
  /**
   * The turn's abort signal. When it has fired, whatever the call threw (a custom abort reason,
   * a "terminated" stream…) is reported as `AbortedError`, since the user stopped the turn.
   */
  readonly signal?: AbortSignal;
}

// Messages that providers use for a prompt larger than the model's context window. Matched
// against the error message, response body and provider error code, lower-cased.
const OVERFLOW_PATTERNS: readonly RegExp[] = [
  /context[_ ]length/, // OpenAI/Azure context_length_exceeded, "maximum context length" (OpenAI, OpenRouter, DeepSeek, vLLM, Mistral), LM Studio, Ollama "exceeded max context length"
  /context[_ ]window/, // OpenAI Responses "exceeds the context window", MiniMax, z.ai model_context_window_exceeded
  /context[_ ]limit/, // Anthropic "input length and `max_tokens` exceed context limit"
  /context size/, // llama.cpp "exceeds the available context size"
  /prompt[_ ](?:is[_ ])?too[_ ]long/, // Anthropic, Bedrock, Ollama
  /input is too long/, // Bedrock "Input is too long for requested model"
  /exceeds the maximum number of tokens/, // Google
  /input token count/, // Google "The input token count (…) exceeds the maximum …"
  /token count of \d+ exceeds/, // GitHub Copilot "prompt token count of N exceeds the limit of M"
  /too many (?:input )?tokens/, // Cohere, generic
  /reduce the length of the messages/, // Groq, OpenAI legacy
  /maximum prompt length/, // xAI
  /maximum model length/, // vLLM "longer than the maximum model length"
  /exceeded model token limit/, // Moonshot / Kimi
  /num_ctx/, // Ollama hints at raising num_ctx
  /request entity too large/, // HTTP 413 from proxies that replace the body
];

// Billing exhaustion arrives as a 429 (OpenAI) but waiting does not help.
const QUOTA_PATTERN = /insufficient_quota|exceeded your current quota/i;
const OVERLOADED_PATTERN = /overloaded/i;

// Transport failure codes from Node (libuv), undici and Bun that a later attempt can get past.
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ENETUNREACH",
  "ENETDOWN",
  "EHOSTUNREACH",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "ConnectionRefused",
  "ConnectionClosed",
  "FailedToOpenSocket",
]);
const NETWORK_MESSAGE = /^(?:fetch failed|failed to fetch|terminated|network error)$|socket hang up|other side closed/i;

/** Map anything a model call threw to the `MessageError` stored on the assistant message. */
export function toMessageError(error: unknown, ctx: ToMessageErrorContext = {}): MessageError {
  // The AI SDK's own retry loop wraps the real failure; report that one.
  if (RetryError.isInstance(error)) {
    if (error.reason === "abort") return aborted(error);
    if (error.lastError !== undefined) return toMessageError(error.lastError, ctx);
  }

  if (isAbort(error) || (ctx.signal?.aborted && !isTimeout(error))) return aborted(error);

  if (isPlainObject(error)) {
    // Already mapped (e.g. a stored error re-thrown): keep it as it is.
    const parsed = MessageErrorSchema.safeParse(error);
    if (parsed.success) return parsed.data;
  }

  if (hasOverflowMarker(error)) {
    const message = (isObject(error) && bodyMessage(error)) || "The prompt is too long for the model's context window";
    return { name: "ContextOverflowError", message, retryable: false };
  }

  if (LoadAPIKeyError.isInstance(error)) {
    return {
      name: "ProviderAuthError",
      providerID: ctx.providerID ?? "unknown",
      message: `No API key for ${providerLabel(ctx)}. ${error.message}`.trim(),
      retryable: false,
    };
  }

  if (APICallError.isInstance(error)) {
    return fromHttpFailure(
      {
        message: apiCallMessage(error),
        statusCode: error.statusCode,
        responseHeaders: error.responseHeaders,
        responseBody: error.responseBody ?? stringifyData(error.data),
        isRetryable: error.isRetryable,
        cause: error.cause,
      },
      error,
      ctx,
    );
  }

  if (StreamProviderError.isInstance(error)) {
    return fromHttpFailure(
      {
        message: error.message,
        statusCode: error.statusCode,
        responseBody: stringifyData(error.data),
        isRetryable: error.isRetryable,
        cause: error.cause,
      },
      error,
      ctx,
    );
  }

  if (isTimeout(error)) {
    return { name: "APIError", message: TIMEOUT_ERROR_PREFIX + (describe(error) || "the model call took too long"), retryable: true };
  }

  const network = networkDetail(error);
  if (network !== undefined) return { name: "APIError", message: NETWORK_ERROR_PREFIX + network, retryable: true };

  if (isContextOverflow(error)) {
    return { name: "ContextOverflowError", message: describe(error), retryable: false };
  }

  return { name: "UnknownError", message: describe(error) || "Unknown error" };
}

/**
 * Whether a failed model call was rejected because the prompt does not fit the model's context
 * window, so compacting the session (not retrying) is the way forward. Recognises the marker
 * described in the module contract, HTTP 413, and the messages of the major providers in any
 * status except 429 (rate-limit messages also talk about tokens).
 */
export function isContextOverflow(error: unknown): boolean {
  if (RetryError.isInstance(error) && error.lastError !== undefined) return isContextOverflow(error.lastError);
  if (hasOverflowMarker(error)) return true;
  if (!isObject(error)) return typeof error === "string" && matchesOverflow(error);
  const status = numberField(error, "statusCode");
  if (status === 429) return false;
  if (status === 413) return true;
  return matchesOverflow(overflowHaystack(error));
}

interface HttpFailure {
  message: string;
  statusCode?: number | undefined;
  responseHeaders?: Record<string, string> | undefined;
  responseBody?: string | undefined;
  isRetryable?: boolean | undefined;
  cause?: unknown;
}

// APICallError and StreamProviderError carry the same facts; map them the same way.
function fromHttpFailure(failure: HttpFailure, original: unknown, ctx: ToMessageErrorContext): MessageError {
  const { statusCode: status } = failure;
  if (isContextOverflow(original)) {
    return { name: "ContextOverflowError", message: failure.message, retryable: false };
  }

  if (status === 401 || status === 403) {
    const problem =
      status === 401 ? "the API key is missing or invalid" : "the API key is invalid or not allowed to use this model";
    return {
      name: "ProviderAuthError",
      providerID: ctx.providerID ?? "unknown",
      message: `${capitalise(providerLabel(ctx))} rejected the request (HTTP ${status}): ${problem}. ${failure.message}`.trim(),
      retryable: false,
    };
  }

  // A connection that failed or dropped mid-response (status absent or 2xx): the request itself was fine.
  if (status === undefined || (status >= 200 && status < 300)) {
    const network = networkDetail(failure.cause);
    if (network !== undefined) {
      const detail = status === undefined ? network : `the response stream was interrupted (${network})`;
      return { name: "APIError", message: NETWORK_ERROR_PREFIX + detail, retryable: true };
    }
    if (isTimeout(failure.cause)) {
      return { name: "APIError", message: TIMEOUT_ERROR_PREFIX + failure.message, retryable: true };
    }
  }

  const result: MessageError = {
    name: "APIError",
    message: failure.message,
    retryable: isRetryableFailure(failure),
  };
  if (status !== undefined) result.statusCode = status;
  if (failure.responseHeaders) result.responseHeaders = lowerCaseKeys(failure.responseHeaders);
  if (failure.responseBody !== undefined) result.responseBody = truncate(failure.responseBody, RESPONSE_BODY_LIMIT);
  return result;
}

function isRetryableFailure({ statusCode: status, message, responseBody, isRetryable }: HttpFailure): boolean {
  const text = `${message}\n${responseBody ?? ""}`;
  if (status === undefined) return isRetryable === true || OVERLOADED_PATTERN.test(text);
  if (status === 429) return !QUOTA_PATTERN.test(text);
  if (status === 408 || status === 409 || status >= 500) return true;
  // Other 4xx mean the request itself is wrong; sending it again will not help.
  if (status >= 400) return false;
  return OVERLOADED_PATTERN.test(text);
}

// The AI SDK sets the message to the provider's error text when it can parse the body, and to
// the bare status text ("Bad Request") when it cannot; add what the body says in that case.
function apiCallMessage(error: AiAPICallError): string {
  const generic = error.statusCode !== undefined ? STATUS_CODES[error.statusCode] : undefined;
  const base = error.message.trim();
  if (base && base !== generic) return base;
  const detail = bodyMessage(error.data) ?? bodyMessage(parseJson(error.responseBody)) ?? plainBody(error.responseBody);
  if (detail && base) return `${base}: ${detail}`;
  return detail || base || generic || (error.statusCode !== undefined ? `HTTP ${error.statusCode}` : "API call failed");
}

// The error text inside the JSON bodies of OpenAI, Anthropic, Google, Ollama and friends.
function bodyMessage(body: unknown): string | undefined {
  if (Array.isArray(body)) return bodyMessage(body[0]);
  if (!isObject(body)) return undefined;
  const inner = body["error"];
  if (typeof inner === "string" && inner) return inner;
  if (isObject(inner) && typeof inner["message"] === "string" && inner["message"]) return inner["message"];
  for (const key of ["message", "detail"]) {
    const value = body[key];
    if (typeof value === "string" && value) return value;
  }
  return undefined;
}

// A short non-JSON, non-HTML body is usually a readable sentence from a proxy; HTML is noise.
function plainBody(body: string | undefined): string | undefined {
  const text = body?.trim();
  if (!text || text.startsWith("<") || text.startsWith("{") || text.startsWith("[")) return undefined;
  return truncate(text, 300);
}

function hasOverflowMarker(error: unknown, depth = 0): boolean {
  if (!isObject(error) || depth > 3) return false;
  if (error["name"] === "ContextOverflowError" || error["isContextOverflow"] === true) return true;
  return hasOverflowMarker(error["cause"], depth + 1);
}

function overflowHaystack(error: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const key of ["message", "responseBody", "code", "type"]) {
    const value = error[key];
    if (typeof value === "string" || typeof value === "number") parts.push(String(value));
  }
  if (error["responseBody"] === undefined) {
    const data = stringifyData(error["data"]);
    if (data) parts.push(data);
  }
  const cause = error["cause"];
  if (isObject(cause) && typeof cause["message"] === "string") parts.push(cause["message"]);
  return parts.join("\n");
}

function matchesOverflow(text: string): boolean {
  const lower = text.toLowerCase();
  return OVERFLOW_PATTERNS.some((pattern) => pattern.test(lower));
}

function isAbort(error: unknown): boolean {
  if (!isObject(error)) return false;
  return error["name"] === "AbortError" || error["name"] === "ResponseAborted";
}

function isTimeout(error: unknown): boolean {
  return isObject(error) && error["name"] === "TimeoutError";
}

function aborted(error: unknown): MessageError {
  const message = isAbort(error) ? describe(error) : "";
  return { name: "AbortedError", message: message || "The operation was aborted" };
}

// Walks the cause chain (fetch failures nest the useful part: TypeError → SocketError/ECONNREFUSED)
// and returns a readable description when it finds a transport failure.
function networkDetail(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  const messages: string[] = [];
  let found = false;
  let code: string | undefined;
  for (let current = error; isObject(current) && !seen.has(current) && seen.size < 8; current = current["cause"]) {
    seen.add(current);
    const message = typeof current["message"] === "string" ? current["message"].trim() : "";
    const currentCode = typeof current["code"] === "string" ? current["code"] : undefined;
    if (message && !messages.some((m) => m.includes(message))) messages.push(message);
    if (currentCode && NETWORK_CODES.has(currentCode)) {
      found = true;
      code ??= currentCode;
    }
    if (message && NETWORK_MESSAGE.test(message)) found = true;
  }
  if (!found) return undefined;
  const text = messages.join(": ") || "connection failed";
  return code && !text.includes(code) ? `${text} (${code})` : text;
}

// A readable message for anything: never "[object Object]", and the cause when it adds something.
function describe(error: unknown): string {
  if (typeof error === "string") return error;
  if (error === null || error === undefined) return "";
  if (!isObject(error)) return String(error);
  let message = bodyMessage(error) ?? "";
  if (!message && error instanceof Error) message = error.name && error.name !== "Error" ? error.name : "";
  const cause = error["cause"];
  const causeMessage = isObject(cause) ? bodyMessage(cause) : typeof cause === "string" ? cause : undefined;
  if (causeMessage && !message.includes(causeMessage)) message = message ? `${message}: ${causeMessage}` : causeMessage;
  if (message) return message;
  const json = stringifyData(error);
  return json && json !== "{}" ? truncate(json, 1000) : "";
}

function stringifyData(data: unknown): string | undefined {
  if (data === undefined || data === null) return undefined;
  if (typeof data === "string") return data;
  try {
    return JSON.stringify(data);
  } catch {
    return undefined;
  }
}

function parseJson(text: string | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function truncate(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const marker = "… [truncated]";
  let end = limit - marker.length;
  // Do not split a surrogate pair.
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return text.slice(0, end) + marker;
}

function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) {
    if (typeof value === "string") out[key.toLowerCase()] = value;
  }
  return out;
}

function providerLabel(ctx: ToMessageErrorContext): string {
  return ctx.providerID ? `provider "${ctx.providerID}"` : "the provider";
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function numberField(error: Record<string, unknown>, key: string): number | undefined {
  const value = error[key];
  return typeof value === "number" ? value : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (!isObject(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
