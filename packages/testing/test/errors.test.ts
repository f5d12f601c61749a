import { APICallError, streamText } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedServer, type ScriptedServer } from "../src/index.js";
import { collect, modelFor, partsOfType } from "./helpers.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Runs one streamText call with retries off and returns the single error part's error. */
async function errorOf(s: ScriptedServer, maxRetries = 0) {
  const onErrorCalls: unknown[] = [];
  const { parts, thrown } = await collect(
    streamText({
      model: modelFor(s),
      prompt: "q",
      maxRetries,
      onError: ({ error }) => {
        onErrorCalls.push(error);
      },
    }),
  );
  expect(thrown).toBeUndefined();
  const errors = partsOfType(parts, "error");
  expect(errors).toHaveLength(1);
  expect(onErrorCalls).toEqual([errors[0]?.error]);
  return { error: errors[0]?.error, parts };
}

describe("HTTP error turns", () => {
  it("429 with retry-after surfaces as an APICallError with statusCode 429 and the header", async () => {
    server = await startScriptedServer({ script: [{ status: 429, headers: { "retry-after": "1" } }] });
    const { error, parts } = await errorOf(server);
    expect(parts.map((p) => p.type)).toEqual(["start", "error"]);
    expect(APICallError.isInstance(error)).toBe(true);
    const apiError = error as APICallError;
    expect(apiError.statusCode).toBe(429);
    expect(apiError.isRetryable).toBe(true);
    expect(apiError.responseHeaders?.["retry-after"]).toBe("1");
    expect(apiError.data).toEqual({
      error: { message: "Rate limit reached (scripted).", type: "rate_limit_error", param: null, code: null },
    });
  });

  it("the SDK honours retry-after-ms and retries into the next turn", async () => {
    server = await startScriptedServer({
      script: [{ status: 429, headers: { "retry-after-ms": "50" } }, { text: "after retry" }],
    });
    const started = Date.now();
    const result = streamText({ model: modelFor(server), prompt: "q", maxRetries: 1 });
    expect(await result.text).toBe("after retry");
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(server.completionRequests).toHaveLength(2);
  });

  it("500 surfaces as a retryable APICallError", async () => {
    server = await startScriptedServer({ script: [{ status: 500 }] });
    const { error } = await errorOf(server);
    expect(error).toBeInstanceOf(APICallError);
    expect(error).toMatchObject({ statusCode: 500, isRetryable: true });
    expect((error as APICallError).message).toMatch(/server had an error/);
  });

  it("context overflow: 400 with an OpenAI error body", async () => {
    const message = "This model's maximum context length is 128000 tokens. However, your messages resulted in 130001 tokens.";
    server = await startScriptedServer({
      script: [{ status: 400, error: { message, code: "context_length_exceeded", param: "messages" } }],
    });
    const { error } = await errorOf(server);
    const apiError = error as APICallError;
    expect(apiError.statusCode).toBe(400);
    expect(apiError.isRetryable).toBe(false);
    expect(apiError.message).toBe(message);
    expect(apiError.data).toEqual({
      error: { message, type: "invalid_request_error", param: "messages", code: "context_length_exceeded" },
    });
    expect(JSON.parse(apiError.responseBody ?? "")).toEqual(apiError.data);
  });

  it("a raw string body is sent verbatim", async () => {
    server = await startScriptedServer({ script: [{ status: 502, body: "<html>Bad gateway</html>" }] });
    const { error } = await errorOf(server);
    expect(error).toMatchObject({ statusCode: 502, responseBody: "<html>Bad gateway</html>" });
  });

  it("an exhausted script fails loudly with a 500 naming the request", async () => {
    server = await startScriptedServer({ script: [{ text: "only one" }] });
    expect(await streamText({ model: modelFor(server), prompt: "1", maxRetries: 0 }).text).toBe("only one");
    const { error } = await errorOf(server);
    expect(error).toMatchObject({
      statusCode: 500,
      message: "scripted server: no turn left for request #2",
      data: { error: { code: "script_exhausted" } },
    });
    expect(server.remaining).toBe(0);
  });

  it("a throwing turn factory fails loudly", async () => {
    server = await startScriptedServer({
      script: [
        () => {
          throw new Error("boom");
        },
      ],
    });
    const { error } = await errorOf(server);
    expect((error as APICallError).message).toBe("scripted server: turn factory for request #1 threw: boom");
  });
});
