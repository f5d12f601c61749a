import type { LanguageModelUsage } from "ai";
import { describe, expect, it } from "vitest";
import { addTokens, emptyTokens, stepUsage, type ModelCost } from "../../src/engine/usage.js";

function usage(overrides: Partial<LanguageModelUsage>): LanguageModelUsage {
  return {
    inputTokens: undefined,
    inputTokenDetails: { noCacheTokens: undefined, cacheReadTokens: undefined, cacheWriteTokens: undefined },
    outputTokens: undefined,
    outputTokenDetails: { textTokens: undefined, reasoningTokens: undefined },
    totalTokens: undefined,
    ...overrides,
  };
}

// Claude Sonnet-like prices, USD per million tokens.
const sonnet: ModelCost = {
  input: 3,
  output: 15,
  cache_read: 0.3,
  cache_write: 3.75,
  context_over_200k: { input: 6, output: 22.5, cache_read: 0.6, cache_write: 7.5 },
};

describe("stepUsage tokens", () => {
  it("splits OpenAI's cached prompt tokens out of input", () => {
    const { tokens } = stepUsage(
      usage({
        inputTokens: 1000,
        inputTokenDetails: { noCacheTokens: 400, cacheReadTokens: 600, cacheWriteTokens: undefined },
        outputTokens: 50,
      }),
    );
    expect(tokens).toEqual({ input: 400, output: 50, reasoning: 0, cache: { read: 600, write: 0 } });
  });

  it("derives uncached input from the total when the provider gives no noCacheTokens", () => {
    const { tokens } = stepUsage(
      usage({ inputTokens: 1000, inputTokenDetails: { noCacheTokens: undefined, cacheReadTokens: 300, cacheWriteTokens: 200 } }),
    );
    expect(tokens.input).toBe(500);
    expect(tokens.input + tokens.cache.read + tokens.cache.write).toBe(1000);
  });

  it("takes Anthropic's cache writes from provider metadata when usage omits them", () => {
    const { tokens } = stepUsage(
      usage({ inputTokens: 5000, inputTokenDetails: { noCacheTokens: undefined, cacheReadTokens: 0, cacheWriteTokens: undefined } }),
      undefined,
      { anthropic: { cacheCreationInputTokens: 4000, cacheReadInputTokens: 0 } },
    );
    expect(tokens).toMatchObject({ input: 1000, cache: { read: 0, write: 4000 } });
  });

  it("counts reasoning apart from the visible output", () => {
    const { tokens } = stepUsage(
      usage({ outputTokens: 500, outputTokenDetails: { textTokens: 300, reasoningTokens: 200 } }),
    );
    expect(tokens).toMatchObject({ output: 300, reasoning: 200 });
  });

  it("treats missing usage as zero tokens", () => {
    expect(stepUsage(usage({})).tokens).toEqual(emptyTokens());
    expect(stepUsage(undefined).tokens).toEqual(emptyTokens());
  });
});

describe("stepUsage cost", () => {
  it("prices each kind of token per million", () => {
    const { cost } = stepUsage(
      usage({
        inputTokens: 1_000_000 + 2_000_000 + 100_000,
        inputTokenDetails: { noCacheTokens: 100_000, cacheReadTokens: 1_000_000, cacheWriteTokens: 2_000_000 },
        outputTokens: 10_000,
      }),
      { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 },
    );
    // 0.1M × 3 + 0.01M × 15 + 1M × 0.3 + 2M × 3.75
    expect(cost).toBeCloseTo(0.3 + 0.15 + 0.3 + 7.5, 10);
  });

  it("bills reasoning tokens at the output price", () => {
    const { cost } = stepUsage(
      usage({ outputTokens: 1_000_000, outputTokenDetails: { textTokens: 400_000, reasoningTokens: 600_000 } }),
      { input: 1, output: 10 },
    );
    expect(cost).toBeCloseTo(10, 10);
  });

  it("switches to long-context prices once the prompt, cache included, exceeds 200k tokens", () => {
    const prompt = (total: number) =>
      usage({ inputTokens: total, inputTokenDetails: { noCacheTokens: 1000, cacheReadTokens: total - 1000, cacheWriteTokens: 0 } });
    const atLimit = stepUsage(prompt(200_000), sonnet).cost;
    const over = stepUsage(prompt(200_001), sonnet).cost;
    expect(atLimit).toBeCloseTo((1000 * 3 + 199_000 * 0.3) / 1e6, 10);
    expect(over).toBeCloseTo((1000 * 6 + 199_001 * 0.6) / 1e6, 10);
  });

  it("costs nothing without prices, and never NaN with bad numbers", () => {
    expect(stepUsage(usage({ inputTokens: 100, outputTokens: 100 })).cost).toBe(0);
    const { cost } = stepUsage(
      usage({ inputTokens: Number.NaN, outputTokens: 100, inputTokenDetails: { noCacheTokens: undefined, cacheReadTokens: 50, cacheWriteTokens: undefined } }),
      { input: Number.NaN, output: 2 },
    );
    expect(cost).toBeCloseTo(200 / 1e6, 12);
  });

  it("counts cache tokens as free when the model lists no cache price", () => {
    const { cost } = stepUsage(
      usage({ inputTokens: 1_000_000, inputTokenDetails: { noCacheTokens: 0, cacheReadTokens: 1_000_000, cacheWriteTokens: undefined } }),
      { input: 3, output: 15 },
    );
    expect(cost).toBe(0);
  });
});

describe("addTokens", () => {
  it("sums two steps field by field", () => {
    const a = { input: 1, output: 2, reasoning: 3, cache: { read: 4, write: 5 } };
    const b = { input: 10, output: 20, reasoning: 30, cache: { read: 40, write: 50 } };
    expect(addTokens(a, b)).toEqual({ input: 11, output: 22, reasoning: 33, cache: { read: 44, write: 55 } });
  });
});
