/**
 * Scripted servers for the wire formats of the other built-in providers: Anthropic Messages
 * (`POST /v1/messages`), OpenAI Responses (`POST /v1/responses`) and Gemini
 * (`POST /v1beta/models/{model}:streamGenerateContent?alt=sse`, and `:generateContent`).
 * Same script language and the same guarantees as the chat-completions server: 127.0.0.1 only,
 * deterministic ids and usage, the only timers are the scripted ones.
 */
import type { ServerResponse } from "node:http";
import { createLoopback, type IncomingScriptedRequest } from "./loopback.js";
import type { ErrorTurn, ScriptedRequest } from "./types.js";
import type {
  ProviderScriptEntry,
  ProviderScriptedServer,
  ProviderServerOptions,
  ProviderStreamTurn,
  ProviderTurn,
  ProviderWireFormat,
} from "./provider-types.js";
import {
  anthropicErrorBody,
  anthropicMessage,
  anthropicStream,
  anthropicStreamError,
  finishReasonOf,
  geminiErrorBody,
  geminiResponse,
  geminiStream,
  geminiStreamError,
  renderSse,
  resolveToolCalls,
  resolveUsage,
  responsesResponse,
  responsesStream,
  responsesStreamError,
  type ProviderRenderContext,
  type RenderedStream,
  type SseFrame,
} from "./provider-wire.js";

const DEFAULT_MODEL = "scripted-model";
const DEFAULT_CREATED = 1_700_000_000;

/** Scripted Anthropic Messages API: `POST /v1/messages`, SSE when `stream: true`. `url` ends in `/v1`. */
export function startAnthropicServer(options: ProviderServerOptions): Promise<ProviderScriptedServer> {
  return startProviderServer("anthropic", options);
}

/** Scripted OpenAI Responses API: `POST /v1/responses`, SSE when `stream: true`. `url` ends in `/v1`. */
export function startResponsesServer(options: ProviderServerOptions): Promise<ProviderScriptedServer> {
  return startProviderServer("openai-responses", options);
}

/**
 * Scripted Gemini API: `POST /v1beta/models/{model}:streamGenerateContent?alt=sse` (SSE) and
 * `:generateContent` (JSON). `url` ends in `/v1beta`.
 */
export function startGeminiServer(options: ProviderServerOptions): Promise<ProviderScriptedServer> {
  return startProviderServer("gemini", options);
}

interface Route {
  /** Whether the request streams. */
  stream: boolean;
  /** The model named by the request (body or path). */
  model?: string;
}

function matchRoute(format: ProviderWireFormat, method: string, path: string, body: any): Route | undefined {
  if (method !== "POST") return undefined;
  if (format === "anthropic" && path === "/v1/messages") {
    return { stream: body?.stream === true, ...(typeof body?.model === "string" ? { model: body.model } : {}) };
  }
  if (format === "openai-responses" && path === "/v1/responses") {
    return { stream: body?.stream === true, ...(typeof body?.model === "string" ? { model: body.model } : {}) };
  }
  if (format === "gemini") {
    const match = /^\/v1beta\/models\/([^:]+):(streamGenerateContent|generateContent)$/.exec(path);
    if (match) return { stream: match[2] === "streamGenerateContent", model: decodeURIComponent(match[1]!) };
  }
  return undefined;
}

function routesOf(format: ProviderWireFormat): string {
  if (format === "anthropic") return "POST /v1/messages";
  if (format === "openai-responses") return "POST /v1/responses";
  return "POST /v1beta/models/{model}:streamGenerateContent and :generateContent";
}

function errorBodyOf(format: ProviderWireFormat, turn: ErrorTurn): object {
  if (format === "anthropic") return anthropicErrorBody(turn);
  if (format === "gemini") return geminiErrorBody(turn);
  return {
    error: {
      message: turn.error?.message ?? `Request failed with status ${turn.status} (scripted).`,
      type: turn.error?.type ?? (turn.status === 429 ? "rate_limit_error" : turn.status >= 500 ? "server_error" : "invalid_request_error"),
      param: turn.error?.param ?? null,
      code: turn.error?.code ?? null,
    },
  };
}

/** A server-side problem (script exhausted, factory threw), in the format's error shape. */
function scriptErrorBody(format: ProviderWireFormat, message: string, code: string): object {
  if (format === "anthropic") return { type: "error", error: { type: "api_error", message } };
  if (format === "gemini") return { error: { code: 500, message, status: "INTERNAL" } };
  return { error: { message, type: "scripted_server_error", param: null, code } };
}

function isErrorTurn(turn: ProviderTurn): turn is ErrorTurn {
  return typeof (turn as { status?: unknown }).status === "number";
}

