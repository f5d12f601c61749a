import { generateText, streamText } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedServer, type ScriptedServer } from "../src/index.js";
import { collect, modelFor, partsOfType, readSse } from "./helpers.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("text turns through the AI SDK", () => {
  it("streams text deltas, then finish-step and finish with usage", async () => {
    server = await startScriptedServer({
      script: [{ text: "hello world", chunkSize: 5, usage: { input: 12, output: 7, cacheRead: 2 } }],
    });
    const result = streamText({ model: modelFor(server), prompt: "say hello", maxRetries: 0 });
    const { parts, thrown } = await collect(result);

    expect(thrown).toBeUndefined();
    expect(parts.map((p) => p.type)).toEqual([
      "start",
      "start-step",
      "text-start",
      "text-delta",
      "text-delta",
      "text-delta",
      "text-end",
      "finish-step",
      "finish",
    ]);
    expect(partsOfType(parts, "text-delta").map((p) => p.text)).toEqual(["hello", " worl", "d"]);

    const [step] = partsOfType(parts, "finish-step");
    expect(step?.finishReason).toBe("stop");
    expect(step?.rawFinishReason).toBe("stop");
    expect(step?.response.id).toBe("chatcmpl-1");
    expect(step?.usage).toMatchObject({
      inputTokens: 12,
      inputTokenDetails: { noCacheTokens: 10, cacheReadTokens: 2 },
      outputTokens: 7,
      outputTokenDetails: { textTokens: 7, reasoningTokens: 0 },
      totalTokens: 19,
    });
    const [finish] = partsOfType(parts, "finish");
    expect(finish?.finishReason).toBe("stop");
    expect(finish?.totalUsage.totalTokens).toBe(19);
    expect(await result.text).toBe("hello world");
    expect(server.remaining).toBe(0);
  });

  it("streams reasoning_content as reasoning parts before the text", async () => {
    server = await startScriptedServer({
      script: [{ reasoning: "thinking hard", text: "42", usage: { input: 5, output: 10, reasoning: 6 } }],
    });
    const { parts } = await collect(streamText({ model: modelFor(server), prompt: "q", maxRetries: 0 }));
    const types = parts.map((p) => p.type);
    expect(types.slice(2, 6)).toEqual(["reasoning-start", "reasoning-delta", "reasoning-delta", "reasoning-delta"]);
    expect(types.indexOf("reasoning-end")).toBeLessThan(types.indexOf("text-start"));
    expect(partsOfType(parts, "reasoning-delta").map((p) => p.text).join("")).toBe("thinking hard");
    expect(partsOfType(parts, "finish-step")[0]?.usage.outputTokenDetails).toEqual({ textTokens: 4, reasoningTokens: 6 });
  });

  it("computes default usage deterministically from lengths", async () => {
    server = await startScriptedServer({ script: [{ text: "abcdefghij" }, { text: "abcdefghij" }] });
    const usages = [];
    for (let i = 0; i < 2; i++) {
      const { parts } = await collect(streamText({ model: modelFor(server), prompt: "same prompt", maxRetries: 0 }));
      usages.push(partsOfType(parts, "finish-step")[0]?.usage);
    }
    const messages = JSON.stringify(server.completionRequests[0]?.body.messages);
    expect(usages[0]).toMatchObject({ inputTokens: Math.ceil(messages.length / 4), outputTokens: 3 });
    expect(usages[1]).toEqual(usages[0]);
  });

  it("honours stream_options.include_usage: without it there is no usage chunk", async () => {
    server = await startScriptedServer({ script: [{ text: "hi" }] });
    const { parts } = await collect(
      streamText({ model: modelFor(server, { includeUsage: false }), prompt: "q", maxRetries: 0 }),
    );
    expect(server.requests[0]?.body.stream_options).toBeUndefined();
    expect(partsOfType(parts, "finish-step")[0]?.usage.inputTokens).toBeUndefined();
  });

  it('usageChunk: "always" sends usage even when not requested', async () => {
    server = await startScriptedServer({ script: [{ text: "hi", usage: { input: 3, output: 1 } }], usageChunk: "always" });
    const { parts } = await collect(
      streamText({ model: modelFor(server, { includeUsage: false }), prompt: "q", maxRetries: 0 }),
    );
    expect(partsOfType(parts, "finish-step")[0]?.usage.totalTokens).toBe(4);
  });

  it('maps finishReason "length"', async () => {
    server = await startScriptedServer({ script: [{ text: "trunc", finishReason: "length" }] });
    const { parts } = await collect(streamText({ model: modelFor(server), prompt: "q", maxRetries: 0 }));
    expect(partsOfType(parts, "finish")[0]).toMatchObject({ finishReason: "length", rawFinishReason: "length" });
  });

  it("answers stream: false requests (generateText) with a chat.completion", async () => {
    server = await startScriptedServer({
      script: [{ text: "plain", toolCalls: [], usage: { input: 9, output: 2 } }],
    });
    const result = await generateText({ model: modelFor(server), prompt: "q", maxRetries: 0 });
    expect(result.text).toBe("plain");
    expect(result.finishReason).toBe("stop");
    expect(result.usage.totalTokens).toBe(11);
    expect(server.requests[0]?.body.stream).toBeUndefined();
  });
});

describe("raw wire format", () => {
  it("emits OpenAI chat.completion.chunk events, a usage chunk and [DONE]", async () => {
    server = await startScriptedServer({
      script: [{ text: "hey", chunkSize: 2, usage: { input: 1, output: 1 } }],
      model: "listed",
    });
    const response = await fetch(`${server.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages: [], stream: true, stream_options: { include_usage: true } }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const events = await readSse(response);
    expect(events.at(-1)).toBe("[DONE]");
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e));
    const base = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 1_700_000_000, model: "m" };
    const choice = (delta: object, finish_reason: string | null = null) => ({
      ...base,
      choices: [{ index: 0, delta, logprobs: null, finish_reason }],
      usage: null,
    });
    expect(chunks).toEqual([
      choice({ role: "assistant", content: "" }),
      choice({ content: "he" }),
      choice({ content: "y" }),
      choice({}, "stop"),
      {
        ...base,
        choices: [],
        usage: {
          prompt_tokens: 1,
          completion_tokens: 1,
          total_tokens: 2,
          prompt_tokens_details: { cached_tokens: 0 },
          completion_tokens_details: { reasoning_tokens: 0 },
        },
      },
    ]);
  });

  it("serves GET /v1/models and 404s unknown routes with an OpenAI-shaped error", async () => {
    server = await startScriptedServer({ script: [], model: "scripted-x" });
    const models = await (await fetch(`${server.url}/models`)).json();
    expect(models).toMatchObject({ object: "list", data: [{ id: "scripted-x", object: "model" }] });
    const missing = await fetch(`${server.url}/embeddings`, { method: "POST", body: "{}" });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe("unknown_route");
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /v1/models", "POST /v1/embeddings"]);
  });

  it("binds 127.0.0.1 only", async () => {
    server = await startScriptedServer({ script: [] });
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/v1`);
  });
});
