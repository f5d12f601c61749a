import { APICallError, LoadAPIKeyError, RetryError, StreamProviderError } from "ai";
import { describe, expect, it } from "vitest";
import { isContextOverflow, RESPONSE_BODY_LIMIT, toMessageError } from "../../src/engine/model-errors.js";
import { MessageErrorSchema } from "../../src/session/message.js";

function apiError(opts: {
  statusCode?: number;
  message?: string;
  responseBody?: string;
  responseHeaders?: Record<string, string>;
  isRetryable?: boolean;
  cause?: unknown;
  data?: unknown;
}): APICallError {
  return new APICallError({
    message: opts.message ?? "request failed",
    url: "https://api.example.com/v1/chat",
    requestBodyValues: {},
    statusCode: opts.statusCode,
    responseHeaders: opts.responseHeaders,
    responseBody: opts.responseBody,
    isRetryable: opts.isRetryable,
    cause: opts.cause,
    data: opts.data,
  });
}

function networkFailure(code: string, message: string): TypeError {
  return new TypeError("fetch failed", { cause: Object.assign(new Error(message), { code }) });
}

describe("toMessageError: aborts", () => {
  it("a user abort is reported as AbortedError, not as a failure", () => {
    const result = toMessageError(new DOMException("This operation was aborted", "AbortError"));
    expect(result.name).toBe("AbortedError");
  });

  it("once the turn's signal has fired, any error is reported as AbortedError", () => {
    const controller = new AbortController();
    controller.abort("user pressed escape");
    const result = toMessageError(new TypeError("terminated"), { signal: controller.signal });
    expect(result.name).toBe("AbortedError");
  });
});

describe("toMessageError: context overflow", () => {
  it("OpenAI's context_length_exceeded becomes ContextOverflowError with the provider's words", () => {
    const error = apiError({
      statusCode: 400,
      message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.",
      responseBody: JSON.stringify({ error: { code: "context_length_exceeded", type: "invalid_request_error" } }),
    });
    expect(toMessageError(error)).toEqual({
      name: "ContextOverflowError",
      message: expect.stringContaining("maximum context length is 128000"),
      retryable: false,
    });
  });

  it("Anthropic's 'prompt is too long' becomes ContextOverflowError", () => {
    const error = apiError({ statusCode: 400, message: "prompt is too long: 213462 tokens > 200000 maximum" });
    expect(toMessageError(error).name).toBe("ContextOverflowError");
  });

  it("an HTTP 413 with no body becomes ContextOverflowError", () => {
    expect(toMessageError(apiError({ statusCode: 413, message: "Payload Too Large" })).name).toBe("ContextOverflowError");
  });

  it("a mid-stream context_length_exceeded error code becomes ContextOverflowError", () => {
    const error = new StreamProviderError({ message: "Your input is invalid", code: "context_length_exceeded" });
    expect(toMessageError(error).name).toBe("ContextOverflowError");
  });
});

describe("isContextOverflow", () => {
  it.each([
    ["Google", 400, "The input token count (1196265) exceeds the maximum number of tokens allowed (1048575)."],
    ["OpenAI Responses", 400, "Your input exceeds the context window of this model. Please adjust your input and try again."],
    ["Anthropic max_tokens", 400, "input length and `max_tokens` exceed context limit: 198000 + 8192 > 200000"],
    ["Bedrock", 400, "Input is too long for requested model."],
    ["Groq", 400, "Please reduce the length of the messages or completion."],
    ["xAI", 400, "This model's maximum prompt length is 131072 but the request contains 537812 tokens."],
    ["OpenRouter", 400, "This endpoint's maximum context length is 32768 tokens. However, you requested about 40000 tokens"],
    ["vLLM", 400, "The decoder prompt (length 5000) is longer than the maximum model length of 4096."],
    ["Ollama", 500, "prompt too long; exceeded max context length by 512 tokens, increase num_ctx"],
    ["llama.cpp", 400, "the request exceeds the available context size, try increasing it"],
    ["Copilot", 400, "prompt token count of 130297 exceeds the limit of 128000"],
    ["Cohere", 422, "too many tokens: total number of tokens in the prompt cannot exceed 128000"],
    ["Moonshot", 400, "Invalid request: Your request exceeded model token limit: 262144"],
  ])("recognises %s's overflow message", (_provider, statusCode, message) => {
    expect(isContextOverflow(apiError({ statusCode, message }))).toBe(true);
  });

  it("finds the overflow in the response body when the message is only the status text", () => {
    const error = apiError({
      statusCode: 400,
      message: "Bad Request",
      responseBody: '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens"}}',
    });
    expect(isContextOverflow(error)).toBe(true);
  });

  it("a 429 rate limit that mentions too many tokens is not an overflow", () => {
    const error = apiError({ statusCode: 429, message: "Too many tokens per minute, please slow down (context window 200k)" });
    expect(isContextOverflow(error)).toBe(false);
  });

  it("an ordinary bad request is not an overflow", () => {
    expect(isContextOverflow(apiError({ statusCode: 400, message: "Invalid value for 'temperature'" }))).toBe(false);
  });

  it("a provider plugin can mark its error by name ContextOverflowError", () => {
    const error = Object.assign(new Error("window full"), { name: "ContextOverflowError" });
    expect(isContextOverflow(error)).toBe(true);
    expect(toMessageError(error)).toEqual({ name: "ContextOverflowError", message: "window full", retryable: false });
  });

  it("a provider plugin can mark its error with isContextOverflow, even wrapped as a cause", () => {
    const marked = Object.assign(new Error("custom provider says no"), { isContextOverflow: true });
    expect(isContextOverflow(new Error("stream failed", { cause: marked }))).toBe(true);
  });
});

