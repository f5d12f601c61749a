/**
 * Wire formats of the provider servers: Anthropic Messages, OpenAI Responses and Gemini
 * `streamGenerateContent`. Pure functions, no I/O, no clock, no randomness.
 */
import type { ErrorTurn, ScriptedFinishReason, ScriptedToolCall } from "./types.js";
import type { ProviderStreamTurn, ProviderUsage, ProviderWireFormat } from "./provider-types.js";
import { DEFAULT_CHUNK_SIZE, splitText } from "./wire.js";

/** One SSE event: `event:` line (when named) and a JSON `data:` line. */
export interface SseFrame {
  event?: string;
  data: object;
}

/** A tool call with id and serialised arguments resolved. */
export interface ProviderToolCall {
  id: string;
  name: string;
  arguments: string;
}

export interface ResolvedUsage {
  input: number;
  output: number;
  reasoning: number;
  cacheRead: number;
  cacheWrite: number;
}

export interface ProviderRenderContext {
  /** The n-th model request (1-based), for ids. */
  n: number;
  model: string;
  created: number;
  toolCalls: ProviderToolCall[];
  usage: ResolvedUsage;
  finishReason: ScriptedFinishReason;
}

/** The frames of a streamed turn: `content` events first, then the `closing` ones. */
export interface RenderedStream {
  content: SseFrame[];
  closing: SseFrame[];
}

const tokens = (chars: number): number => Math.ceil(chars / 4);

export function resolveToolCalls(calls: ScriptedToolCall[] | undefined, nextId: () => string): ProviderToolCall[] {
  return (calls ?? []).map((call) => ({
    id: call.id ?? nextId(),
    name: call.name,
    arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
  }));
}

/** The part of a request body that holds the conversation, for the default input usage. */
function promptOf(format: ProviderWireFormat, body: unknown): unknown {
  if (body === null || typeof body !== "object") return "";
  const b = body as Record<string, unknown>;
  if (format === "anthropic") return [b.system ?? null, b.messages ?? null];
  if (format === "openai-responses") return [b.instructions ?? null, b.input ?? null];
  return [b.systemInstruction ?? null, b.contents ?? null];
}

export function resolveUsage(
  format: ProviderWireFormat,
  turn: ProviderStreamTurn,
  toolCalls: ProviderToolCall[],
  body: unknown,
): ResolvedUsage {
  const spec: ProviderUsage = turn.usage ?? {};
  const reasoningChars = turn.reasoning?.length ?? 0;
  const outputChars =
    (turn.text?.length ?? 0) + reasoningChars + toolCalls.reduce((n, c) => n + c.name.length + c.arguments.length, 0);
  const output = spec.output ?? tokens(outputChars);
  return {
    input: spec.input ?? tokens(JSON.stringify(promptOf(format, body)).length),
    output,
    reasoning: spec.reasoning ?? Math.min(output, tokens(reasoningChars)),
    cacheRead: spec.cacheRead ?? 0,
    cacheWrite: spec.cacheWrite ?? 0,
  };
}

export function finishReasonOf(turn: ProviderStreamTurn): ScriptedFinishReason {
  return turn.finishReason ?? ((turn.toolCalls?.length ?? 0) > 0 ? "tool_calls" : "stop");
}

export function renderSse(frame: SseFrame): string {
  return `${frame.event ? `event: ${frame.event}\n` : ""}data: ${JSON.stringify(frame.data)}\n\n`;
}

// ───────────────────────────── Anthropic Messages ─────────────────────────────

const ANTHROPIC_STOP: Record<ScriptedFinishReason, string> = {
  stop: "end_turn",
  length: "max_tokens",
  tool_calls: "tool_use",
  content_filter: "refusal",
};

function anthropicUsageStart(u: ResolvedUsage): object {
  return {
    input_tokens: Math.max(0, u.input - u.cacheRead - u.cacheWrite),
    cache_creation_input_tokens: u.cacheWrite,
    cache_read_input_tokens: u.cacheRead,
    output_tokens: 1,
  };
}

