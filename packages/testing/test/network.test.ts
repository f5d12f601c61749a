import { APICallError, streamText } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedServer, type ScriptedServer } from "../src/index.js";
import { collect, modelFor, partsOfType } from "./helpers.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("network failures and timing", () => {
  it("cutAfterChunks drops the connection mid-stream: iterating the stream throws", async () => {
    // chunks: role, "hell", "o wo" | "rld", finish, usage, [DONE]
    server = await startScriptedServer({ script: [{ text: "hello world", cutAfterChunks: 3 }] });
    const onError: unknown[] = [];
    const result = streamText({
      model: modelFor(server),
      prompt: "q",
      maxRetries: 0,
      onError: ({ error }) => {
        onError.push(error);
      },
    });
    const { parts, thrown } = await collect(result);
    expect(partsOfType(parts, "text-delta").map((p) => p.text)).toEqual(["hell", "o wo"]);
    expect(partsOfType(parts, "finish")).toEqual([]);
    expect(APICallError.isInstance(thrown)).toBe(true);
    expect((thrown as APICallError).message).toBe("Failed to process successful response");
    expect(String((thrown as APICallError).cause)).toMatch(/terminated/);
    await expect(result.finishReason).rejects.toBeDefined();
  });

  it("hang + AbortSignal aborts promptly with an abort part", async () => {
    server = await startScriptedServer({ script: [{ hang: true, afterChunks: 2, text: "hello world" }] });
    const controller = new AbortController();
    const result = streamText({ model: modelFor(server), prompt: "q", maxRetries: 0, abortSignal: controller.signal });
    const parts: string[] = [];
    const started = Date.now();
    let abortedAt = 0;
    try {
      for await (const part of result.stream) {
        parts.push(part.type);
        if (part.type === "text-delta") {
          abortedAt = Date.now();
          controller.abort();
        }
      }
    } catch (error) {
      parts.push(`thrown:${(error as Error).name}`);
    }
    expect(Date.now() - abortedAt).toBeLessThan(500);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(parts).toEqual(["start", "start-step", "text-start", "text-delta", "abort"]);
  });

  it("close() ends hung streams instead of waiting for them", async () => {
    server = await startScriptedServer({ script: [{ hang: true, text: "never" }] });
    const response = await fetch(`${server.url}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m", messages: [], stream: true }),
    });
    expect(response.status).toBe(200);
    const reading = response.text().then(
      () => "ended",
      () => "failed",
    );
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(500);
    expect(await reading).toBe("failed");
  });

  it("close() cancels a pending delayMs", async () => {
    server = await startScriptedServer({ script: [{ delayMs: 60_000, text: "late" }] });
    const pending = fetch(`${server.url}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m", messages: [], stream: true }),
    }).then(
      () => "answered",
      () => "failed",
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(500);
    expect(await pending).toBe("failed");
  });

  it("delayMs waits before the first byte", async () => {
    server = await startScriptedServer({ script: [{ delayMs: 100, text: "slow" }] });
    const started = Date.now();
    const result = streamText({ model: modelFor(server), prompt: "q", maxRetries: 0 });
    expect(await result.text).toBe("slow");
    expect(Date.now() - started).toBeGreaterThanOrEqual(95);
  });

  it("records every request with path, headers and parsed body; push() extends the script", async () => {
    server = await startScriptedServer({ script: [] });
    expect(server.remaining).toBe(0);
    server.push({ text: "one" }, { text: "two" });
    expect(server.remaining).toBe(2);
    await streamText({ model: modelFor(server, { modelId: "gpt-test" }), prompt: "first", maxRetries: 0 }).text;
    const [request] = server.requests;
    expect(request).toMatchObject({
      index: 1,
      method: "POST",
      path: "/v1/chat/completions",
      body: {
        model: "gpt-test",
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: "user", content: "first" }],
      },
    });
    expect(request?.headers.authorization).toBe("Bearer test");
    expect(server.remaining).toBe(1);
  });

  it("supports await using", async () => {
    let url: string;
    {
      await using s = await startScriptedServer({ script: [] });
      url = s.url;
    }
    await expect(fetch(`${url}/models`)).rejects.toThrow();
  });
});
