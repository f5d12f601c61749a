import type { Tokens } from "../session/message.js";

/**
 * A model's prices in USD per million tokens, as models.dev publishes them. A missing cache
 * price counts those tokens as free (as OpenCode does): a model without one either does not
 * cache or its provider has not published the discount.
 */
export interface ModelCost {
  input: number;
  output: number;
  cache_read?: number;
  cache_write?: number;
  /** Prices for the whole step once its prompt exceeds 200,000 tokens (Gemini, Claude long context). */
  context_over_200k?: {
    input: number;
    output: number;
    cache_read?: number;
    cache_write?: number;
  };
}

/**
 * The usage of one step as the AI SDK reports it on a `finish-step` part (`LanguageModelUsage`),
 * with every field optional: providers leave any of them out.
 */
export interface StepUsageInput {
  inputTokens?: number | undefined;
  inputTokenDetails?:
    | {
        noCacheTokens?: number | undefined;
        cacheReadTokens?: number | undefined;
        cacheWriteTokens?: number | undefined;
      }
    | undefined;
  outputTokens?: number | undefined;
  outputTokenDetails?:
    | {
        textTokens?: number | undefined;
        reasoningTokens?: number | undefined;
      }
    | undefined;
  totalTokens?: number | undefined;
  raw?: unknown;
}

/** The step's `providerMetadata`, read only for cache writes that the usage itself omits. */
export type StepProviderMetadata = Readonly<Record<string, unknown>> | undefined;

/** Where the long-context price tier starts, in prompt tokens. */
export const LONG_CONTEXT_THRESHOLD = 200_000;

/**
 * The tokens and USD cost of one step.
 *
 * The token fields are disjoint, so they add up to what the provider billed:
 * `input + cache.read + cache.write` is the whole prompt (`input` is the uncached part), and
 * `output + reasoning` is the whole completion (`output` is the visible part). Reasoning tokens
 * are billed at the output price. The long-context tier, when the model has one, prices the
 * entire step once the prompt exceeds 200,000 tokens. Missing or malformed numbers count as 0,
 * so the cost is always a finite number.
 */
export function stepUsage(
  usage: StepUsageInput | undefined,
  cost?: ModelCost,
  providerMetadata?: StepProviderMetadata,
): { tokens: Tokens; cost: number } {
  const details = usage?.inputTokenDetails;
  const read = count(details?.cacheReadTokens);
  const write = count(details?.cacheWriteTokens ?? metadataCacheWrite(providerMetadata));
  // inputTokens is the whole prompt (cached parts included) in AI SDK v5+; noCacheTokens, when
  // given, is the provider's own figure for the uncached part.
  const input =
    typeof details?.noCacheTokens === "number"
      ? count(details.noCacheTokens)
      : Math.max(0, count(usage?.inputTokens) - read - write);

  const reasoning = count(usage?.outputTokenDetails?.reasoningTokens);
  const outputTotal = usage?.outputTokens;
  let output: number;
  if (typeof outputTotal !== "number") output = count(usage?.outputTokenDetails?.textTokens);
  // A total smaller than its reasoning part means this provider reported reasoning separately.
  else output = count(outputTotal) >= reasoning ? count(outputTotal) - reasoning : count(outputTotal);

  const tokens: Tokens = { input, output, reasoning, cache: { read, write } };
  return { tokens, cost: stepCost(tokens, cost) };
}

function stepCost(tokens: Tokens, cost: ModelCost | undefined): number {
  if (!cost) return 0;
  const prompt = tokens.input + tokens.cache.read + tokens.cache.write;
  const long = cost.context_over_200k && prompt > LONG_CONTEXT_THRESHOLD ? cost.context_over_200k : undefined;
  const price = {
    input: count(long?.input ?? cost.input),
    output: count(long?.output ?? cost.output),
    // A tier that omits a cache price keeps the base one.
    read: count(long?.cache_read ?? cost.cache_read),
    write: count(long?.cache_write ?? cost.cache_write),
  };
  const usd =
    (tokens.input * price.input +
      (tokens.output + tokens.reasoning) * price.output +
      tokens.cache.read * price.read +
      tokens.cache.write * price.write) /
    1_000_000;
  return Number.isFinite(usd) ? usd : 0;
}

// Anthropic (and Claude via Vertex) report cache writes as `cacheCreationInputTokens`; Bedrock
// as `usage.cacheWriteInputTokens`. Older providers only put them there.
function metadataCacheWrite(metadata: StepProviderMetadata): number | undefined {
  if (!metadata) return undefined;
  const anthropic = record(metadata["anthropic"]);
  const fromAnthropic = anthropic?.["cacheCreationInputTokens"];
  if (typeof fromAnthropic === "number") return fromAnthropic;
  const bedrockUsage = record(record(metadata["bedrock"])?.["usage"]);
  const fromBedrock = bedrockUsage?.["cacheWriteInputTokens"];
  if (typeof fromBedrock === "number") return fromBedrock;
  return undefined;
}

/** Token counts of several steps, summed. */
export function addTokens(a: Tokens, b: Tokens): Tokens {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    reasoning: a.reasoning + b.reasoning,
    cache: { read: a.cache.read + b.cache.read, write: a.cache.write + b.cache.write },
  };
}

/** All-zero tokens: the starting point for a message that has not finished a step yet. */
export function emptyTokens(): Tokens {
  return { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } };
}

// Token counts and prices alike: anything but a finite positive number is 0, so cost is never NaN.
function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
}
