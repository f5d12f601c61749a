/**
 * SessionEngine.prompt: how a prompt becomes a stored user message (text, attachments, @mentions,
 * `chat.message`), `noReply`, prompts to a busy session, and which model answers.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { describe, expect, it, onTestFinished } from "vitest";
import { newId, type MessageWithParts, type Part, type PluginDefinition, type TextPart } from "@tessera/kernel";
import { gate, instrumentedModel, mockProvider, scriptedModel, testKernel, testPlugin, waitFor, type ScriptedStep } from "./harness.js";

async function start(script: ScriptedStep[], plugins: PluginDefinition[] = [], options: Parameters<typeof testKernel>[1] = {}) {
  const scripted = scriptedModel(script);
  const test = await testKernel([mockProvider(scripted.model), ...plugins], options);
  onTestFinished(() => test.kernel.dispose());
  const session = test.kernel.sessions.createSession();
  return { ...test, ...scripted, engine: test.kernel.sessions, session };
}

const texts = (parts: readonly Part[]) => parts.filter((p): p is TextPart => p.type === "text");
const answerText = (m: MessageWithParts | undefined) => texts(m?.parts ?? []).map((p) => p.text).join("");
/** Everything the model was sent in its `n`th call, as JSON (to look for text in it). */
const sent = (model: { doStreamCalls: Array<{ prompt: unknown }> }, n = 0) => JSON.stringify(model.doStreamCalls[n]?.prompt ?? null);