export function anthropicStream(turn: ProviderStreamTurn, ctx: ProviderRenderContext): RenderedStream {
  const size = turn.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const ev = (type: string, data: object): SseFrame => ({ event: type, data: { type, ...data } });
  const content: SseFrame[] = [
    ev("message_start", {
      message: {
        id: `msg_${ctx.n}`,
        type: "message",
        role: "assistant",
        model: ctx.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: anthropicUsageStart(ctx.usage),
      },
    }),
  ];
  let index = 0;
  if (turn.reasoning !== undefined && turn.reasoning !== "") {
    content.push(ev("content_block_start", { index, content_block: { type: "thinking", thinking: "", signature: "" } }));
    for (const piece of splitText(turn.reasoning, size)) {
      content.push(ev("content_block_delta", { index, delta: { type: "thinking_delta", thinking: piece } }));
    }
    content.push(ev("content_block_delta", { index, delta: { type: "signature_delta", signature: `sig_${ctx.n}` } }));
    content.push(ev("content_block_stop", { index }));
    index++;
  }
  if (turn.text !== undefined && turn.text !== "") {
    content.push(ev("content_block_start", { index, content_block: { type: "text", text: "" } }));
    for (const piece of splitText(turn.text, size)) {
      content.push(ev("content_block_delta", { index, delta: { type: "text_delta", text: piece } }));
    }
    content.push(ev("content_block_stop", { index }));
    index++;
  }
  for (const call of ctx.toolCalls) {
    content.push(ev("content_block_start", { index, content_block: { type: "tool_use", id: call.id, name: call.name, input: {} } }));
    for (const piece of splitText(call.arguments, size)) {
      content.push(ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: piece } }));
    }
    content.push(ev("content_block_stop", { index }));
    index++;
  }
  const closing = [
    ev("message_delta", {
      delta: { stop_reason: ANTHROPIC_STOP[ctx.finishReason], stop_sequence: null },
      usage: { output_tokens: ctx.usage.output },
    }),
    ev("message_stop", {}),
  ];
  return { content, closing };
}

export function anthropicStreamError(error: NonNullable<ProviderStreamTurn["streamError"]>): SseFrame {
  return {
    event: "error",
    data: { type: "error", error: { type: error.type ?? "overloaded_error", message: error.message ?? "Overloaded" } },
  };
}

export function anthropicMessage(turn: ProviderStreamTurn, ctx: ProviderRenderContext): object {
  const content: object[] = [];
  if (turn.reasoning) content.push({ type: "thinking", thinking: turn.reasoning, signature: `sig_${ctx.n}` });
  if (turn.text) content.push({ type: "text", text: turn.text });
  for (const call of ctx.toolCalls) content.push({ type: "tool_use", id: call.id, name: call.name, input: parseArgs(call.arguments) });
  return {
    id: `msg_${ctx.n}`,
    type: "message",
    role: "assistant",
    model: ctx.model,
    content,
    stop_reason: ANTHROPIC_STOP[ctx.finishReason],
    stop_sequence: null,
    usage: { ...anthropicUsageStart(ctx.usage), output_tokens: ctx.usage.output },
  };
}

const ANTHROPIC_ERRORS: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

export function anthropicErrorBody(turn: ErrorTurn): object {
  const type = turn.error?.type ?? ANTHROPIC_ERRORS[turn.status] ?? (turn.status >= 500 ? "api_error" : "invalid_request_error");
  return { type: "error", error: { type, message: turn.error?.message ?? `${type} (scripted)` } };
}

// ───────────────────────────── OpenAI Responses ─────────────────────────────

function responsesUsage(u: ResolvedUsage): object {
  return {
    input_tokens: u.input,
    input_tokens_details: { cached_tokens: u.cacheRead },
    output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: u.reasoning },
    total_tokens: u.input + u.output,
  };
}

function responsesOutput(turn: ProviderStreamTurn, ctx: ProviderRenderContext): object[] {
  const output: object[] = [];
  if (turn.reasoning) {
    output.push({ id: `rs_${ctx.n}`, type: "reasoning", summary: [{ type: "summary_text", text: turn.reasoning }] });
  }
  if (turn.text) {
    output.push({
      id: `msg_${ctx.n}`,
      type: "message",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: turn.text, annotations: [], logprobs: [] }],
    });
  }
  ctx.toolCalls.forEach((call, i) => {
    output.push({
      id: `fc_${ctx.n}_${i + 1}`,
      type: "function_call",
      status: "completed",
      call_id: call.id,
      name: call.name,
      arguments: call.arguments,
    });
  });
  return output;
}