describe("toMessageError: auth", () => {
  it("a 401 names the provider and says the key is missing or invalid", () => {
    const result = toMessageError(apiError({ statusCode: 401, message: "invalid x-api-key" }), { providerID: "anthropic" });
    expect(result).toMatchObject({ name: "ProviderAuthError", providerID: "anthropic", retryable: false });
    expect(result.message).toMatch(/anthropic/);
    expect(result.message).toMatch(/API key is missing or invalid/);
    expect(result.message).toMatch(/invalid x-api-key/);
  });

  it("a 403 is an auth error too, and is not retried", () => {
    const result = toMessageError(apiError({ statusCode: 403, message: "Forbidden" }), { providerID: "openai" });
    expect(result).toMatchObject({ name: "ProviderAuthError", providerID: "openai", retryable: false });
  });

  it("a missing API key at load time is an auth error for that provider", () => {
    const error = new LoadAPIKeyError({ message: "Anthropic API key is missing. Set ANTHROPIC_API_KEY." });
    const result = toMessageError(error, { providerID: "anthropic" });
    expect(result).toMatchObject({ name: "ProviderAuthError", providerID: "anthropic", retryable: false });
    expect(result.message).toContain("ANTHROPIC_API_KEY");
  });
});

describe("toMessageError: API errors", () => {
  it("a 429 is retryable and keeps status and headers, lower-cased", () => {
    const result = toMessageError(
      apiError({ statusCode: 429, message: "Rate limit reached", responseHeaders: { "Retry-After": "7" }, isRetryable: false }),
    );
    expect(result).toMatchObject({ name: "APIError", statusCode: 429, retryable: true, responseHeaders: { "retry-after": "7" } });
  });

  it("a 429 for an exhausted billing quota is not retried", () => {
    const error = apiError({
      statusCode: 429,
      message: "You exceeded your current quota, please check your plan and billing details.",
      responseBody: '{"error":{"code":"insufficient_quota"}}',
    });
    expect(toMessageError(error)).toMatchObject({ name: "APIError", statusCode: 429, retryable: false });
  });

  it.each([500, 502, 503, 504, 529, 408, 409])("HTTP %i is retryable", (statusCode) => {
    expect(toMessageError(apiError({ statusCode })).retryable).toBe(true);
  });

  it.each([400, 404, 422])("HTTP %i is not retryable", (statusCode) => {
    expect(toMessageError(apiError({ statusCode, message: "bad input" })).retryable).toBe(false);
  });

  it("a 4xx is not retried even when the provider flagged it retryable", () => {
    expect(toMessageError(apiError({ statusCode: 404, message: "model not found", isRetryable: true })).retryable).toBe(false);
  });

  it("an 'overloaded' body without a status is retryable", () => {
    const error = apiError({ message: "upstream error", responseBody: '{"error":{"type":"overloaded_error","message":"Overloaded"}}' });
    expect(toMessageError(error)).toMatchObject({ name: "APIError", retryable: true });
  });

  it("a huge response body is cut to 4 KB", () => {
    const result = toMessageError(apiError({ statusCode: 500, responseBody: "x".repeat(100_000) }));
    expect(result.name === "APIError" && result.responseBody!.length).toBe(RESPONSE_BODY_LIMIT);
  });

  it("a bare status-text message is completed with the error from the body", () => {
    const error = apiError({ statusCode: 400, message: "Bad Request", responseBody: '{"error":{"message":"Unknown model gpt-9"}}' });
    expect(toMessageError(error).message).toBe("Bad Request: Unknown model gpt-9");
  });

  it("a provider error reported mid-stream keeps its status and retryability", () => {
    const error = new StreamProviderError({ message: "Overloaded", type: "overloaded_error", statusCode: 529 });
    expect(toMessageError(error)).toMatchObject({ name: "APIError", statusCode: 529, retryable: true, message: "Overloaded" });
  });

  it("the AI SDK's RetryError is unwrapped to its last error", () => {
    const last = apiError({ statusCode: 503, message: "Service Unavailable" });
    const error = new RetryError({ message: "Failed after 3 attempts", reason: "maxRetriesExceeded", errors: [last, last, last] });
    expect(toMessageError(error)).toMatchObject({ name: "APIError", statusCode: 503, retryable: true });
  });
});

