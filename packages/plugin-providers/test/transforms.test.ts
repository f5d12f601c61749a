// What the transforms put on the wire, seen by the scripted servers, with the kernel's hooks in play.
import { describe, expect, it } from "vitest";
import { startAnthropicServer, startGeminiServer, startResponsesServer, startScriptedServer } from "@tessera/testing";
import { definePlugin, type ChatParamsOutput } from "@tessera/kernel";
import {
  applyAnthropicCache,
  classifyError,
  isOverflowError,
  sanitizeGeminiSchema,
  temperatureRule,
} from "../src/index.js";
import { APICallError, type LanguageModelV4, type LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { streamText, wrapLanguageModel } from "ai";
import { errorMiddleware } from "../src/index.js";
import { runPrompt, testKernel } from "./helpers.js";

/** A plugin that sets sampling params, provider options and a header through the kernel's hooks. */
function hooksPlugin(params: Partial<ChatParamsOutput>, headers: Record<string, string> = {}) {
  return definePlugin({
    name: "test-hooks",
    version: "1.0.0",
    kernel: "^1.0.0",
    setup(ctx) {
      ctx.tap("chat.params", (_input, output) => {
        Object.assign(output, { ...params, options: { ...output.options, ...params.options } });
      });
      ctx.tap("chat.headers", (_input, output) => {
        Object.assign(output.headers, headers);
      });
    },
  });
}

const ANTHROPIC_TWO_STEPS = [
  { text: "Checking.", toolCalls: [{ name: "lookup", arguments: { key: "colour" } }] },
  { text: "It is blue." },
];

describe("Anthropic", () => {
  it("marks the system prompt and the last two turns for prompt caching", async () => {
    await using server = await startAnthropicServer({ script: ANTHROPIC_TWO_STEPS });
    await using k = await testKernel({
      model: "anthropic/claude-haiku-4-5",
      provider: { anthropic: { options: { baseURL: server.url, apiKey: "sk-ant-test" } } },
    });
    await runPrompt(k.kernel, "What colour?");
    const body = server.completionRequests[1]!.body;
    expect(body.system.at(-1).cache_control).toEqual({ type: "ephemeral" });
    const marked = body.messages.filter((m: any) => m.content.at(-1)?.cache_control);
    expect(body.messages.length).toBeGreaterThanOrEqual(3);
    expect(marked).toEqual(body.messages.slice(-2));
  });

  it("enables extended thinking from config, and chat.params options win over config options", async () => {
    await using server = await startAnthropicServer({ script: [{ reasoning: "Hmm.", text: "Done." }] });
    await using k = await testKernel(
      {
        model: "anthropic/claude-sonnet-4-5",
        provider: {
          anthropic: {
            options: { baseURL: server.url, apiKey: "sk-ant-test", headers: { "x-from-config": "yes" } },
            models: { "claude-sonnet-4-5": { thinking_budget: 4000, options: { sendReasoning: true, disableParallelToolUse: false } } },
          },
        },
      },
      { plugins: [hooksPlugin({ options: { disableParallelToolUse: true } }, { "x-from-hook": "1" })] },
    );
    const { assistants } = await runPrompt(k.kernel, "Think.");
    expect(assistants[0]!.parts.some((p) => p.type === "reasoning" && p.text === "Hmm.")).toBe(true);
    const request = server.completionRequests[0]!;
    expect(request.body.thinking).toEqual({ type: "enabled", budget_tokens: 4000 });
    expect(request.body.tool_choice).toMatchObject({ disable_parallel_tool_use: true });
    expect(request.headers["x-from-hook"]).toBe("1");
    expect(request.headers["x-from-config"]).toBe("yes");
    expect(request.headers["x-api-key"]).toBe("sk-ant-test");
  });
});

describe("OpenAI", () => {
  it("drops the temperature for reasoning models, sends reasoning effort from config, routes chat.params options", async () => {
    await using server = await startResponsesServer({ script: [{ text: "ok" }] });
    await using k = await testKernel(
      {
        model: "openai/gpt-5",
        provider: { openai: { options: { baseURL: server.url, apiKey: "sk-test" }, models: { "gpt-5": { reasoning_effort: "high" } } } },
      },
      { plugins: [hooksPlugin({ temperature: 0.3, options: { parallelToolCalls: false } })] },
    );
    await runPrompt(k.kernel, "hi");
    const body = server.completionRequests[0]!.body;
    expect(body.temperature).toBeUndefined();
    expect(body.reasoning).toMatchObject({ effort: "high" });
    expect(body.parallel_tool_calls).toBe(false);
    expect(server.completionRequests[0]!.headers.authorization).toBe("Bearer sk-test");
  });

  it("keeps the temperature a hook chose for a model that takes one", async () => {
    await using server = await startScriptedServer({ script: [{ text: "ok" }] });
    await using k = await testKernel(
      { model: "openai/gpt-4.1", provider: { openai: { api: "chat", options: { baseURL: server.url, apiKey: "sk-test" } } } },
      { plugins: [hooksPlugin({ temperature: 0.3 })] },
    );
    await runPrompt(k.kernel, "hi");
    expect(server.completionRequests[0]!.body.temperature).toBe(0.3);
  });
});

describe("OpenAI-compatible", () => {
  it("defaults Qwen-like models to temperature 0.55 and passes chat.params options under the provider id", async () => {
    await using server = await startScriptedServer({ script: [{ text: "ok" }, { text: "ok" }] });
    const config = {
      model: "local/qwen3-coder",
      provider: { local: { npm: "@ai-sdk/openai-compatible", options: { baseURL: server.url }, models: { "qwen3-coder": {} } } },
    };
    await using k = await testKernel(config, { plugins: [hooksPlugin({ options: { user: "tessera-test" } })] });
    await runPrompt(k.kernel, "hi");
    const body = server.completionRequests[0]!.body;
    expect(body.temperature).toBe(0.55);
    expect(body.user).toBe("tessera-test");
    expect(body.model).toBe("qwen3-coder");
    expect(server.completionRequests[0]!.headers.authorization).toBeUndefined();
  });
});

describe("Google", () => {
  it("cleans tool schemas Gemini rejects, and asks for thought summaries", async () => {
    await using server = await startGeminiServer({ script: [{ text: "ok" }] });
    await using k = await testKernel({
      model: "google/gemini-2.5-pro",
      provider: { google: { options: { baseURL: server.url, apiKey: "g-test" } } },
    });
    await runPrompt(k.kernel, "hi");
    const request = server.completionRequests[0]!;
    expect(request.path).toBe("/v1beta/models/gemini-2.5-pro:streamGenerateContent");
    expect(request.headers["x-goog-api-key"]).toBe("g-test");
    const declaration = request.body.tools[0].functionDeclarations.find((d: any) => d.name === "lookup");
    const schema = JSON.stringify(declaration.parametersJsonSchema);
    expect(schema).not.toContain("$schema");
    expect(schema).not.toContain("additionalProperties");
    expect(declaration.parametersJsonSchema).toMatchObject({ type: "object", properties: { key: { type: "string" } }, required: ["key"] });
    expect(request.body.generationConfig.thinkingConfig).toMatchObject({ includeThoughts: true });
  });
});

describe("transform units", () => {
  it("sanitizes JSON Schema for Gemini", () => {
    expect(
      sanitizeGeminiSchema({
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        additionalProperties: false,
        properties: {
          mode: { type: "integer", enum: [1, 2] },
          empty: { type: "string", enum: [] },
          fixed: { const: "x" },
          list: { type: "array" },
        },
        required: ["mode", "ghost"],
      }),
    ).toEqual({
      type: "object",
      properties: {
        mode: { type: "string", enum: ["1", "2"] },
        empty: { type: "string" },
        fixed: { enum: ["x"] },
        list: { type: "array", items: {} },
      },
      required: ["mode"],
    });
  });

  it("places at most four cache breakpoints and respects existing ones", () => {
    const prompt = [
      { role: "system" as const, content: "a" },
      { role: "user" as const, content: [{ type: "text" as const, text: "1" }], providerOptions: { anthropic: { cacheControl: { type: "ephemeral" } } } },
      { role: "assistant" as const, content: [{ type: "text" as const, text: "2" }] },
      { role: "user" as const, content: [{ type: "text" as const, text: "3" }] },
    ];
    const out = applyAnthropicCache(prompt);
    const marked = out.map((m) => Boolean((m.providerOptions?.anthropic as any)?.cacheControl));
    expect(marked).toEqual([true, true, true, true]);
    expect(prompt[2]!).not.toHaveProperty("providerOptions");
  });

  it("has temperature rules per family", () => {
    expect(temperatureRule("o3", undefined)).toEqual({ supported: false });
    expect(temperatureRule("gpt-5-mini", undefined)).toEqual({ supported: false });
    expect(temperatureRule("gpt-5-chat-latest", undefined)).toEqual({ supported: true });
    expect(temperatureRule("Qwen/Qwen3-Coder-480B", undefined)).toEqual({ supported: true, default: 0.55 });
    expect(temperatureRule("claude-sonnet-4-5", undefined)).toEqual({ supported: true });
    expect(temperatureRule("my-model", false)).toEqual({ supported: false });
  });

  it("marks overflow per provider and classifies bare stream errors", () => {
    const overflow = new APICallError({ message: "prompt is too long: 1 > 0", url: "", requestBodyValues: {}, statusCode: 400 });
    expect((classifyError("anthropic", overflow) as any).isContextOverflow).toBe(true);
    const rateLimit = new APICallError({
      message: "Request too large for gpt-4o: Limit 30000, Requested 50000 tokens. Please reduce the length of the messages",
      url: "",
      requestBodyValues: {},
      statusCode: 429,
    });
    expect(isOverflowError("openai", rateLimit)).toBe(false);
    expect(isOverflowError("google", { message: "The input token count (2000000) exceeds the maximum number of tokens allowed (1048576)." })).toBe(true);
    const bare = classifyError("other", { type: "error", error: { type: "overloaded_error", message: "Overloaded" } });
    expect(APICallError.isInstance(bare)).toBe(true);
    expect(bare).toMatchObject({ statusCode: 529, isRetryable: true, message: "Overloaded" });
    const bad = classifyError("other", { error: { type: "invalid_request_error", message: "bad" } });
    expect(bad).toMatchObject({ isRetryable: false, message: "bad" });
  });
});

describe("error middleware on a stream", () => {
  const stub = (parts: LanguageModelV4StreamPart[]): LanguageModelV4 => ({
    specificationVersion: "v4",
    provider: "stub",
    modelId: "stub",
    supportedUrls: {},
    doGenerate: async () => {
      throw new Error("unused");
    },
    doStream: async () => ({
      stream: new ReadableStream({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      }),
    }),
  });
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 1, text: 1, reasoning: 0 },
  };

  it("turns an interrupted finish into a retryable error, and marks overflow error parts", async () => {
    const interrupted = wrapLanguageModel({
      model: stub([
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "half" },
        { type: "finish", finishReason: { unified: "interrupted", raw: undefined }, usage },
      ]),
      middleware: errorMiddleware("anthropic"),
    });
    const errors: unknown[] = [];
    for await (const part of streamText({ model: interrupted, prompt: "x", onError: () => {} }).stream) {
      if (part.type === "error") errors.push(part.error);
    }
    expect(errors).toHaveLength(1);
    expect(APICallError.isInstance(errors[0])).toBe(true);
    expect(errors[0]).toMatchObject({ isRetryable: true });

    const overflow = wrapLanguageModel({
      model: stub([{ type: "error", error: { type: "error", error: { type: "invalid_request_error", message: "prompt is too long: 300000 tokens > 200000 maximum" } } }]),
      middleware: errorMiddleware("anthropic"),
    });
    const seen: unknown[] = [];
    for await (const part of streamText({ model: overflow, prompt: "x", onError: () => {} }).stream) {
      if (part.type === "error") seen.push(part.error);
    }
    expect(seen[0]).toMatchObject({ name: "ContextOverflowError", isContextOverflow: true });
  });
});
