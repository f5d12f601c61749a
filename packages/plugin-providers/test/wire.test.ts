// Each built-in provider through the real kernel, over real HTTP, against a 127.0.0.1 server that
// speaks its wire format: OpenAI Chat Completions and Responses, Anthropic Messages, Gemini.
import { describe, expect, it } from "vitest";
import {
  startAnthropicServer,
  startGeminiServer,
  startResponsesServer,
  startScriptedServer,
  type ProviderScriptEntry,
  type ScriptedRequest,
} from "@tessera/testing";
import { definePlugin, retryDelay, type AssistantMessage, type Config, type RetryPart } from "@tessera/kernel";
import { LOOKUP, runPrompt, testKernel, texts, toolParts } from "./helpers.js";

interface WireCase {
  name: string;
  /** provider/model; the model is in the catalog, so its prices apply. */
  model: string;
  start(script: ProviderScriptEntry[]): Promise<{
    url: string;
    completionRequests: readonly ScriptedRequest[];
    remaining: number;
    close(): Promise<void>;
  }>;
  provider(url: string): NonNullable<Config["provider"]>;
  /** USD per million tokens of the catalog entry: input, output, cache read, cache write. */
  prices: { input: number; output: number; cacheRead: number; cacheWrite: number };
  /** Whether the format reports cache writes. */
  cacheWrite: boolean;
  overflow: { status: number; error: { message: string; type?: string; code?: string } };
  /** Where the tool result sits in the second request. */
  toolResultIn(body: any): string;
}

const cases: WireCase[] = [
  {
    name: "OpenAI Chat Completions",
    model: "openai/gpt-4.1",
    start: (script) => startScriptedServer({ script: script as never }),
    provider: (url) => ({ openai: { api: "chat", options: { baseURL: url, apiKey: "sk-test" } } }),
    prices: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 0 },
    cacheWrite: false,
    overflow: {
      status: 400,
      error: {
        message: "This model's maximum context length is 1047576 tokens. However, your messages resulted in 1200000 tokens.",
        code: "context_length_exceeded",
      },
    },
    toolResultIn: (body) => JSON.stringify(body.messages.filter((m: any) => m.role === "tool")),
  },
  {
    name: "OpenAI Responses",
    model: "openai/gpt-5",
    start: (script) => startResponsesServer({ script }),
    provider: (url) => ({ openai: { options: { baseURL: url, apiKey: "sk-test" } } }),
    prices: { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 },
    cacheWrite: false,
    overflow: {
      status: 400,
      error: {
        message: "Your input exceeds the context window of this model. Please adjust your input and try again.",
        code: "context_length_exceeded",
      },
    },
    toolResultIn: (body) => JSON.stringify(body.input.filter((i: any) => i.type === "function_call_output")),
  },
  {
    name: "Anthropic Messages",
    model: "anthropic/claude-sonnet-4-5",
    start: (script) => startAnthropicServer({ script }),
    provider: (url) => ({ anthropic: { options: { baseURL: url, apiKey: "sk-ant-test" } } }),
    prices: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    cacheWrite: true,
    overflow: { status: 400, error: { message: "prompt is too long: 250000 tokens > 200000 maximum" } },
    toolResultIn: (body) =>
      JSON.stringify(body.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content : [])).filter((c: any) => c.type === "tool_result")),
  },
  {
    name: "Gemini streamGenerateContent",
    model: "google/gemini-2.5-flash",
    start: (script) => startGeminiServer({ script }),
    provider: (url) => ({ google: { options: { baseURL: url, apiKey: "g-test" } } }),
    prices: { input: 0.3, output: 2.5, cacheRead: 0.075, cacheWrite: 0 },
    cacheWrite: false,
    overflow: {
      status: 400,
      error: { message: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)." },
    },
    toolResultIn: (body) =>
      JSON.stringify(body.contents.flatMap((c: any) => c.parts).filter((p: any) => p.functionResponse)),
  },
];

function configFor(c: WireCase, url: string): Config {
  return { model: c.model, provider: c.provider(url) };
}

