import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { APICallError } from "ai";
import { describe, expect, it } from "vitest";
import {
  createKernel,
  MAX_RETRY_ATTEMPTS,
  type AssistantMessage,
  type Kernel,
  type MessageWithParts,
  type Part,
  type PluginDefinition,
} from "@tessera/kernel";
import { finishPart, mockProvider, rawStream, recordEvents, scriptedModel, testKernel } from "./harness.js";

function apiError(statusCode: number, options: { message?: string; responseHeaders?: Record<string, string>; responseBody?: string; isRetryable?: boolean } = {}) {
  return new APICallError({
    message: options.message ?? `HTTP ${statusCode}`,
    url: "http://x",
    requestBodyValues: {},
    statusCode,
    ...(options.responseHeaders ? { responseHeaders: options.responseHeaders } : {}),
    ...(options.responseBody ? { responseBody: options.responseBody } : {}),
    ...(options.isRetryable !== undefined ? { isRetryable: options.isRetryable } : {}),
  });
}

/** Like the harness's testKernel, but with the kernel's real retry backoff (`retryDelay` from retry.ts). */
async function realBackoffKernel(plugins: PluginDefinition[]): Promise<Kernel> {
  const root = mkdtempSync(join(tmpdir(), "tessera-retry-"));
  const dir = join(root, "project");
  mkdirSync(join(dir, ".git"), { recursive: true });
  const home = join(root, "home");
  mkdirSync(home);
  return createKernel({
    directory: dir,
    config: { config: { model: "mock/mock-model" }, files: [], sources: {}, plugins: [], directory: dir, root: dir },
    plugins,
    discover: false,
    env: { HOME: home, XDG_CONFIG_HOME: join(home, ".config"), XDG_DATA_HOME: join(home, ".local/share"), PATH: process.env.PATH },
    storePath: ":memory:",
    flushIntervalMs: 5,
    log: () => {},
  });
}

const info = (m: MessageWithParts | undefined) => m?.info as AssistantMessage;
const partsOf = <T extends Part["type"]>(m: MessageWithParts | undefined, type: T) =>
  (m?.parts ?? []).filter((p): p is Extract<Part, { type: T }> => p.type === type);
const statusesOf = (events: ReturnType<typeof recordEvents>, sessionID: string) =>
  events.of("session.status").filter((e) => e.sessionID === sessionID).map((e) => e.status);

