import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { APICallError } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  defineTool,
  newId,
  type AssistantMessage,
  type Kernel,
  type MessageWithParts,
  type Part,
  type PermissionRequest,
  type ToolPart,
} from "@tessera/kernel";
import { finishPart, mockProvider, rawStream, recordEvents, scriptedModel, testKernel, testPlugin } from "./harness.js";

const echo = defineTool({
  id: "echo",
  description: "Echo a text",
  parameters: z.object({ text: z.string() }),
  permission: () => [],
  async execute({ text }) {
    return { title: `echo ${text}`, output: text.toUpperCase() };
  },
});

const look = defineTool({
  id: "look",
  description: "Look at a path",
  parameters: z.object({ path: z.string() }),
  permission: () => [],
  async execute({ path }) {
    return { title: `look ${path}`, output: `contents of ${path}` };
  },
});

const toolsPlugin = testPlugin("test-tools", (ctx) => {
  ctx.tools.register(echo);
  ctx.tools.register(look);
});

const assistants = (kernel: Kernel, sessionID: string) =>
  kernel.sessions.store.listMessages(sessionID).filter((m) => m.info.role === "assistant");
const info = (m: MessageWithParts | undefined) => m?.info as AssistantMessage;
const partsOf = <T extends Part["type"]>(m: MessageWithParts | undefined, type: T) =>
  (m?.parts ?? []).filter((p): p is Extract<Part, { type: T }> => p.type === type);
const allParts = (kernel: Kernel, sessionID: string) => assistants(kernel, sessionID).flatMap((m) => m.parts);
const toolParts = (kernel: Kernel, sessionID: string) => allParts(kernel, sessionID).filter((p): p is ToolPart => p.type === "tool");

/** The distinct statuses a tool part went through on the bus, in order. */
function statusTrail(events: ReturnType<typeof recordEvents>, callID: string): string[] {
  const trail: string[] = [];
  for (const { part } of events.of("message.part.updated")) {
    if (part.type !== "tool" || part.callID !== callID) continue;
    if (trail.at(-1) !== part.state.status) trail.push(part.state.status);
  }
  return trail;
}

