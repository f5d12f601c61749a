/**
 * The loop's control flow: when a turn ends, an agent's step limit, aborts, subtasks and compaction.
 */
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { APICallError } from "ai";
import { describe, expect, it, onTestFinished } from "vitest";
import { z } from "zod";
import {
  defineTool,
  newId,
  type AssistantMessage,
  type CompactionContext,
  type Kernel,
  type MessageWithParts,
  type PluginDefinition,
  type ToolDefinition,
  type ToolPart,
  type UserMessage,
} from "@tessera/kernel";
import { MAX_STEPS_REMINDER } from "../../src/engine/step.js";
import { gate, mockProvider, scriptedModel, testKernel, testPlugin, waitFor, type ScriptedStep } from "./harness.js";

async function start(script: ScriptedStep[], plugins: PluginDefinition[] = [], options: Parameters<typeof testKernel>[1] = {}) {
  const scripted = scriptedModel(script);
  const test = await testKernel([mockProvider(scripted.model), ...plugins], options);
  onTestFinished(() => test.kernel.dispose());
  const session = test.kernel.sessions.createSession();
  return { ...test, ...scripted, engine: test.kernel.sessions, session };
}

const toolParts = (messages: readonly MessageWithParts[]) => messages.flatMap((m) => m.parts.filter((p): p is ToolPart => p.type === "tool"));
const textOf = (m: MessageWithParts | undefined) => (m?.parts ?? []).map((p) => (p.type === "text" ? p.text : "")).join("");
const sent = (model: { doStreamCalls: Array<{ prompt: unknown }> }, n: number) => JSON.stringify(model.doStreamCalls[n]?.prompt ?? null);
const systemOf = (model: { doStreamCalls: Array<{ prompt: Array<{ role: string; content: unknown }> }> }, n: number) =>
  model.doStreamCalls[n]!.prompt.filter((m) => m.role === "system").map((m) => String(m.content)).join("\n\n");

/** A tool (needing no permission) that answers with its text upper-cased. */
const echo = defineTool({
  id: "echo",
  description: "Echo a text",
  parameters: z.object({ text: z.string() }),
  permission: () => [],
  async execute({ text }) {
    return { title: `echo ${text}`, output: text.toUpperCase() };
  },
});
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const tools = (...list: Array<ToolDefinition<any>>) => testPlugin("test-tools", (ctx) => list.forEach((t) => ctx.tools.register(t)));

/** Every stored tool part has finished, and every assistant message is completed. */
function expectConsistent(messages: readonly MessageWithParts[]) {
  for (const part of toolParts(messages)) expect(["completed", "error"]).toContain(part.state.status);
  for (const { info } of messages) if (info.role === "assistant") expect(info.time.completed).toBeTypeOf("number");
}

describe("when a turn ends", () => {
  it("stops after a step that finished for a reason other than tool calls", async () => {
    const { engine, session, model, remaining } = await start([{ text: "cut off mid", finish: "length" }, { text: "never" }], [tools(echo)]);
    const { assistant } = await engine.prompt({ sessionID: session.id, text: "hi" });
    expect(assistant?.info).toMatchObject({ finish: "length" });
    expect(model.doStreamCalls).toHaveLength(1);
    expect(remaining()).toBe(1);
  });

  it("takes another step after tool calls, and stops at the first plain answer", async () => {
    const { engine, session, model, remaining } = await start(
      [
        { toolCalls: [{ name: "echo", input: { text: "a" } }] },
        { toolCalls: [{ name: "echo", input: { text: "b" } }] },
        { text: "done" },
        { text: "never" },
      ],
      [tools(echo)],
    );
    const { assistant } = await engine.prompt({ sessionID: session.id, text: "hi" });
    expect(model.doStreamCalls).toHaveLength(3);
    expect(remaining()).toBe(1);
    expect(textOf(assistant)).toBe("done");
    expect(engine.store.listMessages(session.id).map((m) => (m.info.role === "assistant" ? m.info.finish : "user"))).toEqual([
      "user",
      "tool-calls",
      "tool-calls",
      "stop",
    ]);
  });
});