describe.each(cases)("$name through the kernel", (c) => {
  it("runs a tool-call round trip and prices the usage from the catalog", async () => {
    const server = await c.start([
      {
        text: "Let me look that up.",
        toolCalls: [{ name: "lookup", arguments: { key: "answer" } }],
        usage: { input: 1000, output: 200, cacheRead: 100, ...(c.cacheWrite ? { cacheWrite: 50 } : {}) },
      },
      { text: "The answer is forty-two.", usage: { input: 1400, output: 20 } },
    ]);
    await using k = await testKernel(configFor(c, server.url));
    try {
      const { assistants } = await runPrompt(k.kernel, "What is the answer?");
      expect(assistants).toHaveLength(2);
      const [first, second] = assistants;
      expect(first!.info).toMatchObject({ finish: "tool-calls" });
      expect((first!.info as AssistantMessage).error).toBeUndefined();
      expect(texts(first)).toEqual(["Let me look that up."]);
      expect(toolParts(first)).toEqual([
        expect.objectContaining({
          tool: "lookup",
          state: expect.objectContaining({ status: "completed", input: { key: "answer" }, output: LOOKUP.answer }),
        }),
      ]);
      expect(texts(second)).toEqual(["The answer is forty-two."]);
      expect(second!.info).toMatchObject({ finish: "stop" });

      // The tool's output went back to the model in the format's own shape.
      expect(server.completionRequests).toHaveLength(2);
      expect(c.toolResultIn(server.completionRequests[1]!.body)).toContain(LOOKUP.answer);

      // Usage: input is the uncached part; cache reads (and Anthropic's writes) are separate.
      const cacheWrite = c.cacheWrite ? 50 : 0;
      const tokens = { input: 1000 - 100 - cacheWrite, output: 200, reasoning: 0, cache: { read: 100, write: cacheWrite } };
      expect((first!.info as AssistantMessage).tokens).toEqual(tokens);
      const p = c.prices;
      const cost = (tokens.input * p.input + 200 * p.output + 100 * p.cacheRead + cacheWrite * p.cacheWrite) / 1e6;
      expect((first!.info as AssistantMessage).cost).toBeCloseTo(cost, 12);
      expect((second!.info as AssistantMessage).cost).toBeCloseTo((1400 * p.input + 20 * p.output) / 1e6, 12);
    } finally {
      await server.close();
    }
  });

  it("retries a 429 (keeping its Retry-After) and a 500, then answers", async () => {
    const server = await c.start([
      { status: 429, headers: { "retry-after": "1" } },
      { status: 500 },
      { text: "Made it." },
    ]);
    await using k = await testKernel(configFor(c, server.url));
    try {
      const { assistants } = await runPrompt(k.kernel, "hello");
      expect(assistants).toHaveLength(1);
      expect(texts(assistants[0])).toEqual(["Made it."]);
      const retries = assistants[0]!.parts.filter((p): p is RetryPart => p.type === "retry");
      expect(retries.map((r) => r.attempt)).toEqual([1, 2]);
      expect(k.retried.map((e) => (e.name === "APIError" ? e.statusCode : undefined))).toEqual([429, 500]);
      // The kernel's own backoff would wait what the provider asked for.
      const rateLimited = k.retried[0]!;
      expect(rateLimited.name === "APIError" && rateLimited.responseHeaders?.["retry-after"]).toBe("1");
      expect(retryDelay(1, rateLimited)).toBe(1000);
      expect(server.remaining).toBe(0);
    } finally {
      await server.close();
    }
  });

  it("retries a stream cut mid-way", async () => {
    const server = await c.start([{ text: "This answer will be cut off", chunkSize: 3, cutAfterChunks: 3 }, { text: "Whole answer." }]);
    await using k = await testKernel(configFor(c, server.url));
    try {
      const { assistants } = await runPrompt(k.kernel, "hello");
      expect(assistants).toHaveLength(1);
      expect(texts(assistants[0])).toEqual(["Whole answer."]);
      expect(k.retried).toHaveLength(1);
      expect(k.retried[0]).toMatchObject({ name: "APIError", retryable: true });
      expect((assistants[0]!.info as AssistantMessage).error).toBeUndefined();
    } finally {
      await server.close();
    }
  });

  it("ends a context overflow as ContextOverflowError and hands it to compaction", async () => {
    const server = await c.start([c.overflow]);
    const reasons: string[] = [];
    const compaction = definePlugin({
      name: "test-compaction",
      version: "1.0.0",
      kernel: "^1.0.0",
      setup(ctx) {
        ctx.compactions.register({
          id: "record",
          async compact(context) {
            reasons.push(context.reason);
            return "stop";
          },
        });
      },
    });
    await using k = await testKernel(configFor(c, server.url), { plugins: [compaction] });
    try {
      const { assistants } = await runPrompt(k.kernel, "a very long prompt");
      expect(assistants).toHaveLength(1);
      const error = (assistants[0]!.info as AssistantMessage).error;
      expect(error).toMatchObject({ name: "ContextOverflowError" });
      expect(error?.message).toContain(c.overflow.error.message.slice(0, 20));
      expect(reasons).toEqual(["provider-overflow"]);
      expect(k.retried).toHaveLength(0);
      expect(server.completionRequests).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});

describe("errors inside a 200 stream", () => {
  it("Anthropic overloaded_error mid-stream is retried", async () => {
    const server = await startAnthropicServer({
      script: [{ text: "partial answer", streamError: { type: "overloaded_error", message: "Overloaded" } }, { text: "Fine now." }],
    });
    await using k = await testKernel({ model: "anthropic/claude-haiku-4-5", provider: cases[2]!.provider(server.url) });
    try {
      const { assistants } = await runPrompt(k.kernel, "hi");
      expect(texts(assistants[0])).toEqual(["Fine now."]);
      expect(k.retried).toEqual([expect.objectContaining({ name: "APIError", statusCode: 529, retryable: true })]);
    } finally {
      await server.close();
    }
  });

  it("Responses context_length_exceeded in the stream is a context overflow", async () => {
    const server = await startResponsesServer({
      script: [{ text: "x", streamError: { afterChunks: 2, code: "context_length_exceeded", message: "Your input exceeds the context window of this model." } }],
    });
    await using k = await testKernel({ model: "openai/gpt-5-mini", provider: cases[1]!.provider(server.url) });
    try {
      const { assistants } = await runPrompt(k.kernel, "hi");
      expect((assistants[0]!.info as AssistantMessage).error).toMatchObject({ name: "ContextOverflowError" });
      expect(k.retried).toHaveLength(0);
    } finally {
      await server.close();
    }
  });
});

describe("non-streaming requests (generateText, e.g. session titles)", () => {
  it.each(cases)("$name answers with one JSON body", async (c) => {
    const server = await c.start([
      { text: "A title", usage: { input: 30, output: 2 } },
      { text: "", toolCalls: [{ name: "lookup", arguments: { key: "answer" } }] },
    ]);
    await using k = await testKernel(configFor(c, server.url));
    try {
      const [providerID, modelID] = c.model.split("/") as [string, string];
      const model = await k.kernel.providers.get(providerID)!.languageModel(modelID);
      const { generateText, jsonSchema, tool } = await import("ai");
      const first = await generateText({ model, prompt: "Write a title", maxRetries: 0 });
      expect(first.text).toBe("A title");
      expect(first.usage.inputTokens).toBe(30);
      const second = await generateText({
        model,
        prompt: "look it up",
        tools: { lookup: tool({ inputSchema: jsonSchema<{ key: string }>({ type: "object", properties: { key: { type: "string" } } }) }) },
        maxRetries: 0,
      });
      expect(second.toolCalls.map((t) => [t.toolName, t.input])).toEqual([["lookup", { key: "answer" }]]);
      expect(server.completionRequests.every((r) => r.body?.stream !== true)).toBe(true);
    } finally {
      await server.close();
    }
  });
});
