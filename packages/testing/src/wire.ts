/**
 * OpenAI Chat Completions wire format: chunk/response/error objects and SSE framing.
 * Pure functions, no I/O, no clock, no randomness.
 */
import type {
  ErrorTurn,
  ScriptedFinishReason,
  ScriptedToolCall,
  ScriptedUsage,
  StreamTurn,
} from "./types.js";

export const DEFAULT_CHUNK_SIZE = 4;

/** The `usage` object of the OpenAI wire format. */
export interface WireUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
  completion_tokens_details: { reasoning_tokens: number };
}

/** A tool call with its id and serialised arguments resolved. */
export interface ResolvedToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** Everything needed to render one successful turn. */
export interface RenderContext {
  /** `chatcmpl-<n>` */
  completionId: string;
  created: number;
  model: string;
  toolCalls: ResolvedToolCall[];
  usage: WireUsage;
  finishReason: ScriptedFinishReason;
}

const tokens = (chars: number): number => Math.ceil(chars / 4);

export function serializeArguments(args: ScriptedToolCall["arguments"]): string {
  return typeof args === "string" ? args : JSON.stringify(args);
}

/** Deterministic usage: explicit values win, the rest is derived from lengths. */
export function computeUsage(
  turn: StreamTurn,
  toolCalls: ResolvedToolCall[],
  requestBody: unknown,
): WireUsage {
  const spec: ScriptedUsage = turn.usage ?? {};
  const messages =
    requestBody !== null && typeof requestBody === "object" && "messages" in requestBody
      ? (requestBody as { messages: unknown }).messages
      : undefined;
  const reasoningChars = turn.reasoning?.length ?? 0;
  const outputChars =
    (turn.text?.length ?? 0) +
    reasoningChars +
    toolCalls.reduce((n, call) => n + call.name.length + call.arguments.length, 0);

  const input = spec.input ?? tokens(JSON.stringify(messages ?? "").length);
  const output = spec.output ?? tokens(outputChars);
  const reasoning = spec.reasoning ?? Math.min(output, tokens(reasoningChars));
  const cacheRead = spec.cacheRead ?? 0;
  return {
    prompt_tokens: input,
    completion_tokens: output,
    total_tokens: input + output,
    prompt_tokens_details: { cached_tokens: cacheRead },
    completion_tokens_details: { reasoning_tokens: reasoning },
  };
}

export function defaultFinishReason(turn: StreamTurn): ScriptedFinishReason {
  return turn.finishReason ?? ((turn.toolCalls?.length ?? 0) > 0 ? "tool_calls" : "stop");
}

/** Splits `text` into pieces of `size` characters (code points are not split). */
export function splitText(text: string, size: number): string[] {
  const chars = Array.from(text);
  const step = Math.max(1, Math.floor(size));
  const pieces: string[] = [];
  for (let i = 0; i < chars.length; i += step) pieces.push(chars.slice(i, i + step).join(""));
  return pieces;
}

/**
 * The JSON objects of a streamed turn, in order (each becomes one `data:` event; `[DONE]` is
 * not included):
 * 1. role chunk `delta: { role: "assistant", content: "" }`
 * 2. one chunk per reasoning piece `delta: { reasoning_content }`
 * 3. one chunk per text piece `delta: { content }`
 * 4. per tool call: a header chunk `{ index, id, type: "function", function: { name, arguments: "" } }`,
 *    then one chunk per arguments piece `{ index, function: { arguments } }`
 * 5. finish chunk `delta: {}, finish_reason`
 * 6. when `includeUsage`: usage chunk `choices: [], usage`
 */
export function renderStreamChunks(
  turn: StreamTurn,
  ctx: RenderContext,
  opts: { includeUsage: boolean; usageNullInOtherChunks: boolean },
): object[] {
  const size = turn.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const base = { id: ctx.completionId, object: "chat.completion.chunk", created: ctx.created, model: ctx.model };
  const usageNull = opts.usageNullInOtherChunks ? { usage: null } : {};
  const chunk = (delta: object, finishReason: ScriptedFinishReason | null = null): object => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...usageNull,
  });

  const chunks: object[] = [chunk({ role: "assistant", content: "" })];
  for (const piece of splitText(turn.reasoning ?? "", size)) chunks.push(chunk({ reasoning_content: piece }));
  for (const piece of splitText(turn.text ?? "", size)) chunks.push(chunk({ content: piece }));
  ctx.toolCalls.forEach((call, index) => {
    chunks.push(
      chunk({
        tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }],
      }),
    );
    for (const piece of splitText(call.arguments, size)) {
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  chunks.push(chunk({}, ctx.finishReason));
  if (opts.includeUsage) chunks.push({ ...base, choices: [], usage: ctx.usage });
  return chunks;
}

/** The `chat.completion` object answering a `stream: false` request. */
export function renderCompletion(turn: StreamTurn, ctx: RenderContext): object {
  const message: Record<string, unknown> = { role: "assistant", content: turn.text ?? null, refusal: null };
  if (turn.reasoning !== undefined) message.reasoning_content = turn.reasoning;
  if (ctx.toolCalls.length > 0) {
    message.tool_calls = ctx.toolCalls.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  return {
    id: ctx.completionId,
    object: "chat.completion",
    created: ctx.created,
    model: ctx.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: ctx.finishReason }],
    usage: ctx.usage,
  };
}

export function sseEvent(data: object | string): string {
  return `data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
}

export const SSE_DONE = sseEvent("[DONE]");

const DEFAULT_ERRORS: Record<number, { type: string; message: string }> = {
  400: { type: "invalid_request_error", message: "Bad request (scripted)." },
  401: { type: "authentication_error", message: "Incorrect API key provided (scripted)." },
  403: { type: "permission_error", message: "Forbidden (scripted)." },
  404: { type: "invalid_request_error", message: "Not found (scripted)." },
  429: { type: "rate_limit_error", message: "Rate limit reached (scripted)." },
  500: { type: "server_error", message: "The server had an error while processing your request (scripted)." },
  503: { type: "server_error", message: "The engine is currently overloaded (scripted)." },
};

/** `{ error: { message, type, param, code } }` for an error turn. */
export function errorBody(turn: ErrorTurn): { error: { message: string; type: string; param: string | null; code: string | number | null } } {
  const fallback =
    DEFAULT_ERRORS[turn.status] ??
    (turn.status >= 500
      ? { type: "server_error", message: `Server error ${turn.status} (scripted).` }
      : { type: "invalid_request_error", message: `Request failed with status ${turn.status} (scripted).` });
  return {
    error: {
      message: turn.error?.message ?? fallback.message,
      type: turn.error?.type ?? fallback.type,
      param: turn.error?.param ?? null,
      code: turn.error?.code ?? null,
    },
  };
}

export function isErrorTurn(turn: object): turn is ErrorTurn {
  return typeof (turn as { status?: unknown }).status === "number";
}
