/**
 * The scripted model server: a `node:http` server on 127.0.0.1 that answers
 * `POST /v1/chat/completions` from a script, in the OpenAI Chat Completions wire format.
 */
import type { ServerResponse } from "node:http";
import { createLoopback, type IncomingScriptedRequest } from "./loopback.js";
import type {
  ErrorTurn,
  ScriptEntry,
  ScriptedRequest,
  ScriptedServer,
  ScriptedServerOptions,
  StreamTurn,
  Turn,
} from "./types.js";
import {
  SSE_DONE,
  computeUsage,
  defaultFinishReason,
  errorBody,
  isErrorTurn,
  renderCompletion,
  renderStreamChunks,
  serializeArguments,
  sseEvent,
  type RenderContext,
  type ResolvedToolCall,
} from "./wire.js";

const DEFAULT_MODEL = "scripted-model";
const DEFAULT_CREATED = 1_700_000_000;

/** Starts a scripted server. Always binds 127.0.0.1; `port` defaults to 0 (ephemeral). */
export async function startScriptedServer(options: ScriptedServerOptions): Promise<ScriptedServer> {
  const script: ScriptEntry[] = [...options.script];
  const modelId = options.model ?? DEFAULT_MODEL;
  const created = options.created ?? DEFAULT_CREATED;
  const usageMode = options.usageChunk ?? "requested";
  const requests: ScriptedRequest[] = [];
  const completionRequests: ScriptedRequest[] = [];
  let completionCount = 0;
  let toolCallCount = 0;
  const loopback = createLoopback();
  const { sleep, gone } = loopback;

  /** Writes and waits until the data is handed to the OS (or the write failed). */
  const write = (res: ServerResponse, data: string): Promise<void> =>
    new Promise((resolve) => {
      if (gone(res)) return resolve();
      res.write(data, () => resolve());
    });

  const sendJson = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
    if (gone(res)) return;
    const text = JSON.stringify(body);
    res.writeHead(status, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(text),
      ...headers,
    });
    res.end(text);
  };

  const sendErrorTurn = (res: ServerResponse, turn: ErrorTurn): void => {
    if (gone(res)) return;
    const headers = { ...turn.headers };
    if (turn.body === undefined) return sendJson(res, turn.status, errorBody(turn), headers);
    if (typeof turn.body !== "string") return sendJson(res, turn.status, turn.body, headers);
    const hasContentType = Object.keys(headers).some((h) => h.toLowerCase() === "content-type");
    res.writeHead(turn.status, {
      ...(hasContentType ? {} : { "content-type": "text/plain; charset=utf-8" }),
      "content-length": Buffer.byteLength(turn.body),
      ...headers,
    });
    res.end(turn.body);
  };

  const scriptError = (res: ServerResponse, message: string, code: string): void =>
    sendJson(res, 500, { error: { message, type: "scripted_server_error", param: null, code } });

  const destroySocket = (res: ServerResponse): void => {
    (res.socket ?? undefined)?.destroy();
  };

  const renderContext = (turn: StreamTurn, request: ScriptedRequest, n: number): RenderContext => {
    const toolCalls: ResolvedToolCall[] = (turn.toolCalls ?? []).map((call) => ({
      id: call.id ?? `call_${++toolCallCount}`,
      name: call.name,
      arguments: serializeArguments(call.arguments),
    }));
    const requestModel = typeof request.body?.model === "string" ? (request.body.model as string) : undefined;
    return {
      completionId: `chatcmpl-${n}`,
      created,
      model: turn.model ?? requestModel ?? modelId,
      toolCalls,
      usage: computeUsage(turn, toolCalls, request.body),
      finishReason: defaultFinishReason(turn),
    };
  };

  const streamTurn = async (res: ServerResponse, turn: StreamTurn, request: ScriptedRequest, n: number) => {
    const ctx = renderContext(turn, request, n);
    const isStream = request.body?.stream === true;
    if (!isStream) {
      // `stream: false` (e.g. generateText): one JSON body; cut/hang still apply.
      if (turn.cutAfterChunks !== undefined) return destroySocket(res);
      if (turn.hang) return;
      return sendJson(res, 200, renderCompletion(turn, ctx), turn.headers);
    }

    const includeUsage =
      usageMode === "always" || (usageMode === "requested" && request.body?.stream_options?.include_usage === true);
    const chunks = renderStreamChunks(turn, ctx, {
      includeUsage,
      usageNullInOtherChunks: includeUsage && usageMode === "requested",
    });
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
    for (const chunk of chunks) {
      if (sent >= limit || gone(res)) break;
      if (sent > 0 && turn.chunkDelayMs) await sleep(turn.chunkDelayMs);
      await write(res, sseEvent(chunk));
      sent++;
    }
    if (turn.cutAfterChunks !== undefined) return destroySocket(res);
    if (turn.hang) return; // left open until the client aborts or the server closes
    await write(res, SSE_DONE);
    if (!gone(res)) res.end();
  };

  const handleCompletion = async (res: ServerResponse, request: ScriptedRequest) => {
    const n = ++completionCount;
    completionRequests.push(request);
    // Non-streaming calls (an agent's background title, say) can be answered apart from the script.
    const entry = request.body?.stream !== true && options.nonStreaming !== undefined ? options.nonStreaming : script.shift();
    if (entry === undefined) {
      return scriptError(res, `scripted server: no turn left for request #${n}`, "script_exhausted");
    }
    let turn: Turn;
    try {
      turn = typeof entry === "function" ? await entry(request) : entry;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return scriptError(res, `scripted server: turn factory for request #${n} threw: ${message}`, "turn_factory_error");
    }
    if (turn.delayMs) await sleep(turn.delayMs);
    if (isErrorTurn(turn)) return sendErrorTurn(res, turn);
    return streamTurn(res, turn, request, n);
  };

  const handle = async (incoming: IncomingScriptedRequest, res: ServerResponse) => {
    const { method, path } = incoming;
    const request: ScriptedRequest = { index: requests.length + 1, ...incoming };
    requests.push(request);

    if (method === "POST" && path === "/v1/chat/completions") return handleCompletion(res, request);
    if (method === "GET" && path === "/v1/models") {
      return sendJson(res, 200, {
        object: "list",
        data: [{ id: modelId, object: "model", created, owned_by: "tessera-testing" }],
      });
    }
    return sendJson(res, 404, {
      error: {
        message: `scripted server: no route for ${method} ${path} (serves POST /v1/chat/completions and GET /v1/models)`,
        type: "invalid_request_error",
        param: null,
        code: "unknown_route",
      },
    });
  };

  const port = await loopback.listen(options.port, handle, (res, message) => scriptError(res, message, "internal_error"));
  const close = loopback.close;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    completionRequests,
    get remaining() {
      return script.length;
    },
    push(...turns: ScriptEntry[]) {
      script.push(...turns);
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