describe("an agent's step limit", () => {
  it("sends the last allowed step with tool choice none and the reminder, then stops even if the model wants more", async () => {
    const { engine, session, model, remaining } = await start(
      [{ toolCalls: [{ name: "echo", input: { text: "a" } }] }, { text: "out of steps", finish: "tool-calls" }, { text: "never" }],
      [tools(echo)],
      { config: { agent: { build: { max_steps: 2 } } } },
    );
    await engine.prompt({ sessionID: session.id, text: "hi" });

    expect(model.doStreamCalls).toHaveLength(2);
    expect(remaining()).toBe(1);
    expect(model.doStreamCalls[0]!.toolChoice).toEqual({ type: "auto" });
    expect(systemOf(model, 0)).not.toContain(MAX_STEPS_REMINDER);
    expect(model.doStreamCalls[1]!.toolChoice).toEqual({ type: "none" });
    expect(systemOf(model, 1)).toContain(MAX_STEPS_REMINDER);
    expect(engine.status(session.id)).toEqual({ type: "idle" });
  });
});

describe("aborting", () => {
  /** A step that streams some text and starts a tool call, then hangs until the abort signal fires. */
  function hangingStep(started: { open: () => void }): ScriptedStep {
    return ({ abortSignal }) =>
      new ReadableStream<LanguageModelV4StreamPart>({
        start(controller) {
          controller.enqueue({ type: "stream-start", warnings: [] });
          controller.enqueue({ type: "text-start", id: "t1" });
          controller.enqueue({ type: "text-delta", id: "t1", delta: "partial answer" });
          controller.enqueue({ type: "tool-input-start", id: "call_hang", toolName: "echo" });
          controller.enqueue({ type: "tool-input-delta", id: "call_hang", delta: '{"text":' });
          abortSignal?.addEventListener("abort", () => controller.error(abortSignal.reason), { once: true });
          started.open();
        },
      });
  }

  function expectAborted(engine: Kernel["sessions"], sessionID: string, assistant: MessageWithParts | undefined) {
    expect(assistant?.info).toMatchObject({ role: "assistant", error: { name: "AbortedError" } });
    const messages = engine.store.listMessages(sessionID);
    expectConsistent(messages);
    expect(engine.status(sessionID)).toEqual({ type: "idle" });
  }

  it("mid-stream, through the prompt's signal: the partial text stays, the half-streamed call is an error, the message is aborted", async () => {
    const started = gate();
    const { engine, session, model } = await start([hangingStep(started), { text: "never" }], [tools(echo)]);
    const controller = new AbortController();
    const prompt = engine.prompt({ sessionID: session.id, text: "hi", abort: controller.signal });
    await started.promise;
    await waitFor(() => toolParts(engine.store.listMessages(session.id)).some((p) => p.state.status === "pending"), "the call to start streaming");
    controller.abort();
    const { assistant } = await prompt;

    expectAborted(engine, session.id, assistant);
    const stored = engine.store.getMessage(assistant!.info.id)!;
    expect(textOf(stored)).toBe("partial answer");
    expect(toolParts([stored])).toMatchObject([{ callID: "call_hang", state: { status: "error" } }]);
    expect(model.doStreamCalls).toHaveLength(1);
  });

  it("mid-stream, through engine.abort(sessionID)", async () => {
    const started = gate();
    const { engine, session, model } = await start([hangingStep(started), { text: "never" }], [tools(echo)]);
    const prompt = engine.prompt({ sessionID: session.id, text: "hi" });
    await started.promise;
    expect(engine.status(session.id)).toEqual({ type: "busy" });
    engine.abort(session.id);
    const { assistant } = await prompt;

    expectAborted(engine, session.id, assistant);
    expect(model.doStreamCalls).toHaveLength(1);
  });

  it("while a tool runs: the tool is told to stop, its part is an error and the message is aborted", async () => {
    const running = gate();
    let toolSawAbort = false;
    const wait = defineTool({
      id: "wait",
      description: "Waits until aborted",
      parameters: z.object({}),
      permission: () => [],
      async execute(_args, ctx) {
        running.open();
        await new Promise<void>((resolve) => ctx.abort.addEventListener("abort", () => resolve(), { once: true }));
        toolSawAbort = true;
        throw new Error("stopped");
      },
    });
    const { engine, session, model } = await start([{ toolCalls: [{ name: "wait", input: {} }] }, { text: "never" }], [tools(wait)]);
    const prompt = engine.prompt({ sessionID: session.id, text: "hi" });
    await running.promise;
    // The model's stream is over (the step finished with tool calls); only the tool is still running.
    const finished = () => engine.store.listMessages(session.id).some((m) => m.info.role === "assistant" && m.info.finish === "tool-calls");
    await waitFor(finished, "the step to finish streaming");
    engine.abort(session.id);
    const { assistant } = await prompt;

    expect(toolSawAbort).toBe(true);
    expectAborted(engine, session.id, assistant);
    expect(toolParts(engine.store.listMessages(session.id))).toMatchObject([{ tool: "wait", state: { status: "error", error: "Tool execution aborted" } }]);
    expect(model.doStreamCalls).toHaveLength(1);
  });
});

