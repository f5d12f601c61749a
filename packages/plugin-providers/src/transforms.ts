/**
 * Provider-specific transforms, as AI SDK language-model middleware (`wrapLanguageModel`). They
 * run inside the model call, after the kernel's `chat.params` / `chat.headers` hooks, and only
 * fill in what those left unset: a plugin's explicit choice always wins.
 */
import type {
  JSONSchema7,
  LanguageModelV4CallOptions,
  LanguageModelV4Message,
  LanguageModelV4StreamPart,
  SharedV4ProviderOptions,
} from "@ai-sdk/provider";
import { APICallError } from "@ai-sdk/provider";
import type { LanguageModelMiddleware } from "ai";
import type { ProviderKind } from "./builtins.js";

type JsonObject = Record<string, unknown>;

// ─────────────────────────── provider options ───────────────────────────

/**
 * The kernel sends `chat.params` → `options` as `providerOptions[<provider id>]`. The SDK package
 * reads its own namespace ("openai", "anthropic", "google", …), so the options are moved there,
 * on top of the model's config defaults (`provider.<id>.models.<model>.options`).
 */
export function providerOptionsMiddleware(input: {
  providerID: string;
  namespace: string;
  defaults?: JsonObject | undefined;
}): LanguageModelMiddleware {
  return {
    specificationVersion: "v4",
    transformParams: async ({ params }) => {
      const all: SharedV4ProviderOptions = { ...params.providerOptions };
      const fromHooks = (all[input.providerID] ?? {}) as JsonObject;
      const merged = deepMerge(deepMerge(input.defaults ?? {}, (all[input.namespace] ?? {}) as JsonObject), fromHooks);
      if (Object.keys(merged).length > 0) all[input.namespace] = merged as SharedV4ProviderOptions[string];
      return { ...params, providerOptions: all };
    },
  };
}

// ─────────────────────────── temperature ───────────────────────────

export interface TemperatureRule {
  /** False: the model rejects a temperature, so it is not sent. */
  readonly supported: boolean;
  /** Sent when nothing (agent, config, `chat.params`) chose one. */
  readonly default?: number;
}

/**
 * Per family: OpenAI reasoning models (o-series, gpt-5 except the chat variants) reject
 * `temperature`; Qwen-like models (qwen, qwq) default to 0.55; everything else keeps the
 * provider's default. A catalog/config `temperature: false` marks any model as rejecting it.
 */
export function temperatureRule(modelID: string, declared: boolean | undefined): TemperatureRule {
  const id = modelID.toLowerCase().split("/").pop() ?? "";
  if (declared === false) return { supported: false };
  if (declared === undefined && /^(o\d|gpt-5)/.test(id) && !id.includes("chat")) return { supported: false };
  if (/qwen|qwq/.test(id)) return { supported: true, default: 0.55 };
  return { supported: true };
}

export function temperatureMiddleware(rule: TemperatureRule): LanguageModelMiddleware {
  return {
    specificationVersion: "v4",
    transformParams: async ({ params }) => {
      if (!rule.supported) {
        if (params.temperature === undefined) return params;
        const { temperature: _dropped, ...rest } = params;
        return rest;
      }
      if (params.temperature === undefined && rule.default !== undefined) return { ...params, temperature: rule.default };
      return params;
    },
  };
}

// ─────────────────────────── reasoning ───────────────────────────

export type ReasoningEffort = "none" | "minimal" | "low" | "medium" | "high" | "xhigh" | "max";

export interface ReasoningConfig {
  /** Config `reasoning_effort`. */
  readonly effort?: ReasoningEffort | undefined;
  /** Config `thinking_budget` (tokens): Anthropic extended thinking, Gemini thinking budget. */
  readonly budget?: number | undefined;
  /** The model's output limit; Anthropic counts the thinking budget in it. */
  readonly outputLimit?: number | undefined;
}

/**
 * Reasoning options, for models that reason, from config (and only what the hooks left unset):
 * - OpenAI and OpenAI-compatible: `reasoningEffort` from `reasoning_effort`;
 * - Anthropic: `thinking: { type: "enabled", budgetTokens }` from `thinking_budget`, else the SDK's
 *   own mapping of `reasoning_effort` (thinking budget or adaptive effort, per model);
 * - Google: `thinkingConfig.thinkingBudget` from `thinking_budget`, the SDK's mapping of
 *   `reasoning_effort`, and `includeThoughts: true` so that thought summaries stream.
 */