describe("the user message", () => {
  it("holds the text, a text file as a file part plus its contents, and an image as a data URL", async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);
    const { engine, session, model, dir } = await start([{ text: "Noted." }], [], {
      setup: (dir) => {
        writeFileSync(join(dir, "notes.txt"), "remember the milk");
        writeFileSync(join(dir, "pic.png"), png);
      },
    });
    const { user, assistant } = await engine.prompt({ sessionID: session.id, text: "look at these", files: [{ path: "notes.txt" }, { path: "pic.png" }] });

    expect(user.parts).toMatchObject([
      { type: "text", text: "look at these" },
      { type: "file", mediaType: "text/plain", url: pathToFileURL(join(dir, "notes.txt")).href, filename: "notes.txt" },
      { type: "text", synthetic: true, text: "Contents of notes.txt:\nremember the milk" },
      { type: "file", mediaType: "image/png", url: `data:image/png;base64,${png.toString("base64")}`, filename: "pic.png" },
    ]);
    expect(engine.store.getMessage(user.info.id)?.parts).toEqual(user.parts);
    expect(assistant?.info).not.toHaveProperty("error");
    const prompt = sent(model);
    expect(prompt).toContain("remember the milk");
    expect(prompt).toContain('"mediaType":"image/png"');
  });

  it("turns @path into a synthetic read: a file part pointing at the mention, then the file's contents", async () => {
    const { engine, session, model, dir } = await start([{ text: "Looks fine." }], [], {
      setup: (dir) => {
        mkdirSync(join(dir, "src"));
        writeFileSync(join(dir, "src", "app.ts"), "export const answer = 42;\n");
      },
    });
    const text = "please review @src/app.ts, thanks";
    const { user, assistant } = await engine.prompt({ sessionID: session.id, text });

    const start_ = text.indexOf("@src/app.ts");
    expect(user.parts).toMatchObject([
      { type: "text", text },
      {
        type: "file",
        mediaType: "text/plain",
        filename: "src/app.ts",
        url: pathToFileURL(join(dir, "src", "app.ts")).href,
        source: { type: "file", path: join(dir, "src", "app.ts"), text: { value: "@src/app.ts", start: start_, end: start_ + "@src/app.ts".length } },
      },
      { type: "text", synthetic: true, text: "Contents of src/app.ts:\nexport const answer = 42;\n" },
    ]);
    // The model reads the contents and gets an answer out (the local file URL itself is not sent).
    expect(assistant?.info).not.toHaveProperty("error");
    expect(answerText(assistant)).toBe("Looks fine.");
    expect(sent(model)).toContain("export const answer = 42;");
  });

  it("turns @dir/ into a listing of the directory", async () => {
    const { engine, session, model } = await start([{ text: "ok" }], [], {
      setup: (dir) => {
        mkdirSync(join(dir, "src", "lib"), { recursive: true });
        writeFileSync(join(dir, "src", "b.ts"), "");
        writeFileSync(join(dir, "src", "a.ts"), "");
      },
    });
    const { user, assistant } = await engine.prompt({ sessionID: session.id, text: "what is in @src/" });

    expect(user.parts.find((p) => p.type === "file")).toMatchObject({ mediaType: "application/x-directory", filename: "src" });
    expect(texts(user.parts).find((p) => p.synthetic)?.text).toBe("Listing of src/:\na.ts\nb.ts\nlib/");
    expect(assistant?.info).not.toHaveProperty("error");
    expect(sent(model)).toContain("Listing of src/:");
  });

  it("leaves @name as plain text when no such file or agent exists (and ignores e-mail addresses)", async () => {
    const { engine, session } = await start([{ text: "ok" }]);
    const text = "ask @foo or write to me@example.com";
    const { user } = await engine.prompt({ sessionID: session.id, text });
    expect(user.parts).toHaveLength(1);
    expect(user.parts[0]).toMatchObject({ type: "text", text });
  });

  it("turns @explore into an agent part and a hint to delegate with the task tool", async () => {
    const { engine, session, model } = await start([{ text: "ok" }]);
    const text = "@explore find the config loader; not @build or @title";
    const { user } = await engine.prompt({ sessionID: session.id, text });

    expect(user.parts.filter((p) => p.type === "agent")).toMatchObject([{ type: "agent", name: "explore", source: { value: "@explore", start: 0, end: 8 } }]);
    const hint = texts(user.parts).find((p) => p.synthetic);
    expect(hint?.text).toMatch(/task tool/);
    expect(hint?.text).toContain('"explore"');
    // Primary and hidden agents are not subagents to delegate to.
    expect(user.parts).toHaveLength(3);
    expect(sent(model)).toContain("call the task tool");
  });

  it("caps a big file at 50 KB and says it was truncated", async () => {
    const body = "x".repeat(60 * 1024) + "THE-END";
    const { engine, session, model } = await start([{ text: "ok" }], [], { setup: (dir) => writeFileSync(join(dir, "big.log"), body) });
    const { user } = await engine.prompt({ sessionID: session.id, text: "see @big.log" });

    const read = texts(user.parts).find((p) => p.synthetic)!.text;
    expect(read.startsWith("Contents of big.log:\n")).toBe(true);
    expect(read).toContain("truncated at 51200 bytes");
    expect(read).not.toContain("THE-END");
    expect(read.length).toBeLessThan(51_200 + 200);
    expect(sent(model).length).toBeLessThan(60 * 1024);
  });

  it("caps a directory listing at 200 entries and says how many more there are", async () => {
    const { engine, session } = await start([{ text: "ok" }], [], {
      setup: (dir) => {
        mkdirSync(join(dir, "many"));
        for (let i = 0; i < 205; i++) writeFileSync(join(dir, "many", `f${String(i).padStart(3, "0")}.txt`), "");
      },
    });
    const { user } = await engine.prompt({ sessionID: session.id, text: "list @many/" });
    const listing = texts(user.parts).find((p) => p.synthetic)!.text.split("\n");
    expect(listing[0]).toBe("Listing of many/:");
    expect(listing).toContain("f199.txt");
    expect(listing).not.toContain("f200.txt");
    expect(listing.at(-1)).toBe("… and 5 more");
  });
});