function responsesObject(turn: ProviderStreamTurn, ctx: ProviderRenderContext, status: "in_progress" | "completed" | "incomplete"): object {
  const incomplete =
    status === "incomplete"
      ? { reason: ctx.finishReason === "content_filter" ? "content_filter" : "max_output_tokens" }
      : null;
  return {
    id: `resp_${ctx.n}`,
    object: "response",
    created_at: ctx.created,
    status,
    model: ctx.model,
    output: status === "in_progress" ? [] : responsesOutput(turn, ctx),
    incomplete_details: incomplete,
    usage: status === "in_progress" ? null : responsesUsage(ctx.usage),
    error: null,
  };
}

export function responsesStream(turn: ProviderStreamTurn, ctx: ProviderRenderContext): RenderedStream {
  const size = turn.chunkSize ?? DEFAULT_CHUNK_SIZE;
  let seq = 0;
  const ev = (type: string, data: object): SseFrame => ({ event: type, data: { type, sequence_number: seq++, ...data } });
  const content: SseFrame[] = [
    ev("response.created", { response: responsesObject(turn, ctx, "in_progress") }),
    ev("response.in_progress", { response: responsesObject(turn, ctx, "in_progress") }),
  ];
  let outputIndex = 0;
  if (turn.reasoning) {
    const id = `rs_${ctx.n}`;
    const o = outputIndex++;
    content.push(ev("response.output_item.added", { output_index: o, item: { id, type: "reasoning", summary: [] } }));
    content.push(ev("response.reasoning_summary_part.added", { item_id: id, output_index: o, summary_index: 0, part: { type: "summary_text", text: "" } }));
    for (const piece of splitText(turn.reasoning, size)) {
      content.push(ev("response.reasoning_summary_text.delta", { item_id: id, output_index: o, summary_index: 0, delta: piece }));
    }
    content.push(ev("response.reasoning_summary_text.done", { item_id: id, output_index: o, summary_index: 0, text: turn.reasoning }));
    content.push(ev("response.reasoning_summary_part.done", { item_id: id, output_index: o, summary_index: 0, part: { type: "summary_text", text: turn.reasoning } }));
    content.push(ev("response.output_item.done", { output_index: o, item: { id, type: "reasoning", summary: [{ type: "summary_text", text: turn.reasoning }] } }));
  }
  if (turn.text) {
    const id = `msg_${ctx.n}`;
    const o = outputIndex++;
    content.push(ev("response.output_item.added", { output_index: o, item: { id, type: "message", status: "in_progress", role: "assistant", content: [] } }));
    content.push(ev("response.content_part.added", { item_id: id, output_index: o, content_index: 0, part: { type: "output_text", text: "", annotations: [] } }));
    for (const piece of splitText(turn.text, size)) {
      content.push(ev("response.output_text.delta", { item_id: id, output_index: o, content_index: 0, delta: piece, logprobs: [] }));
    }
    content.push(ev("response.output_text.done", { item_id: id, output_index: o, content_index: 0, text: turn.text, logprobs: [] }));
    content.push(ev("response.content_part.done", { item_id: id, output_index: o, content_index: 0, part: { type: "output_text", text: turn.text, annotations: [] } }));
    content.push(
      ev("response.output_item.done", {
        output_index: o,
        item: { id, type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text: turn.text, annotations: [] }] },
      }),
    );
  }
  ctx.toolCalls.forEach((call, i) => {
    const id = `fc_${ctx.n}_${i + 1}`;
    const o = outputIndex++;
    const item = { id, type: "function_call", call_id: call.id, name: call.name };
    content.push(ev("response.output_item.added", { output_index: o, item: { ...item, status: "in_progress", arguments: "" } }));
    for (const piece of splitText(call.arguments, size)) {
      content.push(ev("response.function_call_arguments.delta", { item_id: id, output_index: o, delta: piece }));
    }
    content.push(ev("response.function_call_arguments.done", { item_id: id, output_index: o, arguments: call.arguments }));
    content.push(ev("response.output_item.done", { output_index: o, item: { ...item, status: "completed", arguments: call.arguments } }));
  });
  const incomplete = ctx.finishReason === "length" || ctx.finishReason === "content_filter";
  const closing = [
    incomplete
      ? ev("response.incomplete", { response: responsesObject(turn, ctx, "incomplete") })
      : ev("response.completed", { response: responsesObject(turn, ctx, "completed") }),
  ];
  // Sequence numbers of an in-stream error follow the content events.
  return { content, closing };
}