export function reasoningMiddleware(kind: ProviderKind, namespace: string, config: ReasoningConfig): LanguageModelMiddleware {
  return {
    specificationVersion: "v4",
    transformParams: async ({ params }) => {
      const all: SharedV4ProviderOptions = { ...params.providerOptions };
      const own: JsonObject = { ...((all[namespace] ?? {}) as JsonObject) };
      let reasoning = params.reasoning;
      let maxOutputTokens = params.maxOutputTokens;
      const unset = reasoning === undefined || reasoning === "provider-default";
      if (kind === "openai" || kind === "openai-compatible") {
        if (config.effort && own.reasoningEffort === undefined && unset) own.reasoningEffort = config.effort;
      } else if (kind === "anthropic") {
        if (config.budget && own.thinking === undefined) {
          own.thinking = { type: "enabled", budgetTokens: config.budget };
          // The budget is part of max_tokens: keep budget + answer within the model's output limit.
          if (maxOutputTokens !== undefined && config.outputLimit !== undefined && maxOutputTokens + config.budget > config.outputLimit) {
            maxOutputTokens = Math.max(1, config.outputLimit - config.budget);
          }
        } else if (config.effort && own.thinking === undefined && unset) reasoning = config.effort;
      } else if (kind === "google") {
        const thinking: JsonObject = { ...((own.thinkingConfig ?? {}) as JsonObject) };
        if (config.budget && thinking.thinkingBudget === undefined) thinking.thinkingBudget = config.budget;
        else if (config.effort && thinking.thinkingBudget === undefined && thinking.thinkingLevel === undefined && unset) {
          reasoning = config.effort;
        }
        if (thinking.includeThoughts === undefined && config.effort !== "none") thinking.includeThoughts = true;
        own.thinkingConfig = thinking;
      } else if (config.effort && unset) {
        reasoning = config.effort;
      }
      if (Object.keys(own).length > 0) all[namespace] = own as SharedV4ProviderOptions[string];
      return {
        ...params,
        ...(reasoning !== undefined ? { reasoning } : {}),
        ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
        providerOptions: all,
      };
    },
  };
}

// ─────────────────────────── Anthropic prompt caching ───────────────────────────

const EPHEMERAL = { type: "ephemeral" } as const;

/**
 * Anthropic prompt caching: `cacheControl: { type: "ephemeral" }` on the last system message
 * (which caches the tools and the system prompt) and on the last two other messages (the latest
 * turns), at most 4 breakpoints as the API allows. Messages that already carry a cacheControl
 * are left alone and count against the limit.
 */
export function anthropicCacheMiddleware(): LanguageModelMiddleware {
  return {
    specificationVersion: "v4",
    transformParams: async ({ params }) => ({ ...params, prompt: applyAnthropicCache(params.prompt) }),
  };
}

export function applyAnthropicCache(prompt: LanguageModelV4CallOptions["prompt"]): LanguageModelV4CallOptions["prompt"] {
  const out = prompt.map((message) => ({ ...message }));
  const hasCache = (m: LanguageModelV4Message) =>
    Boolean((m.providerOptions?.anthropic as JsonObject | undefined)?.cacheControl) ||
    Boolean((m.providerOptions?.anthropic as JsonObject | undefined)?.cache_control);
  let budget = 4 - out.filter(hasCache).length;
  const mark = (index: number) => {
    const message = out[index];
    if (!message || budget <= 0 || hasCache(message)) return;
    message.providerOptions = {
      ...message.providerOptions,
      anthropic: { ...(message.providerOptions?.anthropic ?? {}), cacheControl: EPHEMERAL },
    };
    budget--;
  };
  let lastSystem = -1;
  out.forEach((m, i) => {
    if (m.role === "system") lastSystem = i;
  });
  if (lastSystem >= 0) mark(lastSystem);
  const turns = out.flatMap((m, i) => (m.role === "system" ? [] : [i])).slice(-2);
  for (const index of turns) mark(index);
  return out;
}

// ─────────────────────────── tool schemas (Gemini) ───────────────────────────

/** Gemini rejects some JSON Schema: tool schemas are cleaned before the call. */
export function geminiToolSchemaMiddleware(): LanguageModelMiddleware {
  return {
    specificationVersion: "v4",
    transformParams: async ({ params }) => {
      if (!params.tools?.length) return params;
      return {
        ...params,
        tools: params.tools.map((tool) =>
          tool.type === "function" ? { ...tool, inputSchema: sanitizeGeminiSchema(tool.inputSchema) as JSONSchema7 } : tool,
        ),
      };
    },
  };
}

