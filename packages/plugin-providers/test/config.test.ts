// Which providers exist, packages named only in config, keys, unknown models, catalog overrides, listModels.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startScriptedServer } from "@tessera/testing";
import type { AssistantMessage } from "@tessera/kernel";
import { DEMO_MODEL, listModels, loadCatalog, MissingApiKeyError, UnknownModelError } from "../src/index.js";
import { runPrompt, tempProject, testKernel, texts } from "./helpers.js";

const ids = (k: { kernel: { providers: { list(): Array<{ id: string }> } } }) => k.kernel.providers.list().map((p) => p.id).sort();

describe("which providers are registered", () => {
  it("registers only the demo when nothing is configured and no key is set", async () => {
    await using k = await testKernel({});
    expect(ids(k)).toEqual(["demo"]);
  });

  it("registers a built-in whose key variable is set, and every provider in config", async () => {
    await using k = await testKernel(
      { provider: { ollama: {}, mine: { npm: "@ai-sdk/openai-compatible", options: { baseURL: "http://127.0.0.1:9/v1" } } } },
      { env: { OPENAI_API_KEY: "sk-env", GEMINI_API_KEY: "g-env" } },
    );
    expect(ids(k)).toEqual(["demo", "google", "mine", "ollama", "openai"]);
  });

  it("never picks the demo model by itself", async () => {
    await using k = await testKernel({});
    const session = k.kernel.sessions.createSession({ title: "t" });
    await expect(k.kernel.sessions.prompt({ sessionID: session.id, text: "hi" })).rejects.toThrow(/no model is configured/);
    expect(DEMO_MODEL).toBe("demo/offline");
  });
});

describe("provider packages named in config", () => {
  it("loads a package from the project's node_modules and calls its create* factory with the options", async () => {
    const project = tempProject();
    const pkg = join(project.dir, "node_modules", "acme-ai-provider");
    mkdirSync(pkg, { recursive: true });
    writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "acme-ai-provider", type: "module", exports: { ".": { import: "./index.js" } } }));
    writeFileSync(
      join(pkg, "index.js"),
      `
export function createAcme(options = {}) {
  globalThis.__acmeOptions = options;
  const languageModel = (modelId) => ({
    specificationVersion: "v4",
    provider: "acme",
    modelId,
    supportedUrls: {},
    async doGenerate() { throw new Error("not used"); },
    async doStream(call) {
      globalThis.__acmeCall = call;
      const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 4, text: 4, reasoning: 0 } };
      const parts = [
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "Hello from " },
        { type: "text-delta", id: "t", delta: modelId },
        { type: "text-end", id: "t" },
        { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
      ];
      return { stream: new ReadableStream({ start(c) { for (const p of parts) c.enqueue(p); c.close(); } }) };
    },
  });
  const provider = (id) => languageModel(id);
  provider.languageModel = languageModel;
  return provider;
}
export const acme = createAcme();
`,
    );
    await using k = await testKernel(
      {
        model: "acme/acme-1",
        provider: {
          acme: {
            npm: "acme-ai-provider",
            options: { region: "eu", apiKey: "acme-key" },
            models: { "acme-1": { name: "Acme One", cost: { input: 1, output: 2 }, limit: { context: 1000, output: 100 } } },
          },
        },
      },
      { project },
    );
    const { assistants } = await runPrompt(k.kernel, "hi");
    expect(texts(assistants[0])).toEqual(["Hello from acme-1"]);
    expect((globalThis as any).__acmeOptions).toEqual({ region: "eu", apiKey: "acme-key" });
    // chat.params options go to the namespace named after the package ("acme").
    expect((globalThis as any).__acmeCall.providerOptions).toHaveProperty("acme");
    expect((assistants[0]!.info as AssistantMessage).cost).toBeCloseTo((10 * 1 + 4 * 2) / 1e6, 12);
  });

  it("uses a bundled package named in config under any provider id", async () => {
    await using server = await startScriptedServer({ script: [{ text: "compatible!" }] });
    await using k = await testKernel({
      model: "acme/whatever",
      provider: { acme: { npm: "@ai-sdk/openai-compatible", options: { baseURL: server.url, apiKey: "" } } },
    });
    const { assistants } = await runPrompt(k.kernel, "hi");
    expect(texts(assistants[0])).toEqual(["compatible!"]);
    expect(server.completionRequests[0]!.body.model).toBe("whatever");
  });

  it("says where it looked when the package is missing", async () => {
    await using k = await testKernel({ provider: { ghost: { npm: "ghost-ai-provider" } } });
    await expect(Promise.resolve(k.kernel.providers.get("ghost")!.languageModel("m"))).rejects.toThrow(
      /Provider "ghost": cannot load "ghost-ai-provider": cannot find package "ghost-ai-provider".*npm install -D ghost-ai-provider/,
    );
  });
});