export function responsesStreamError(error: NonNullable<ProviderStreamTurn["streamError"]>, sequence: number): SseFrame {
  return {
    event: "error",
    data: {
      type: "error",
      sequence_number: sequence,
      code: error.code !== undefined ? String(error.code) : (error.type ?? "server_error"),
      message: error.message ?? "The server had an error while processing your request (scripted).",
      param: null,
    },
  };
}

export function responsesResponse(turn: ProviderStreamTurn, ctx: ProviderRenderContext): object {
  const incomplete = ctx.finishReason === "length" || ctx.finishReason === "content_filter";
  return responsesObject(turn, ctx, incomplete ? "incomplete" : "completed");
}

// ───────────────────────────── Gemini ─────────────────────────────

const GEMINI_FINISH: Record<ScriptedFinishReason, string> = {
  stop: "STOP",
  length: "MAX_TOKENS",
  tool_calls: "STOP",
  content_filter: "SAFETY",
};

function geminiUsage(u: ResolvedUsage): object {
  return {
    promptTokenCount: u.input,
    candidatesTokenCount: Math.max(0, u.output - u.reasoning),
    totalTokenCount: u.input + u.output,
    ...(u.reasoning > 0 ? { thoughtsTokenCount: u.reasoning } : {}),
    ...(u.cacheRead > 0 ? { cachedContentTokenCount: u.cacheRead } : {}),
  };
}

function geminiCallPart(call: ProviderToolCall, explicitId: boolean): object {
  return { functionCall: { ...(explicitId ? { id: call.id } : {}), name: call.name, args: parseArgs(call.arguments) } };
}

export function geminiStream(turn: ProviderStreamTurn, ctx: ProviderRenderContext, explicitIds: ReadonlySet<string>): RenderedStream {
  const size = turn.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const chunk = (parts: object[], extra: object = {}): SseFrame => ({
    data: {
      candidates: [{ content: { role: "model", parts }, index: 0, ...extra }],
      modelVersion: ctx.model,
      responseId: `resp-${ctx.n}`,
    },
  });
  const content: SseFrame[] = [];
  for (const piece of splitText(turn.reasoning ?? "", size)) content.push(chunk([{ text: piece, thought: true }]));
  for (const piece of splitText(turn.text ?? "", size)) content.push(chunk([{ text: piece }]));
  if (ctx.toolCalls.length > 0) content.push(chunk(ctx.toolCalls.map((c) => geminiCallPart(c, explicitIds.has(c.id)))));
  const closing: SseFrame[] = [
    {
      data: {
        candidates: [{ content: { role: "model", parts: [{ text: "" }] }, finishReason: GEMINI_FINISH[ctx.finishReason], index: 0 }],
        usageMetadata: geminiUsage(ctx.usage),
        modelVersion: ctx.model,
        responseId: `resp-${ctx.n}`,
      },
    },
  ];
  return { content, closing };
}

export function geminiStreamError(error: NonNullable<ProviderStreamTurn["streamError"]>): SseFrame {
  const code = typeof error.code === "number" ? error.code : 500;
  return { data: { error: { code, message: error.message ?? "An internal error has occurred (scripted).", status: error.type ?? "INTERNAL" } } };
}

export function geminiResponse(turn: ProviderStreamTurn, ctx: ProviderRenderContext, explicitIds: ReadonlySet<string>): object {
  const parts: object[] = [];
  if (turn.reasoning) parts.push({ text: turn.reasoning, thought: true });
  if (turn.text) parts.push({ text: turn.text });
  for (const call of ctx.toolCalls) parts.push(geminiCallPart(call, explicitIds.has(call.id)));
  return {
    candidates: [{ content: { role: "model", parts }, finishReason: GEMINI_FINISH[ctx.finishReason], index: 0 }],
    usageMetadata: geminiUsage(ctx.usage),
    modelVersion: ctx.model,
    responseId: `resp-${ctx.n}`,
  };
}

const GEMINI_STATUS: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

export function geminiErrorBody(turn: ErrorTurn): object {
  const status = turn.error?.type ?? GEMINI_STATUS[turn.status] ?? (turn.status >= 500 ? "INTERNAL" : "INVALID_ARGUMENT");
  return { error: { code: turn.status, message: turn.error?.message ?? `${status} (scripted)`, status } };
}

function parseArgs(args: string): unknown {
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

export { DEFAULT_CHUNK_SIZE };