describe("chat.message", () => {
  it("lets a plugin see the session, agent and model, and add or change parts before they are stored", async () => {
    const seen: unknown[] = [];
    const editor = testPlugin("editor", (ctx) =>
      ctx.tap("chat.message", (input, output) => {
        seen.push({ ...input });
        const first = output.parts[0] as unknown as { text: string };
        first.text = `${first.text} (edited)`;
        output.parts.push({ id: newId("part"), type: "text", text: "a note from the editor plugin", synthetic: true });
      }),
    );
    const { engine, session, model } = await start([{ text: "ok" }], [editor]);
    const { user } = await engine.prompt({ sessionID: session.id, text: "hello" });

    expect(seen).toEqual([{ sessionID: session.id, agent: "build", model: { providerID: "mock", modelID: "mock-model" } }]);
    const stored = engine.store.getMessage(user.info.id)!;
    expect(texts(stored.parts).map((p) => p.text)).toEqual(["hello (edited)", "a note from the editor plugin"]);
    expect(stored.parts.every((p) => p.sessionID === session.id && p.messageID === user.info.id)).toBe(true);
    expect(sent(model)).toContain("hello (edited)");
    expect(sent(model)).toContain("a note from the editor plugin");
  });

  it("fails the prompt with the plugin's name when a tap throws, and stores nothing", async () => {
    const grumpy = testPlugin("grumpy", (ctx) =>
      ctx.tap("chat.message", () => {
        throw new Error("messages are forbidden today");
      }),
    );
    const { engine, session, model } = await start([{ text: "ok" }], [grumpy]);
    await expect(engine.prompt({ sessionID: session.id, text: "hello" })).rejects.toThrow(/grumpy/);
    expect(engine.store.listMessages(session.id)).toEqual([]);
    expect(model.doStreamCalls).toHaveLength(0);
  });
});

describe("prompting", () => {
  it("stores a noReply message without calling the model", async () => {
    const { engine, session, model } = await start([{ text: "should not be said" }]);
    const result = await engine.prompt({ sessionID: session.id, text: "just so you know", noReply: true });
    expect(result.assistant).toBeUndefined();
    expect(engine.store.listMessages(session.id).map((m) => m.info.role)).toEqual(["user"]);
    expect(model.doStreamCalls).toHaveLength(0);
    expect(engine.status(session.id)).toEqual({ type: "idle" });
  });

  it("queues a prompt sent to a busy session: stored at once, answered after the running step, never two steps at once", async () => {
    const release = gate();
    const firstCalled = gate();
    const slowAnswer = async (): Promise<ReadableStream<LanguageModelV4StreamPart>> => {
      firstCalled.open();
      await release.promise;
      return scriptedStream("answer A");
    };
    const instrumented = instrumentedModel([slowAnswer, { text: "answer B" }]);
    const test = await testKernel([mockProvider(instrumented.model)]);
    onTestFinished(() => test.kernel.dispose());
    const engine = test.kernel.sessions;
    const session = engine.createSession();

    const a = engine.prompt({ sessionID: session.id, text: "question A" });
    await firstCalled.promise;
    expect(engine.status(session.id)).toEqual({ type: "busy" });
    const b = engine.prompt({ sessionID: session.id, text: "question B" });
    const users = () => engine.store.listMessages(session.id).filter((m) => m.info.role === "user");
    await waitFor(() => users().length === 2, "the second prompt to be stored");
    expect(instrumented.model.doStreamCalls).toHaveLength(1);

    release.open();
    const [ra, rb] = await Promise.all([a, b]);
    expect(instrumented.maxConcurrent()).toBe(1);
    expect(instrumented.model.doStreamCalls).toHaveLength(2);
    expect(ra.assistant?.info).toMatchObject({ parentID: ra.user.info.id });
    expect(answerText(ra.assistant)).toBe("answer A");
    expect(rb.assistant?.info).toMatchObject({ parentID: rb.user.info.id });
    expect(answerText(rb.assistant)).toBe("answer B");
    // B's step saw A's exchange first.
    const second = sent(instrumented.model, 1);
    expect(second.indexOf("question A")).toBeLessThan(second.indexOf("answer A"));
    expect(second.indexOf("answer A")).toBeLessThan(second.indexOf("question B"));
    expect(engine.status(session.id)).toEqual({ type: "idle" });
  });
});