const GEMINI_DROPPED_KEYS = new Set(["$schema", "$id", "$comment", "additionalProperties", "examples", "default", "unevaluatedProperties"]);

/**
 * A copy of a JSON Schema that Gemini accepts: drops `$schema`, `$id`, `$comment`,
 * `additionalProperties`, `unevaluatedProperties`, `examples` and `default`; turns `const` into a
 * one-value `enum`; removes empty `enum`s; makes enum values strings (Gemini only has string
 * enums); keeps only `required` names that are properties; gives arrays without `items` an
 * `items: {}`.
 */
export function sanitizeGeminiSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(sanitizeGeminiSchema);
  if (schema === null || typeof schema !== "object") return schema;
  const input = schema as JsonObject;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(input)) {
    if (GEMINI_DROPPED_KEYS.has(key)) continue;
    if (key === "properties" && value && typeof value === "object" && !Array.isArray(value)) {
      out.properties = Object.fromEntries(Object.entries(value as JsonObject).map(([k, v]) => [k, sanitizeGeminiSchema(v)]));
    } else if (key === "const") {
      if (input.enum === undefined) out.enum = [value];
    } else {
      out[key] = sanitizeGeminiSchema(value);
    }
  }
  if (Array.isArray(out.enum)) {
    if (out.enum.length === 0) delete out.enum;
    else if (out.enum.some((v) => typeof v !== "string")) {
      out.enum = out.enum.filter((v) => v !== null).map((v) => String(v));
      out.type = "string";
    }
  }
  if (Array.isArray(out.required)) {
    const properties = (out.properties ?? {}) as JsonObject;
    out.required = (out.required as unknown[]).filter((name) => typeof name === "string" && name in properties);
    if ((out.required as unknown[]).length === 0) delete out.required;
  }
  if (out.type === "array" && out.items === undefined) out.items = {};
  return out;
}

// ─────────────────────────── errors ───────────────────────────

const OVERFLOW: Record<ProviderKind | "common", RegExp[]> = {
  anthropic: [/prompt is too long/i, /input length and `?max_tokens`? exceed context limit/i, /exceeds? (?:the )?context (?:window|limit)/i],
  openai: [/context_length_exceeded/i, /maximum context length/i, /exceeds the context window/i, /context window of this model/i],
  google: [/exceeds the maximum number of tokens/i, /input token count.*exceeds/i],
  "openai-compatible": [],
  other: [],
  common: [
    /context[_ ]length/i,
    /maximum context length/i,
    /context window/i,
    /prompt is too long/i,
    /too many (?:input )?tokens/i,
    /maximum (?:model|prompt) length/i,
    /reduce the length of the messages/i,
    /exceeds? the available context size/i,
    /num_ctx/i,
    /exceeds the maximum number of tokens/i,
  ],
};

/** Whether an error from `kind`'s API says the prompt does not fit the context window. */
export function isOverflowError(kind: ProviderKind, error: unknown): boolean {
  if (!isObject(error)) return typeof error === "string" && matches(kind, error);
  if (error.isContextOverflow === true || error.name === "ContextOverflowError") return true;
  const status = typeof error.statusCode === "number" ? error.statusCode : undefined;
  if (status === 429) return false; // rate limits speak of tokens per minute
  return matches(kind, haystack(error));
}

function matches(kind: ProviderKind, text: string): boolean {
  return [...OVERFLOW[kind], ...OVERFLOW.common].some((pattern) => pattern.test(text));
}

function haystack(error: JsonObject): string {
  const parts: string[] = [];
  for (const key of ["message", "responseBody", "code", "type"]) {
    const value = error[key];
    if (typeof value === "string" || typeof value === "number") parts.push(String(value));
  }
  if (error.data !== undefined) parts.push(safeJson(error.data));
  const inner = error.error;
  if (isObject(inner)) parts.push(safeJson(inner));
  const cause = error.cause;
  if (isObject(cause) && typeof cause.message === "string") parts.push(cause.message);
  return parts.join("\n");
}