describe("subtasks", () => {
  it("runs ctx.subtask in a child session where hooks and permissions apply, and hands the child's answer to the parent", async () => {
    const delegate = defineTool({
      id: "delegate",
      description: "Delegates to explore",
      parameters: z.object({ question: z.string() }),
      permission: () => [],
      async execute({ question }, ctx) {
        const result = await ctx.subtask({ agent: "explore", prompt: question, description: "find the loader" });
        return { title: "delegated", output: `explore says: ${result.text}`, metadata: { child: result.sessionID } };
      },
    });
    const read = defineTool({
      id: "read",
      description: "Reads a file",
      parameters: z.object({ path: z.string() }),
      permission: ({ path }) => [{ permission: "read", patterns: [path] }],
      async execute({ path }) {
        return { title: path, output: `contents of ${path}` };
      },
    });
    const before: Array<{ tool: string; sessionID: string }> = [];
    const asked: Array<{ permission: string; patterns: readonly string[]; sessionID: string }> = [];
    const watcher = testPlugin("watcher", (ctx) => {
      ctx.tap("tool.execute.before", (input) => void before.push({ tool: input.tool, sessionID: input.sessionID }));
      ctx.tap("permission.ask", (input, output) => {
        asked.push({ permission: input.permission, patterns: input.patterns, sessionID: input.sessionID });
        output.status = input.patterns.includes(".env") ? "deny" : "allow";
      });
    });
    const { engine, session, model } = await start(
      [
        { toolCalls: [{ name: "delegate", input: { question: "where is the config loader?" } }] },
        { toolCalls: [{ name: "read", input: { path: "src/load.ts" } }, { name: "read", input: { path: ".env" } }] },
        { text: "The loader is in src/load.ts." },
        { text: "Found it." },
      ],
      [tools(delegate, read), watcher],
    );
    const { assistant } = await engine.prompt({ sessionID: session.id, text: "find the config loader" });

    const child = engine.store.listSessions().find((s) => s.parentID === session.id);
    expect(child).toBeDefined();
    expect(sent(model, 1)).toContain("where is the config loader?");
    // The explore agent is offered only the read-only tools that exist.
    expect((model.doStreamCalls[1]!.tools ?? []).map((t) => t.name)).toEqual(["read"]);
    expect(before).toEqual([
      { tool: "delegate", sessionID: session.id },
      { tool: "read", sessionID: child!.id },
      { tool: "read", sessionID: child!.id },
    ]);
    expect(asked).toEqual([
      { permission: "read", patterns: ["src/load.ts"], sessionID: child!.id },
      { permission: "read", patterns: [".env"], sessionID: child!.id },
    ]);
    const childTools = toolParts(engine.store.listMessages(child!.id));
    expect(childTools.map((p) => p.state.status)).toEqual(["completed", "error"]);
    expect(childTools[1]!.state).toMatchObject({ error: expect.stringContaining("Permission denied") });

    const parentTool = toolParts(engine.store.listMessages(session.id))[0]!;
    expect(parentTool.state).toMatchObject({ status: "completed", output: "explore says: The loader is in src/load.ts.", metadata: { child: child!.id } });
    expect(sent(model, 3)).toContain("explore says: The loader is in src/load.ts.");
    expect(textOf(assistant)).toBe("Found it.");
  });

  it("runs a subtask part of the user message as a task tool call before the next model step", async () => {
    let added = false;
    const command = testPlugin("command", (ctx) =>
      ctx.tap("chat.message", (_input, output) => {
        if (added) return;
        added = true;
        output.parts.push({ id: newId("part"), type: "subtask", agent: "explore", prompt: "look for the retry code", description: "find retry" });
      }),
    );
    const { engine, session, model } = await start([{ text: "Retry lives in retry.ts." }, { text: "Thanks, noted." }], [command]);
    const { assistant } = await engine.prompt({ sessionID: session.id, text: "/find-retry" });

    const child = engine.store.listSessions().find((s) => s.parentID === session.id);
    expect(child).toBeDefined();
    expect(sent(model, 0)).toContain("look for the retry code");
    const messages = engine.store.listMessages(session.id);
    expect(messages.map((m) => m.info.role)).toEqual(["user", "assistant", "assistant"]);
    expect(toolParts([messages[1]!])).toMatchObject([
      { tool: "task", state: { status: "completed", input: { agent: "explore", prompt: "look for the retry code" }, output: "Retry lives in retry.ts.", metadata: { sessionID: child!.id } } },
    ]);
    expect(sent(model, 1)).toContain("Retry lives in retry.ts.");
    expect(textOf(assistant)).toBe("Thanks, noted.");
    expect(model.doStreamCalls).toHaveLength(2);
  });
});