describe("model resolution", () => {
  const modelOf = (m: MessageWithParts | undefined) => (m?.info.role === "assistant" ? `${m.info.providerID}/${m.info.modelID}` : undefined);

  it("uses the model given with the prompt over the agent's and the config's", async () => {
    const { engine, session } = await start([{ text: "ok" }], [], {
      config: { model: "mock/config-model", agent: { build: { model: "mock/agent-model" } } },
    });
    const { user, assistant } = await engine.prompt({ sessionID: session.id, text: "hi", model: "mock/explicit" });
    expect(user.info).toMatchObject({ model: { providerID: "mock", modelID: "explicit" } });
    expect(modelOf(assistant)).toBe("mock/explicit");
  });

  it("uses the agent's model over the config's", async () => {
    const { engine, session } = await start([{ text: "ok" }], [], {
      config: { model: "mock/config-model", agent: { build: { model: "mock/agent-model" } } },
    });
    const { assistant } = await engine.prompt({ sessionID: session.id, text: "hi" });
    expect(modelOf(assistant)).toBe("mock/agent-model");
  });

  it("uses the config's model when neither the prompt nor the agent names one", async () => {
    const { engine, session } = await start([{ text: "ok" }], [], { config: { model: "mock/config-model" } });
    const { assistant } = await engine.prompt({ sessionID: session.id, text: "hi" });
    expect(modelOf(assistant)).toBe("mock/config-model");
  });

  it("keeps the session's previous model when nothing else names one", async () => {
    const { engine, session } = await start([{ text: "one" }, { text: "two" }], [], { config: { model: undefined } });
    await engine.prompt({ sessionID: session.id, text: "first", model: "mock/picked-earlier" });
    const { assistant } = await engine.prompt({ sessionID: session.id, text: "second" });
    expect(modelOf(assistant)).toBe("mock/picked-earlier");
  });

  it("fails clearly, storing nothing, when no model is configured anywhere", async () => {
    const { engine, session, model } = await start([{ text: "ok" }], [], { config: { model: undefined } });
    await expect(engine.prompt({ sessionID: session.id, text: "hi" })).rejects.toThrow(/no model is configured.*"model"/);
    expect(engine.store.listMessages(session.id)).toEqual([]);
    expect(model.doStreamCalls).toHaveLength(0);
  });

  it("answers with an error naming the registered providers when the provider is unknown", async () => {
    const { engine, session, model } = await start([{ text: "ok" }]);
    const { assistant } = await engine.prompt({ sessionID: session.id, text: "hi", model: "nope/some-model" });
    expect(assistant?.info).toMatchObject({ role: "assistant", error: { message: expect.stringMatching(/no provider "nope".*registered: mock/) } });
    expect(assistant?.info.time).toHaveProperty("completed");
    expect(model.doStreamCalls).toHaveLength(0);
    expect(engine.status(session.id)).toEqual({ type: "idle" });
  });

  it("fails clearly, naming the known agents, when the agent is unknown", async () => {
    const { engine, session } = await start([{ text: "ok" }]);
    await expect(engine.prompt({ sessionID: session.id, text: "hi", agent: "wizard" })).rejects.toThrow(/no agent "wizard".*build/);
    expect(engine.store.listMessages(session.id)).toEqual([]);
  });
});

/** A finished text answer as a raw stream. */
function scriptedStream(text: string): ReadableStream<LanguageModelV4StreamPart> {
  const parts: LanguageModelV4StreamPart[] = [
    { type: "stream-start", warnings: [] },
    { type: "text-start", id: "t1" },
    { type: "text-delta", id: "t1", delta: text },
    { type: "text-end", id: "t1" },
    {
      type: "finish",
      finishReason: { unified: "stop", raw: undefined },
      usage: { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } },
    },
  ];
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
}