describe("toMessageError: network and timeouts", () => {
  it("a stream dropped after a 200 is a retryable network error", () => {
    const error = apiError({ statusCode: 200, message: "Failed to process successful response", cause: new TypeError("terminated") });
    const result = toMessageError(error);
    expect(result).toMatchObject({ name: "APIError", retryable: true });
    expect(result.message).toMatch(/^network error: .*terminated/);
    expect(result).not.toHaveProperty("statusCode");
  });

  it("a refused connection is a retryable network error naming the cause", () => {
    const result = toMessageError(networkFailure("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:11434"));
    expect(result).toMatchObject({ name: "APIError", retryable: true });
    expect(result.message).toBe("network error: fetch failed: connect ECONNREFUSED 127.0.0.1:11434");
  });

  it("a reset socket is a retryable network error", () => {
    const reset = Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" });
    const result = toMessageError(new TypeError("terminated", { cause: reset }));
    expect(result).toMatchObject({ name: "APIError", retryable: true });
    expect(result.message).toMatch(/^network error: /);
  });

  it("the AI SDK's 'Cannot connect to API' is a retryable network error", () => {
    const cause = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
    const error = apiError({ message: "Cannot connect to API: read ECONNRESET", cause, isRetryable: true });
    expect(toMessageError(error)).toEqual({ name: "APIError", message: "network error: read ECONNRESET", retryable: true });
  });

  it("a timeout is a retryable API error", () => {
    const result = toMessageError(new DOMException("The operation was aborted due to timeout", "TimeoutError"));
    expect(result).toMatchObject({ name: "APIError", retryable: true });
    expect(result.message).toMatch(/^timed out: /);
  });
});

describe("toMessageError: anything else", () => {
  it("a thrown plain object is described by its message, never [object Object]", () => {
    expect(toMessageError({ error: { message: "model exploded" } })).toEqual({ name: "UnknownError", message: "model exploded" });
    expect(toMessageError({ foo: 1 }).message).toBe('{"foo":1}');
  });

  it("an error's cause is added when it says more", () => {
    const error = new Error("stream failed", { cause: new Error("invalid JSON in chunk 3") });
    expect(toMessageError(error)).toEqual({ name: "UnknownError", message: "stream failed: invalid JSON in chunk 3" });
  });

  it("a thrown string or nothing still gives a message", () => {
    expect(toMessageError("boom")).toEqual({ name: "UnknownError", message: "boom" });
    expect(toMessageError(undefined)).toEqual({ name: "UnknownError", message: "Unknown error" });
  });

  it("an error that is already a MessageError passes through unchanged", () => {
    const stored = { name: "OutputLengthError" as const, message: "hit max tokens" };
    expect(toMessageError(stored)).toEqual(stored);
  });

  it("every result is a valid stored MessageError", () => {
    const inputs: unknown[] = [
      apiError({ statusCode: 500, responseHeaders: { "X-Request-Id": "abc" }, responseBody: "oops" }),
      apiError({ statusCode: 401 }),
      networkFailure("ETIMEDOUT", "connect ETIMEDOUT"),
      new Error(""),
      Symbol("weird"),
      42,
      null,
    ];
    for (const input of inputs) expect(MessageErrorSchema.safeParse(toMessageError(input)).success).toBe(true);
  });
});