describe("keys and model ids", () => {
  it("a missing key names the variable and the config key", async () => {
    await using k = await testKernel({ model: "anthropic/claude-sonnet-4-5", provider: { anthropic: {} } });
    const provider = k.kernel.providers.get("anthropic")!;
    const error = await Promise.resolve()
      .then(() => provider.languageModel("claude-sonnet-4-5"))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MissingApiKeyError);
    expect((error as Error).message).toContain("ANTHROPIC_API_KEY");
    expect((error as Error).message).toContain("provider.anthropic.options.apiKey");
    // The session shows the same message.
    const { assistants } = await runPrompt(k.kernel, "hi");
    expect((assistants[0]!.info as AssistantMessage).error?.message).toMatch(/ANTHROPIC_API_KEY.*provider\.anthropic\.options\.apiKey/);
  });

  it("an unknown model suggests close names", async () => {
    await using k = await testKernel({}, { env: { ANTHROPIC_API_KEY: "k", OPENAI_API_KEY: "k" } });
    const error = await Promise.resolve()
      .then(() => k.kernel.providers.get("anthropic")!.languageModel("claude-sonet-4.5"))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnknownModelError);
    expect((error as Error).message).toContain('Did you mean "anthropic/claude-sonnet-4-5"');
    const gpt = await Promise.resolve()
      .then(() => k.kernel.providers.get("openai")!.languageModel("gpt5-mini"))
      .catch((e: unknown) => e);
    expect((gpt as UnknownModelError).suggestions[0]).toBe("gpt-5-mini");
    // Dated snapshots of a known model are accepted and share its facts.
    expect(k.kernel.providers.get("openai")!.model!("gpt-4.1-2025-04-14")?.cost?.input).toBe(2);
    await expect(Promise.resolve(k.kernel.providers.get("openai")!.languageModel("gpt-4.1-2025-04-14"))).resolves.toBeTruthy();
  });

  it("config overrides the catalog field by field and adds models", async () => {
    await using k = await testKernel(
      {
        provider: {
          openai: {
            options: { apiKey: "sk" },
            models: {
              "gpt-4.1": { cost: { input: 10, output: 8 }, limit: { context: 500000, output: 32768 } },
              "my-finetune": { name: "Fine-tuned", limit: { context: 1000, output: 100 }, cost: { input: 3, output: 4 }, tool_call: false },
            },
          },
        },
      },
    );
    const openai = k.kernel.providers.get("openai")!;
    const catalog = loadCatalog().providers.openai!.models["gpt-4.1"]!;
    expect(openai.model!("gpt-4.1")).toEqual({
      id: "gpt-4.1",
      name: catalog.name,
      limit: { context: 500000, output: 32768 },
      cost: { input: 10, output: 8, cache_read: 0.5 },
      toolCall: true,
      reasoning: false,
      attachment: true,
    });
    expect(openai.model!("my-finetune")).toMatchObject({ name: "Fine-tuned", toolCall: false });
    expect(openai.models!().map((m) => m.id)).toContain("my-finetune");
  });
});

describe("listModels", () => {
  it("lists the models of usable providers with limits, costs and capabilities", async () => {
    await using k = await testKernel(
      { provider: { anthropic: {}, local: { options: { baseURL: "http://127.0.0.1:9/v1" }, models: { "qwen3": { name: "Qwen 3" } } } } },
      { env: { OPENAI_API_KEY: "sk" } },
    );
    const rows = listModels(k.kernel);
    const providers = [...new Set(rows.map((r) => r.providerID))];
    expect(providers).toEqual(["demo", "local", "openai"]); // anthropic has no key
    expect(rows.find((r) => r.ref === "openai/gpt-5")).toEqual({
      providerID: "openai",
      providerName: "OpenAI",
      modelID: "gpt-5",
      ref: "openai/gpt-5",
      name: "GPT-5",
      limit: { context: 400000, output: 128000 },
      cost: { input: 1.25, output: 10, cache_read: 0.125 },
      capabilities: { toolCall: true, reasoning: true, attachment: true },
      usable: true,
    });
    expect(rows.find((r) => r.ref === "local/qwen3")).toMatchObject({ name: "Qwen 3", capabilities: {} });
    const all = listModels(k.kernel, { includeUnusable: true, includeDemo: false });
    expect(all.find((r) => r.providerID === "anthropic")).toMatchObject({ usable: false, problem: expect.stringContaining("ANTHROPIC_API_KEY") });
    expect(all.some((r) => r.providerID === "demo")).toBe(false);
  });

  it("the catalog records its version, date and a source per provider", () => {
    const catalog = loadCatalog();
    expect(catalog.version).toBe(1);
    expect(catalog.updated).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    for (const provider of Object.values(catalog.providers)) expect(provider.source).toMatch(/^https:\/\//);
  });
});