// Error types providers put in stream error events, and what they mean for a retry.
const RETRYABLE_TYPES: Array<[RegExp, number]> = [
  [/overloaded/i, 529],
  [/rate_limit|resource_exhausted|too_many_requests/i, 429],
  [/unavailable/i, 503],
  [/timeout|deadline/i, 408],
  [/server_error|api_error|internal/i, 500],
];

/**
 * Makes an error from the model call say what the session engine should do with it:
 * - a context overflow (per provider patterns) gets `isContextOverflow = true`, so the kernel
 *   compacts instead of failing or retrying;
 * - a bare error object from a stream (`{ type: "overloaded_error", message }`) becomes an
 *   `APICallError` with a status and `isRetryable`, so the kernel retries it when it should;
 * - anything else is left as it is (the kernel already maps HTTP statuses and network failures).
 */
export function classifyError(kind: ProviderKind, error: unknown): unknown {
  if (isOverflowError(kind, error)) {
    // Errors keep their class (the kernel reads status and headers from them); bare payloads
    // become an Error, which the AI SDK passes through as it is.
    if (error instanceof Error && Object.isExtensible(error)) {
      (error as { isContextOverflow?: boolean }).isContextOverflow = true;
      return error;
    }
    return Object.assign(new Error(typeof error === "string" ? error : describe(error)), {
      name: "ContextOverflowError",
      isContextOverflow: true,
      cause: error,
    });
  }
  if (isObject(error) && !(error instanceof Error)) {
    const inner = isObject(error.error) ? error.error : error;
    const label = [inner.type, inner.code, inner.status].filter((v) => typeof v === "string").join(" ");
    const message = typeof inner.message === "string" ? inner.message : describe(error);
    const hit = RETRYABLE_TYPES.find(([pattern]) => pattern.test(label));
    return new APICallError({
      message,
      url: "",
      requestBodyValues: {},
      ...(hit ? { statusCode: hit[1] } : {}),
      isRetryable: hit !== undefined,
      data: error,
    });
  }
  return error;
}

/** A stream that ended without the provider's completion signal (the SDK's `interrupted` finish). */
export function interruptedStreamError(): APICallError {
  return new APICallError({
    message: "The response stream ended before the model finished (connection closed early)",
    url: "",
    requestBodyValues: {},
    isRetryable: true,
  });
}

/**
 * Classifies errors thrown by `doStream`/`doGenerate` and `error` stream parts (see
 * `classifyError`), and turns an `interrupted` finish (the stream ended without the provider's
 * completion signal) into a retryable error, so a half answer is retried instead of kept.
 */
export function errorMiddleware(kind: ProviderKind): LanguageModelMiddleware {
  return {
    specificationVersion: "v4",
    wrapGenerate: async ({ doGenerate }) => {
      try {
        return await doGenerate();
      } catch (error) {
        throw classifyError(kind, error);
      }
    },
    wrapStream: async ({ doStream }) => {
      let result: Awaited<ReturnType<typeof doStream>>;
      try {
        result = await doStream();
      } catch (error) {
        throw classifyError(kind, error);
      }
      let errored = false;
      const stream = result.stream.pipeThrough(
        new TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart>({
          transform(part, controller) {
            if (part.type === "error") {
              errored = true;
              controller.enqueue({ type: "error", error: classifyError(kind, part.error) });
            } else if (part.type === "finish" && part.finishReason.unified === "interrupted" && !errored) {
              controller.enqueue({ type: "error", error: interruptedStreamError() });
            } else {
              controller.enqueue(part);
            }
          },
        }),
      );
      return { ...result, stream };
    },
  };
}

// ─────────────────────────── helpers ───────────────────────────

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null;
}

function isPlainObject(value: unknown): value is JsonObject {
  if (!isObject(value) || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Merges plain objects recursively; `b` wins; arrays and other values are replaced. */
export function deepMerge(a: JsonObject, b: JsonObject): JsonObject {
  const out: JsonObject = { ...a };
  for (const [key, value] of Object.entries(b)) {
    if (value === undefined) continue;
    const current = out[key];
    out[key] = isPlainObject(current) && isPlainObject(value) ? deepMerge(current, value) : value;
  }
  return out;
}

function describe(error: unknown): string {
  if (isObject(error)) {
    const inner = isObject(error.error) ? error.error : error;
    if (typeof inner.message === "string") return inner.message;
  }
  return safeJson(error);
}

function safeJson(value: unknown): string {
  try {
    return typeof value === "string" ? value : JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