describe("retries and session status", () => {
  it("retries a 429 after the provider's retry-after-ms, storing a retry part and going busy → retry → busy → idle", async () => {
    const calls: number[] = [];
    const { model } = scriptedModel([
      () => {
        calls.push(Date.now());
        throw apiError(429, { message: "rate limited", responseHeaders: { "retry-after-ms": "20" } });
      },
      () => {
        calls.push(Date.now());
        return rawStream([
          { type: "text-start", id: "t" },
          { type: "text-delta", id: "t", delta: "Made it." },
          { type: "text-end", id: "t" },
          finishPart("stop"),
        ]);
      },
    ]);
    const kernel = await realBackoffKernel([mockProvider(model)]);
    const events = recordEvents(kernel);
    let announcedAt = 0;
    kernel.bus.subscribe("session.status", (e) => {
      if ((e.properties as { status: { type: string } }).status.type === "retry") announcedAt = Date.now();
    });
    const session = kernel.sessions.createSession();
    const result = await kernel.sessions.prompt({ sessionID: session.id, text: "hi" });

    expect(calls).toHaveLength(2);
    const waited = calls[1]! - calls[0]!;
    // 20 ms from the header, not the 2 s default backoff.
    expect(waited).toBeGreaterThanOrEqual(18);
    expect(waited).toBeLessThan(1000);

    const retries = partsOf(result.assistant, "retry");
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ attempt: 1, error: { name: "APIError", statusCode: 429, retryable: true } });
    expect(partsOf(result.assistant, "text").map((p) => p.text)).toEqual(["Made it."]);
    expect(info(result.assistant).error).toBeUndefined();

    const statuses = statusesOf(events, session.id);
    expect(statuses.map((s) => s.type)).toEqual(["busy", "retry", "busy", "idle"]);
    const retry = statuses[1]!;
    expect(retry).toMatchObject({ type: "retry", attempt: 1, message: "Rate limited" });
    // `next` says when the retry happens: 20 ms after it was announced.
    expect(retry.next - announcedAt).toBeGreaterThanOrEqual(15);
    expect(retry.next - announcedAt).toBeLessThanOrEqual(20);
    await kernel.dispose();
  });

  it("retries a 500 mid-answer and stores the answer once, without the failed attempt's half text", async () => {
    const { model } = scriptedModel([
      () =>
        rawStream([
          { type: "text-start", id: "t" },
          { type: "text-delta", id: "t", delta: "Half an ans" },
          { type: "error", error: apiError(500, { message: "Internal Server Error" }) },
        ]),
      () =>
        rawStream([
          { type: "text-start", id: "t" },
          { type: "text-delta", id: "t", delta: "The full " },
          { type: "text-delta", id: "t", delta: "answer." },
          { type: "text-end", id: "t" },
          finishPart("stop"),
        ]),
    ]);
    const { kernel } = await testKernel([mockProvider(model)]);
    const session = kernel.sessions.createSession();
    const result = await kernel.sessions.prompt({ sessionID: session.id, text: "hi" });

    expect(model.doStreamCalls).toHaveLength(2);
    const stored = kernel.sessions.store.listMessages(session.id).filter((m) => m.info.role === "assistant");
    expect(stored).toHaveLength(1);
    expect(partsOf(result.assistant, "text").map((p) => p.text)).toEqual(["The full answer."]);
    expect(JSON.stringify(stored)).not.toContain("Half an ans");
    expect(partsOf(result.assistant, "retry")).toEqual([expect.objectContaining({ attempt: 1, error: expect.objectContaining({ statusCode: 500 }) })]);
    expect(info(result.assistant)).toMatchObject({ finish: "stop" });
    expect(info(result.assistant).error).toBeUndefined();
    await kernel.dispose();
  });

  it("stores a non-retryable 401 on the assistant message as ProviderAuthError, publishes session.error and stops", async () => {
    const { model, remaining } = scriptedModel([
      { error: apiError(401, { message: "invalid x-api-key", responseBody: '{"error":{"type":"authentication_error"}}' }) },
      { text: "never streamed" },
    ]);
    const { kernel } = await testKernel([mockProvider(model)]);
    const events = recordEvents(kernel);
    const session = kernel.sessions.createSession();
    const result = await kernel.sessions.prompt({ sessionID: session.id, text: "hi" });

    expect(model.doStreamCalls).toHaveLength(1);
    expect(remaining()).toBe(1);
    expect(info(result.assistant).error).toMatchObject({ name: "ProviderAuthError", providerID: "mock" });
    expect(info(result.assistant).time.completed).toBeTypeOf("number");
    expect(partsOf(result.assistant, "retry")).toEqual([]);
    expect(events.of("session.error")).toEqual([
      { sessionID: session.id, messageID: result.assistant!.info.id, error: expect.objectContaining({ name: "ProviderAuthError" }) },
    ]);
    expect(statusesOf(events, session.id).map((s) => s.type)).toEqual(["busy", "idle"]);
    await kernel.dispose();
  });

  it("ends the turn promptly with AbortedError when the user aborts during a long retry wait", async () => {
    const { model, remaining } = scriptedModel([
      { error: apiError(429, { message: "slow down", responseHeaders: { "retry-after": "60" } }) },
      { text: "never streamed" },
    ]);
    const kernel = await realBackoffKernel([mockProvider(model)]);
    const events = recordEvents(kernel);
    const session = kernel.sessions.createSession();
    kernel.bus.subscribe("session.status", (e) => {
      const { status } = e.properties as { status: { type: string } };
      if (status.type === "retry") kernel.sessions.abort(session.id);
    });
    const started = Date.now();
    const result = await kernel.sessions.prompt({ sessionID: session.id, text: "hi" });

    expect(Date.now() - started).toBeLessThan(1000);
    expect(remaining()).toBe(1);
    expect(info(result.assistant).error).toMatchObject({ name: "AbortedError" });
    expect(info(result.assistant).time.completed).toBeTypeOf("number");
    expect(partsOf(result.assistant, "retry")).toHaveLength(1);
    const statuses = statusesOf(events, session.id);
    expect(statuses.map((s) => s.type)).toEqual(["busy", "retry", "idle"]);
    // The wait announced was the provider's 60 s.
    expect(statuses[1].next - partsOf(result.assistant, "retry")[0]!.time.created).toBeGreaterThanOrEqual(59_000);
    expect(kernel.sessions.status(session.id)).toEqual({ type: "idle" });
    await kernel.dispose();
  });

  it(`stores the error after ${MAX_RETRY_ATTEMPTS} retries`, async () => {
    const failures = Array.from({ length: MAX_RETRY_ATTEMPTS + 1 }, (_, i) => ({ error: apiError(503, { message: `Service Unavailable ${i + 1}` }) }));
    const { model, remaining } = scriptedModel([...failures, { text: "too late" }]);
    const { kernel } = await testKernel([mockProvider(model)]);
    const events = recordEvents(kernel);
    const session = kernel.sessions.createSession();
    const result = await kernel.sessions.prompt({ sessionID: session.id, text: "hi" });

    expect(model.doStreamCalls).toHaveLength(MAX_RETRY_ATTEMPTS + 1);
    expect(remaining()).toBe(1);
    expect(partsOf(result.assistant, "retry").map((p) => p.attempt)).toEqual(Array.from({ length: MAX_RETRY_ATTEMPTS }, (_, i) => i + 1));
    expect(info(result.assistant).error).toMatchObject({ name: "APIError", statusCode: 503, message: expect.stringContaining(`Service Unavailable ${MAX_RETRY_ATTEMPTS + 1}`) });
    expect(events.of("session.error")).toHaveLength(1);
    const types = statusesOf(events, session.id).map((s) => s.type);
    expect(types.filter((t) => t === "retry")).toHaveLength(MAX_RETRY_ATTEMPTS);
    expect(types.at(-1)).toBe("idle");
    await kernel.dispose();
  });
});