describe("compaction", () => {
  const overflow = () =>
    new APICallError({
      message: "This model's maximum context length is 128000 tokens",
      url: "https://api.example.com/v1/chat",
      requestBodyValues: {},
      statusCode: 400,
      responseBody: JSON.stringify({ error: { message: "This model's maximum context length is 128000 tokens", code: "context_length_exceeded" } }),
      isRetryable: false,
    });

  /** A compaction strategy whose `compact` writes what a real one would (via the kernel given later) and records its calls. */
  function strategy(options: { isOverflow?: (ctx: CompactionContext) => boolean } = {}) {
    const calls: CompactionContext[] = [];
    const checks: CompactionContext[] = [];
    let kernel: Kernel | undefined;
    const plugin = testPlugin("compactor", (ctx) =>
      ctx.compactions.register({
        id: "test-compaction",
        ...(options.isOverflow
          ? {
              isOverflow: (c: CompactionContext) => {
                checks.push(c);
                return options.isOverflow!(c);
              },
            }
          : {}),
        async compact(c) {
          calls.push(c);
          summarize(kernel!, c.sessionID);
          return "continue";
        },
      }),
    );
    return { plugin, calls, checks, use: (k: Kernel) => void (kernel = k) };
  }

  /** Stores a small summary answering the last user message, then a user message asking to continue. */
  function summarize(kernel: Kernel, sessionID: string) {
    const store = kernel.sessions.store;
    const user = store
      .listMessages(sessionID)
      .map((m) => m.info)
      .filter((i): i is UserMessage => i.role === "user")
      .at(-1)!;
    const now = Date.now();
    const summary: AssistantMessage = {
      id: newId("message"), sessionID, role: "assistant", parentID: user.id, providerID: user.model.providerID, modelID: user.model.modelID,
      agent: "compaction", time: { created: now, completed: now }, cost: 0, summary: true, finish: "stop",
      tokens: { input: 100, output: 20, reasoning: 0, cache: { read: 0, write: 0 } },
    };
    store.updateMessage(summary);
    store.updatePart({ id: newId("part"), sessionID, messageID: summary.id, type: "text", text: "SUMMARY: the user asked about things." });
    const next: UserMessage = { id: newId("message"), sessionID, role: "user", time: { created: now }, agent: user.agent, model: user.model };
    store.updateMessage(next);
    store.updatePart({ id: newId("part"), sessionID, messageID: next.id, type: "text", text: "Continue from the summary.", synthetic: true });
  }

  it("does nothing before steps when no strategy is registered, however full the context", async () => {
    const { engine, session, model } = await start([{ text: "one", usage: { input: 99_000 } }, { text: "two" }]);
    await engine.prompt({ sessionID: session.id, text: "first" });
    const { assistant } = await engine.prompt({ sessionID: session.id, text: "second" });
    expect(model.doStreamCalls).toHaveLength(2);
    expect(assistant?.info).not.toHaveProperty("error");
    expect(textOf(assistant)).toBe("two");
  });

  it("ends the turn with a ContextOverflowError telling to add a compaction plugin when the model overflows and none is loaded", async () => {
    const { engine, session, model } = await start([{ error: overflow() }, { text: "never" }]);
    const { assistant } = await engine.prompt({ sessionID: session.id, text: "hi" });
    expect(assistant?.info).toMatchObject({ error: { name: "ContextOverflowError", message: expect.stringMatching(/compaction plugin/) } });
    expect(assistant?.info.time).toHaveProperty("completed");
    expect(model.doStreamCalls).toHaveLength(1);
    expect(engine.status(session.id)).toEqual({ type: "idle" });
  });

  it("hands a provider overflow to the registered strategy and continues the turn", async () => {
    const compactor = strategy();
    const { kernel, engine, session, model } = await start([{ error: overflow() }, { text: "answered after compaction" }], [compactor.plugin]);
    compactor.use(kernel);
    await engine.prompt({ sessionID: session.id, text: "hi" });

    expect(compactor.calls).toHaveLength(1);
    expect(compactor.calls[0]).toMatchObject({ sessionID: session.id, reason: "provider-overflow", model: { providerID: "mock", modelID: "mock-model" } });
    expect(model.doStreamCalls).toHaveLength(2);
    const last = engine.store.listMessages(session.id).at(-1);
    expect(last?.info).toMatchObject({ role: "assistant", finish: "stop" });
    expect(textOf(last)).toBe("answered after compaction");
    expect(sent(model, 1)).toContain("SUMMARY: the user asked about things.");
  });

  it("asks the strategy's isOverflow before a step, with the last step's tokens, and compacts first when it says so", async () => {
    let compactedBeforeCall = -1;
    const compactor = strategy({ isOverflow: () => compactor.checks.length === 1 });
    const original = compactor.calls.push.bind(compactor.calls);
    const { kernel, engine, session, model } = await start([{ text: "one", usage: { input: 500, output: 7 } }, { text: "two" }], [compactor.plugin]);
    compactor.calls.push = (...items) => {
      compactedBeforeCall = model.doStreamCalls.length;
      return original(...items);
    };
    compactor.use(kernel);
    await engine.prompt({ sessionID: session.id, text: "first question about zebras" });
    expect(compactor.checks).toHaveLength(0); // nothing had finished yet
    await engine.prompt({ sessionID: session.id, text: "second" });

    expect(compactor.checks[0]).toMatchObject({ reason: "overflow", lastTokens: 507 });
    expect(compactor.calls.map((c) => c.reason)).toEqual(["overflow"]);
    expect(compactedBeforeCall).toBe(1);
    expect(model.doStreamCalls).toHaveLength(2);
    expect(sent(model, 1)).toContain("SUMMARY: the user asked about things.");
    expect(sent(model, 1)).not.toContain("zebras");
  });

  it("without isOverflow, compacts when the last step used more than the context minus the output reserve", async () => {
    // The mock model has a 100k context and a 4k output limit: the line is at 96k tokens.
    const compactor = strategy();
    const { kernel, engine, session, model } = await start(
      [{ text: "fits", usage: { input: 95_000, output: 900 } }, { text: "big", usage: { input: 96_000, output: 100 } }, { text: "after" }],
      [compactor.plugin],
    );
    compactor.use(kernel);
    await engine.prompt({ sessionID: session.id, text: "one" });
    await engine.prompt({ sessionID: session.id, text: "two" });
    expect(compactor.calls).toHaveLength(0);
    await engine.prompt({ sessionID: session.id, text: "three" });

    expect(compactor.calls).toMatchObject([{ reason: "overflow", lastTokens: 96_100 }]);
    expect(model.doStreamCalls).toHaveLength(3);
  });
});