async function startProviderServer(format: ProviderWireFormat, options: ProviderServerOptions): Promise<ProviderScriptedServer> {
  const script: ProviderScriptEntry[] = [...options.script];
  const defaultModel = options.model ?? DEFAULT_MODEL;
  const created = options.created ?? DEFAULT_CREATED;
  const requests: ScriptedRequest[] = [];
  const completionRequests: ScriptedRequest[] = [];
  let count = 0;
  let toolCallCount = 0;
  const loopback = createLoopback();
  const { sleep, gone } = loopback;
  const write = (res: ServerResponse, data: string): Promise<void> =>
    new Promise((resolve) => {
      if (gone(res)) return resolve();
      res.write(data, () => resolve());
    });
  const sendJson = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
    if (gone(res)) return;
    const text = JSON.stringify(body);
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
    res.end(text);
  };
  const destroySocket = (res: ServerResponse): void => {
    (res.socket ?? undefined)?.destroy();
  };

  const sendErrorTurn = (res: ServerResponse, turn: ErrorTurn): void => {
    if (gone(res)) return;
    const headers = { ...turn.headers };
    if (turn.body === undefined) return sendJson(res, turn.status, errorBodyOf(format, turn), headers);
    if (typeof turn.body !== "string") return sendJson(res, turn.status, turn.body, headers);
    const hasContentType = Object.keys(headers).some((h) => h.toLowerCase() === "content-type");
    res.writeHead(turn.status, {
      ...(hasContentType ? {} : { "content-type": "text/plain; charset=utf-8" }),
      "content-length": Buffer.byteLength(turn.body),
      ...headers,
    });
    res.end(turn.body);
  };

  const context = (turn: ProviderStreamTurn, request: ScriptedRequest, route: Route, n: number): ProviderRenderContext => {
    const toolCalls = resolveToolCalls(turn.toolCalls, () =>
      format === "anthropic" ? `toolu_${++toolCallCount}` : `call_${++toolCallCount}`,
    );
    return {
      n,
      model: turn.model ?? route.model ?? defaultModel,
      created,
      toolCalls,
      usage: resolveUsage(format, turn, toolCalls, request.body),
      finishReason: finishReasonOf(turn),
    };
  };

  const streamTurn = async (res: ServerResponse, turn: ProviderStreamTurn, request: ScriptedRequest, route: Route, n: number) => {
    const explicitIds = new Set((turn.toolCalls ?? []).flatMap((c) => (c.id ? [c.id] : [])));
    const ctx = context(turn, request, route, n);
    if (!route.stream) {
      if (turn.cutAfterChunks !== undefined) return destroySocket(res);
      if (turn.hang) return;
      const body =
        format === "anthropic"
          ? anthropicMessage(turn, ctx)
          : format === "gemini"
            ? geminiResponse(turn, ctx, explicitIds)
            : responsesResponse(turn, ctx);
      return sendJson(res, 200, body, turn.headers);
    }

    const rendered: RenderedStream =
      format === "anthropic"
        ? anthropicStream(turn, ctx)
        : format === "gemini"
          ? geminiStream(turn, ctx, explicitIds)
          : responsesStream(turn, ctx);
    let frames: SseFrame[];
    if (turn.streamError) {
      const before = rendered.content.slice(0, turn.streamError.afterChunks ?? rendered.content.length);
      const error =
        format === "anthropic"
          ? anthropicStreamError(turn.streamError)
          : format === "gemini"
            ? geminiStreamError(turn.streamError)
            : responsesStreamError(turn.streamError, before.length);
      frames = [...before, error];
    } else {
      frames = [...rendered.content, ...rendered.closing];
    }
    const limit = turn.cutAfterChunks ?? (turn.hang ? (turn.afterChunks ?? 0) : Infinity);

    if (gone(res)) return;
    res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      connection: "keep-alive",
      ...turn.headers,
    });
    res.flushHeaders();
    let sent = 0;
    for (const frame of frames) {
      if (sent >= limit || gone(res)) break;
      if (sent > 0 && turn.chunkDelayMs) await sleep(turn.chunkDelayMs);
      await write(res, renderSse(frame));
      sent++;
    }
    if (turn.cutAfterChunks !== undefined) return destroySocket(res);
    if (turn.hang) return;
    if (!gone(res)) res.end();
  };

  const handleModel = async (res: ServerResponse, request: ScriptedRequest, route: Route) => {
    const n = ++count;
    completionRequests.push(request);
    const entry = script.shift();
    if (entry === undefined) {
      return sendJson(res, 500, scriptErrorBody(format, `scripted server: no turn left for request #${n}`, "script_exhausted"));
    }
    let turn: ProviderTurn;
    try {
      turn = typeof entry === "function" ? await entry(request) : entry;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return sendJson(res, 500, scriptErrorBody(format, `scripted server: turn factory for request #${n} threw: ${message}`, "turn_factory_error"));
    }
    if (turn.delayMs) await sleep(turn.delayMs);
    if (isErrorTurn(turn)) return sendErrorTurn(res, turn);
    return streamTurn(res, turn, request, route, n);
  };

  const handle = async (incoming: IncomingScriptedRequest, res: ServerResponse) => {
    const { method, path, body } = incoming;
    const request: ScriptedRequest = { index: requests.length + 1, ...incoming };
    requests.push(request);
    const route = matchRoute(format, method, path, body);
    if (route) return handleModel(res, request, route);
    const message = `scripted server: no route for ${method} ${path} (serves ${routesOf(format)})`;
    if (format === "anthropic") return sendJson(res, 404, { type: "error", error: { type: "not_found_error", message } });
    if (format === "gemini") return sendJson(res, 404, { error: { code: 404, message, status: "NOT_FOUND" } });
    return sendJson(res, 404, { error: { message, type: "invalid_request_error", param: null, code: "unknown_route" } });
  };

  const port = await loopback.listen(options.port, handle, (res, message) => sendJson(res, 500, scriptErrorBody(format, message, "internal_error")));
  const close = loopback.close;

  return {
    format,
    url: `http://127.0.0.1:${port}${format === "gemini" ? "/v1beta" : "/v1"}`,
    port,
    requests,
    completionRequests,
    get remaining() {
      return script.length;
    },
    push(...turns: ProviderScriptEntry[]) {
      script.push(...turns);
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