describe("the stream processor", () => {
  describe("text and reasoning", () => {
    it("streams text and reasoning into parts, publishing every delta on the bus and storing their concatenation", async () => {
      const reasoning = "First I consider the question, then I answer it.";
      const text = "Hello there, friend. This answer arrives in many small deltas.";
      const { model } = scriptedModel([{ reasoning, text }]);
      const { kernel } = await testKernel([mockProvider(model)]);
      const events = recordEvents(kernel);
      const session = kernel.sessions.createSession();
      const result = await kernel.sessions.prompt({ sessionID: session.id, text: "hi" });

      const [reasoningPart] = partsOf(result.assistant, "reasoning");
      const [textPart] = partsOf(result.assistant, "text");
      expect(reasoningPart?.text).toBe(reasoning);
      expect(textPart?.text).toBe(text);
      expect(reasoningPart?.time.end).toBeTypeOf("number");
      expect(textPart?.time?.end).toBeTypeOf("number");

      const deltas = (id: string | undefined) =>
        events.of("message.part.updated").filter((e) => e.part.id === id && e.delta !== undefined).map((e) => e.delta as string);
      // The harness streams 4-character chunks: one bus event per chunk.
      expect(deltas(reasoningPart?.id)).toHaveLength(Math.ceil(reasoning.length / 4));
      expect(deltas(reasoningPart?.id).join("")).toBe(reasoning);
      expect(deltas(textPart?.id)).toHaveLength(Math.ceil(text.length / 4));
      expect(deltas(textPart?.id).join("")).toBe(text);
      // Each delta event carries the part with the text so far.
      const last = events.of("message.part.updated").filter((e) => e.part.id === textPart?.id && e.delta !== undefined).at(-1);
      expect(last?.part.text).toBe(text);
      await kernel.dispose();
    });

    it("lets a text.complete tap rewrite the final stored text once the text has finished streaming", async () => {
      const seen: Array<{ partID: string; text: string }> = [];
      const signer = testPlugin("signer", (ctx) => {
        ctx.tap("text.complete", (input, output) => {
          seen.push({ partID: input.partID, text: output.text });
          output.text = `${output.text} [signed]`;
        });
      });
      const { model } = scriptedModel([{ reasoning: "thinking hard", text: "The answer is 42." }]);
      const { kernel } = await testKernel([mockProvider(model), signer]);
      const session = kernel.sessions.createSession();
      const result = await kernel.sessions.prompt({ sessionID: session.id, text: "hi" });

      const [textPart] = partsOf(result.assistant, "text");
      // Fired once, for the text only (not reasoning), with the complete text.
      expect(seen).toEqual([{ partID: textPart!.id, text: "The answer is 42." }]);
      expect(textPart?.text).toBe("The answer is 42. [signed]");
      expect(kernel.sessions.store.getPart(textPart!.id)).toMatchObject({ text: "The answer is 42. [signed]" });
      expect(partsOf(result.assistant, "reasoning")[0]?.text).toBe("thinking hard");
      await kernel.dispose();
    });

    it("keeps the streamed text and logs a warning when a text.complete tap throws", async () => {
      const broken = testPlugin("broken-rewriter", (ctx) => {
        ctx.tap("text.complete", (_input, output) => {
          output.text = "half-rewritten";
          throw new Error("rewriter exploded");
        });
      });
      const { model } = scriptedModel([{ text: "Kept as streamed." }]);
      const { kernel, logs } = await testKernel([mockProvider(model), broken]);
      const session = kernel.sessions.createSession();
      const result = await kernel.sessions.prompt({ sessionID: session.id, text: "hi" });

      expect(partsOf(result.assistant, "text")[0]?.text).toBe("Kept as streamed.");
      expect(info(result.assistant).error).toBeUndefined();
      const warning = logs.find((r) => r.level === "warn" && r.message.includes("rewriter exploded"));
      expect(warning).toBeDefined();
      expect(JSON.stringify(warning)).toContain("broken-rewriter");
      await kernel.dispose();
    });
  });

  describe("tool parts", () => {
    it("shows a tool call as pending while its input streams, running while it executes, then completed", async () => {
      const { model } = scriptedModel([
        { toolCalls: [{ id: "call_echo", name: "echo", input: { text: "ping" } }] },
        { text: "done" },
      ]);
      const { kernel } = await testKernel([mockProvider(model), toolsPlugin]);
      const events = recordEvents(kernel);
      const session = kernel.sessions.createSession();
      await kernel.sessions.prompt({ sessionID: session.id, text: "echo ping" });

      expect(statusTrail(events, "call_echo")).toEqual(["pending", "running", "completed"]);
      const [part] = toolParts(kernel, session.id);
      expect(part).toMatchObject({ tool: "echo", callID: "call_echo", state: { status: "completed", input: { text: "ping" }, output: "PING" } });
      await kernel.dispose();
    });

    it("ends an invalid tool call (unknown tool) as an error without running anything", async () => {
      const { model } = scriptedModel([
        { toolCalls: [{ id: "call_bad", name: "teleport", input: { to: "mars" } }] },
        { text: "sorry" },
      ]);
      const { kernel } = await testKernel([mockProvider(model), toolsPlugin]);
      const events = recordEvents(kernel);
      const session = kernel.sessions.createSession();
      await kernel.sessions.prompt({ sessionID: session.id, text: "go" });

      expect(statusTrail(events, "call_bad")).toEqual(["pending", "error"]);
      const [part] = toolParts(kernel, session.id);
      expect(part?.state).toMatchObject({ status: "error" });
      expect(part?.state.status === "error" && part.state.error).toContain('Unknown tool "teleport"');
      await kernel.dispose();
    });

    it("stores a provider-executed tool's result as completed without running it through the kernel", async () => {
      const executed: string[] = [];
      const watcher = testPlugin("watcher", (ctx) => {
        ctx.tap("tool.execute.before", (input) => void executed.push(input.tool));
      });
      const { model } = scriptedModel([
        () =>
          rawStream([
            { type: "tool-input-start", id: "srv_1", toolName: "web_search", providerExecuted: true },
            { type: "tool-input-delta", id: "srv_1", delta: '{"query":"tessera"}' },
            { type: "tool-input-end", id: "srv_1" },
            { type: "tool-call", toolCallId: "srv_1", toolName: "web_search", input: '{"query":"tessera"}', providerExecuted: true },
            { type: "tool-result", toolCallId: "srv_1", toolName: "web_search", result: { hits: 3 } },
            { type: "text-start", id: "t" },
            { type: "text-delta", id: "t", delta: "Found 3 hits." },
            { type: "text-end", id: "t" },
            finishPart("stop"),
          ]),
      ]);
      const { kernel } = await testKernel([mockProvider(model), toolsPlugin, watcher]);
      const session = kernel.sessions.createSession();
      const result = await kernel.sessions.prompt({ sessionID: session.id, text: "search" });

      const tools = partsOf(result.assistant, "tool");
      expect(tools).toHaveLength(1);
      const [part] = tools;
      expect(part).toMatchObject({ tool: "web_search", callID: "srv_1", state: { status: "completed", input: { query: "tessera" } } });
      expect(part?.state.status === "completed" && JSON.parse(part.state.output)).toEqual({ hits: 3 });
      expect(executed).toEqual([]);
      expect(partsOf(result.assistant, "text")[0]?.text).toBe("Found 3 hits.");
      await kernel.dispose();
    });
  });

  describe("steps", () => {
    it("fires step.start and step.finish once per step, storing the parts their taps add", async () => {
      const starts: string[] = [];
      const finishes: Array<{ messageID: string; usage: unknown; finishReason: string }> = [];
      const snapshots = testPlugin("snapshots", (ctx) => {
        ctx.tap("step.start", (input) => void starts.push(input.messageID));
        ctx.tap("step.finish", (input, output) => {
          finishes.push({ messageID: input.messageID, usage: input.usage, finishReason: input.finishReason });
          output.parts.push({ id: newId("part"), type: "patch", hash: `hash-${finishes.length}`, files: ["src/a.ts"] });
        });
      });
      const { model } = scriptedModel([
        { toolCalls: [{ name: "echo", input: { text: "x" } }], usage: { input: 100, output: 20 } },
        { text: "done", usage: { input: 150, output: 7, reasoning: 3 } },
      ]);
      const { kernel } = await testKernel([mockProvider(model), toolsPlugin, snapshots]);
      const session = kernel.sessions.createSession();
      await kernel.sessions.prompt({ sessionID: session.id, text: "go" });

      const messages = assistants(kernel, session.id);
      expect(messages).toHaveLength(2);
      expect(starts).toEqual(messages.map((m) => m.info.id));
      expect(finishes).toEqual([
        { messageID: messages[0]!.info.id, usage: { input: 100, output: 20, reasoning: 0, cache: { read: 0, write: 0 } }, finishReason: "tool-calls" },
        { messageID: messages[1]!.info.id, usage: { input: 150, output: 7, reasoning: 3, cache: { read: 0, write: 0 } }, finishReason: "stop" },
      ]);
      for (const [i, m] of messages.entries()) {
        expect(partsOf(m, "step-start")).toHaveLength(1);
        expect(partsOf(m, "step-finish")).toHaveLength(1);
        const patches = partsOf(m, "patch");
        expect(patches).toHaveLength(1);
        expect(patches[0]).toMatchObject({ type: "patch", hash: `hash-${i + 1}`, files: ["src/a.ts"], messageID: m.info.id, sessionID: session.id });
      }
      await kernel.dispose();
    });

    it("drops an invalid part a step tap adds, with a warning, and keeps the step", async () => {
      const sloppy = testPlugin("sloppy", (ctx) => {
        ctx.tap("step.start", (_input, output) => {
          // No id: the kernel assigns one. The first is missing `files` and has a numeric hash.
          output.parts.push({ type: "patch", hash: 42 } as never);
          output.parts.push({ type: "patch", hash: "good", files: [] } as never);
        });
      });
      const { model } = scriptedModel([{ text: "fine" }]);
      const { kernel, logs } = await testKernel([mockProvider(model), sloppy]);
      const session = kernel.sessions.createSession();
      const result = await kernel.sessions.prompt({ sessionID: session.id, text: "go" });

      expect(partsOf(result.assistant, "patch").map((p) => p.hash)).toEqual(["good"]);
      expect(partsOf(result.assistant, "text")[0]?.text).toBe("fine");
      expect(logs.some((r) => r.level === "warn" && r.message.includes("invalid part"))).toBe(true);
      await kernel.dispose();
    });
  });

  describe("usage and cost", () => {
    it("prices each step from the model's cost, cache reads and writes and reasoning included, on the message and its step-finish part", async () => {
      const { model } = scriptedModel([
        { toolCalls: [{ name: "echo", input: { text: "x" } }], usage: { input: 1000, output: 500, reasoning: 200, cacheRead: 2000, cacheWrite: 400 } },
        { text: "done", usage: { input: 3000, output: 100, cacheRead: 10_000 } },
      ]);
      const { kernel } = await testKernel([mockProvider(model), toolsPlugin]);
      const session = kernel.sessions.createSession();
      await kernel.sessions.prompt({ sessionID: session.id, text: "go" });

      const [first, second] = assistants(kernel, session.id);
      // USD per million: input 1, output 2 (reasoning too), cache_read 0.1, cache_write 1.25.
      const cost1 = (1000 * 1 + (500 + 200) * 2 + 2000 * 0.1 + 400 * 1.25) / 1e6;
      const cost2 = (3000 * 1 + 100 * 2 + 10_000 * 0.1) / 1e6;
      expect(info(first).tokens).toEqual({ input: 1000, output: 500, reasoning: 200, cache: { read: 2000, write: 400 } });
      expect(info(first).cost).toBeCloseTo(cost1, 12);
      expect(info(second).tokens).toEqual({ input: 3000, output: 100, reasoning: 0, cache: { read: 10_000, write: 0 } });
      expect(info(second).cost).toBeCloseTo(cost2, 12);
      expect(partsOf(first, "step-finish")[0]).toMatchObject({ reason: "tool-calls", tokens: info(first).tokens });
      expect(partsOf(first, "step-finish")[0]?.cost).toBeCloseTo(cost1, 12);
      expect(partsOf(second, "step-finish")[0]).toMatchObject({ reason: "stop", tokens: info(second).tokens });
      expect(partsOf(second, "step-finish")[0]?.cost).toBeCloseTo(cost2, 12);
      // The turn's total is the sum of its steps.
      const total = assistants(kernel, session.id).reduce((sum, m) => sum + info(m).cost, 0);
      expect(total).toBeCloseTo(cost1 + cost2, 12);
      await kernel.dispose();
    });
  });

  describe("persistence", () => {
    it("stores a 5,000-delta answer with writes bounded by the flush interval, not one per delta", async () => {
      const DELTAS = 5000;
      const { model } = scriptedModel([
        () =>
          new ReadableStream<LanguageModelV4StreamPart>({
            async start(controller) {
              controller.enqueue({ type: "stream-start", warnings: [] });
              controller.enqueue({ type: "text-start", id: "t" });
              for (let i = 0; i < DELTAS; i++) {
                controller.enqueue({ type: "text-delta", id: "t", delta: `${i % 10}.` });
                // Arrive over time, as a real stream does, so the flush timer fires during the stream.
                if (i % 250 === 249) await new Promise((r) => setTimeout(r, 2));
              }
              controller.enqueue({ type: "text-end", id: "t" });
              controller.enqueue(finishPart("stop"));
              controller.close();
            },
          }),
      ]);
      const { kernel } = await testKernel([mockProvider(model)]);
      const store = kernel.sessions.store;
      const appended: string[] = [];
      const updatedText: string[] = [];
      const append = store.appendPartText.bind(store);
      const update = store.updatePart.bind(store);
      store.appendPartText = (partID, delta) => {
        appended.push(delta);
        append(partID, delta);
      };
      store.updatePart = ((part: Part) => {
        if (part.type === "text") updatedText.push(part.id);
        return update(part);
      }) as typeof store.updatePart;
      let deltaEvents = 0;
      kernel.bus.subscribe("message.part.updated", (e) => {
        if ((e.properties as { delta?: string }).delta !== undefined) deltaEvents++;
      });
      const session = kernel.sessions.createSession();
      const started = performance.now();
      const result = await kernel.sessions.prompt({ sessionID: session.id, text: "long" });
      const elapsed = performance.now() - started;

      const expected = Array.from({ length: DELTAS }, (_, i) => `${i % 10}.`).join("");
      const [text] = partsOf(result.assistant, "text");
      expect(text?.text).toBe(expected);
      expect(kernel.sessions.store.getPart(text!.id)).toMatchObject({ text: expected });
      expect(deltaEvents).toBe(DELTAS);
      // At most one append per 5 ms flush interval (plus the final flush), far fewer than the deltas …
      expect(appended.length).toBeGreaterThan(0);
      expect(appended.length).toBeLessThanOrEqual(Math.ceil(elapsed / 5) + 2);
      expect(appended.length).toBeLessThan(DELTAS / 20);
      // … each appending only what is new, so the bytes written are linear in the answer.
      expect(appended.join("").length).toBeLessThanOrEqual(expected.length);
      // The whole part is rewritten only at its start and its end.
      expect(updatedText.filter((id) => id === text!.id).length).toBeLessThanOrEqual(2);
      await kernel.dispose();
    });
  });

  describe("doom loop", () => {
    function doomKernelPlugins(asked: PermissionRequest[], decision: "deny" | "allow") {
      return testPlugin("doom-policy", (ctx) => {
        ctx.tap("permission.ask", (input, output) => {
          asked.push(input);
          if (input.permission === "doom_loop") {
            output.status = decision;
            output.reason = "you are going in circles";
          }
        });
      });
    }

    it("asks doom_loop permission on the third identical call in a row, and a denial reaches the model as a tool error", async () => {
      const asked: PermissionRequest[] = [];
      const same = { name: "look", input: { path: "src/a.ts" } };
      const { model } = scriptedModel([
        { toolCalls: [same] },
        { toolCalls: [same] },
        { toolCalls: [{ id: "call_third", ...same }] },
        { text: "I will stop." },
      ]);
      const { kernel } = await testKernel([mockProvider(model), toolsPlugin, doomKernelPlugins(asked, "deny")]);
      const session = kernel.sessions.createSession();
      await kernel.sessions.prompt({ sessionID: session.id, text: "look" });

      const doom = asked.filter((r) => r.permission === "doom_loop");
      expect(doom).toHaveLength(1);
      expect(doom[0]).toMatchObject({ permission: "doom_loop", patterns: ["look"], metadata: { tool: "look", input: { path: "src/a.ts" } } });
      expect(doom[0]?.tool?.callID).toBe("call_third");
      const parts = toolParts(kernel, session.id);
      expect(parts.map((p) => p.state.status)).toEqual(["completed", "completed", "error"]);
      const error = parts[2]!.state.status === "error" ? parts[2]!.state.error : "";
      expect(error).toContain("doom_loop");
      expect(error).toContain("you are going in circles");
      expect(JSON.stringify(model.doStreamCalls[3]?.prompt)).toContain("you are going in circles");
      await kernel.dispose();
    });

    it("does not ask when the third call differs from the two before it", async () => {
      const asked: PermissionRequest[] = [];
      const { model } = scriptedModel([
        { toolCalls: [{ name: "look", input: { path: "src/a.ts" } }] },
        { toolCalls: [{ name: "look", input: { path: "src/a.ts" } }] },
        { toolCalls: [{ name: "look", input: { path: "src/b.ts" } }] },
        { text: "done" },
      ]);
      const { kernel } = await testKernel([mockProvider(model), toolsPlugin, doomKernelPlugins(asked, "deny")]);
      const session = kernel.sessions.createSession();
      await kernel.sessions.prompt({ sessionID: session.id, text: "look" });

      expect(asked.filter((r) => r.permission === "doom_loop")).toEqual([]);
      expect(toolParts(kernel, session.id).map((p) => p.state.status)).toEqual(["completed", "completed", "completed"]);
      await kernel.dispose();
    });
  });

  describe("cleanup", () => {
    const expectClean = (kernel: Kernel, sessionID: string) => {
      const messages = assistants(kernel, sessionID);
      expect(messages.length).toBeGreaterThan(0);
      for (const m of messages) {
        expect(info(m).time.completed).toBeTypeOf("number");
        for (const p of partsOf(m, "tool")) expect(["completed", "error"]).toContain(p.state.status);
      }
    };

    it("leaves no tool part pending and completes the message when the stream fails with a non-retryable error", async () => {
      const { model } = scriptedModel([
        () =>
          rawStream([
            { type: "tool-input-start", id: "call_cut", toolName: "echo" },
            { type: "tool-input-delta", id: "call_cut", delta: '{"text":"pi' },
            {
              type: "error",
              error: new APICallError({ message: "bad request", url: "http://x", requestBodyValues: {}, statusCode: 400, isRetryable: false }),
            },
          ]),
      ]);
      const { kernel } = await testKernel([mockProvider(model), toolsPlugin]);
      const session = kernel.sessions.createSession();
      const result = await kernel.sessions.prompt({ sessionID: session.id, text: "go" });

      expect(info(result.assistant).error).toMatchObject({ name: "APIError", statusCode: 400 });
      const [part] = partsOf(result.assistant, "tool");
      expect(part?.state.status).toBe("error");
      expectClean(kernel, session.id);
      await kernel.dispose();
    });

    it("leaves no tool part running and completes the message when the user aborts mid-tool", async () => {
      let started!: () => void;
      const running = new Promise<void>((resolve) => (started = resolve));
      const slow = defineTool({
        id: "slow",
        description: "Takes forever",
        parameters: z.object({}),
        permission: () => [],
        execute: (_args, ctx) =>
          new Promise((_resolve, reject) => {
            started();
            ctx.abort.addEventListener("abort", () => reject(new Error("stopped")), { once: true });
          }),
      });
      const { model } = scriptedModel([
        { toolCalls: [{ id: "call_slow", name: "slow", input: {} }, { id: "call_quick", name: "echo", input: { text: "q" } }] },
        { text: "never asked" },
      ]);
      const { kernel } = await testKernel([mockProvider(model), toolsPlugin, testPlugin("slow-tool", (ctx) => ctx.tools.register(slow))]);
      const session = kernel.sessions.createSession();
      const quickDone = new Promise<void>((resolve) =>
        kernel.bus.subscribe("message.part.updated", (e) => {
          const part = (e.properties as { part: Part }).part;
          if (part.type === "tool" && part.callID === "call_quick" && part.state.status === "completed") resolve();
        }),
      );
      // The model has finished streaming the step; only the tool is still running.
      const streamed = new Promise<void>((resolve) =>
        kernel.bus.subscribe("message.part.updated", (e) => {
          if ((e.properties as { part: Part }).part.type === "step-finish") resolve();
        }),
      );
      const prompt = kernel.sessions.prompt({ sessionID: session.id, text: "go" });
      await Promise.all([running, quickDone, streamed]);
      // Let the stream end (its `finish` event) so only the tool is left running.
      await new Promise((resolve) => setTimeout(resolve, 20));
      kernel.sessions.abort(session.id);
      const result = await prompt;

      const tools = partsOf(result.assistant, "tool");
      expect(tools.find((p) => p.callID === "call_slow")?.state).toMatchObject({ status: "error", error: "Tool execution aborted" });
      expect(tools.find((p) => p.callID === "call_quick")?.state.status).toBe("completed");
      expect(info(result.assistant).error?.name).toBe("AbortedError");
      expectClean(kernel, session.id);
      expect(kernel.sessions.status(session.id)).toEqual({ type: "idle" });
      await kernel.dispose();
    });

    it("leaves no tool part pending when the user aborts while the model is still streaming a call", async () => {
      const { model } = scriptedModel([
        ({ abortSignal }) =>
          new ReadableStream<LanguageModelV4StreamPart>({
            start(controller) {
              controller.enqueue({ type: "stream-start", warnings: [] });
              controller.enqueue({ type: "tool-input-start", id: "call_half", toolName: "echo" });
              controller.enqueue({ type: "tool-input-delta", id: "call_half", delta: '{"te' });
              abortSignal?.addEventListener("abort", () => controller.error(abortSignal.reason), { once: true });
            },
          }),
      ]);
      const { kernel } = await testKernel([mockProvider(model), toolsPlugin]);
      const session = kernel.sessions.createSession();
      const pending = new Promise<void>((resolve) =>
        kernel.bus.subscribe("message.part.updated", (e) => {
          const part = (e.properties as { part: Part }).part;
          if (part.type === "tool" && part.state.status === "pending") resolve();
        }),
      );
      const prompt = kernel.sessions.prompt({ sessionID: session.id, text: "go" });
      await pending;
      kernel.sessions.abort(session.id);
      const result = await prompt;

      expect(partsOf(result.assistant, "tool")[0]?.state).toMatchObject({ status: "error", error: "Tool execution aborted" });
      expect(info(result.assistant).error?.name).toBe("AbortedError");
      expectClean(kernel, session.id);
      await kernel.dispose();
    });
  });
});
