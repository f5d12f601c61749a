import { getEventListeners } from "node:events";
import { APICallError } from "ai";
import { afterEach, describe, expect, it, vi } from "vitest";
import { toMessageError } from "../../src/engine/model-errors.js";
import {
  RETRY_AFTER_MAX_MS,
  RETRY_INITIAL_MS,
  RETRY_MAX_MS,
  retryDelay,
  retryMessage,
  sleep,
} from "../../src/engine/retry.js";
import type { MessageError } from "../../src/session/message.js";

function httpError(statusCode: number, message = "failed", responseBody?: string): MessageError {
  return toMessageError(
    new APICallError({ message, url: "https://api.example.com", requestBodyValues: {}, statusCode, responseBody }),
  );
}

function withHeaders(responseHeaders: Record<string, string>): MessageError {
  return { name: "APIError", message: "slow down", statusCode: 429, retryable: true, responseHeaders };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("retryMessage", () => {
  it("says 'Rate limited' for a 429", () => {
    expect(retryMessage(httpError(429))).toBe("Rate limited");
  });

  it("says 'Provider overloaded' for Anthropic's 529 and for an overloaded body", () => {
    expect(retryMessage(httpError(529))).toBe("Provider overloaded");
    expect(retryMessage(httpError(503, "Service Unavailable", '{"error":{"message":"Overloaded"}}'))).toBe("Provider overloaded");
  });

  it("names the status of a plain server error", () => {
    expect(retryMessage(httpError(503, "Service Unavailable"))).toBe("Server error 503");
  });

  it("says 'Network error' for a dropped connection", () => {
    const error = toMessageError(new TypeError("fetch failed", { cause: Object.assign(new Error("reset"), { code: "ECONNRESET" }) }));
    expect(retryMessage(error)).toBe("Network error");
  });

  it("says 'Timed out' for a timeout and for a 408", () => {
    expect(retryMessage(toMessageError(new DOMException("timeout", "TimeoutError")))).toBe("Timed out");
    expect(retryMessage(httpError(408))).toBe("Timed out");
  });

  it("gives nothing for errors a retry cannot fix", () => {
    const errors: MessageError[] = [
      { name: "ContextOverflowError", message: "too long", retryable: false },
      { name: "ProviderAuthError", message: "bad key", providerID: "openai", retryable: false },
      { name: "AbortedError", message: "aborted" },
      { name: "UnknownError", message: "?" },
      httpError(400),
      httpError(429, "You exceeded your current quota", '{"error":{"code":"insufficient_quota"}}'),
    ];
    for (const error of errors) expect(retryMessage(error)).toBeUndefined();
  });

  it("gives nothing for a 4xx even when something flagged it retryable", () => {
    expect(retryMessage({ name: "APIError", message: "not found", statusCode: 404, retryable: true })).toBeUndefined();
  });
});

describe("retryDelay", () => {
  it("backs off from 2 s, doubling, up to 30 s", () => {
    expect([1, 2, 3, 4, 5, 6, 50].map((attempt) => retryDelay(attempt))).toEqual([
      2000, 4000, 8000, 16000, 30000, 30000, 30000,
    ]);
    expect(RETRY_INITIAL_MS).toBe(2000);
    expect(RETRY_MAX_MS).toBe(30000);
  });

  it("treats a nonsensical attempt number as the first", () => {
    expect(retryDelay(0)).toBe(2000);
    expect(retryDelay(Number.NaN)).toBe(2000);
  });

  it("waits as long as retry-after-ms says", () => {
    expect(retryDelay(1, withHeaders({ "retry-after-ms": "1500" }))).toBe(1500);
  });

  it("reads retry-after as seconds", () => {
    expect(retryDelay(1, withHeaders({ "retry-after": "45" }))).toBe(45_000);
  });

  it("reads retry-after as an HTTP date relative to now", () => {
    vi.useFakeTimers({ now: new Date("2026-01-01T00:00:00Z") });
    expect(retryDelay(1, withHeaders({ "retry-after": "Thu, 01 Jan 2026 00:01:30 GMT" }))).toBe(90_000);
  });

  it("never waits a negative time for a date in the past", () => {
    vi.useFakeTimers({ now: new Date("2026-01-01T00:00:00Z") });
    expect(retryDelay(3, withHeaders({ "retry-after": "Wed, 31 Dec 2025 23:00:00 GMT" }))).toBe(0);
  });

  it("caps a provider's wait at 10 minutes", () => {
    expect(retryDelay(1, withHeaders({ "retry-after": "86400" }))).toBe(RETRY_AFTER_MAX_MS);
    expect(RETRY_AFTER_MAX_MS).toBe(600_000);
  });

  it("falls back to backoff when the header is garbage", () => {
    expect(retryDelay(2, withHeaders({ "retry-after": "soon", "retry-after-ms": "-5" }))).toBe(4000);
  });

  it("finds the header whatever its case", () => {
    expect(retryDelay(1, withHeaders({ "Retry-After": "3" }))).toBe(3000);
  });

  it("uses headers from a real 429 once mapped", () => {
    const error = toMessageError(
      new APICallError({
        message: "Too Many Requests",
        url: "https://api.example.com",
        requestBodyValues: {},
        statusCode: 429,
        responseHeaders: { "Retry-After-Ms": "250" },
      }),
    );
    expect(retryDelay(4, error)).toBe(250);
  });
});

describe("sleep", () => {
  it("resolves after the delay", async () => {
    vi.useFakeTimers();
    let done = false;
    const pending = sleep(1000).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await pending;
    expect(done).toBe(true);
  });

  it("rejects at once with an AbortError when the signal has already fired", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(sleep(60_000, controller.signal)).rejects.toMatchObject({ name: "AbortError" });
  });

  it("rejects as soon as the signal fires, and clears its timer", async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const pending = sleep(60_000, controller.signal);
    expect(vi.getTimerCount()).toBe(1);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    expect(vi.getTimerCount()).toBe(0);
  });

  it("rejects with the abort reason the caller gave", async () => {
    const controller = new AbortController();
    const reason = new Error("session deleted");
    const pending = sleep(60_000, controller.signal);
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it("leaves no listener on the signal after finishing", async () => {
    const controller = new AbortController();
    await sleep(1, controller.signal);
    await sleep(1, controller.signal);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });
});
