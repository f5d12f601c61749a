// End to end over real HTTP: the kernel's session engine → AI SDK → @ai-sdk/openai-compatible →
// fetch → the scripted Chat Completions server of @tessera/testing on 127.0.0.1.
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { startScriptedServer, type ScriptEntry, type Turn } from "@tessera/testing";
import {
  ABORTED_TOOL_ERROR,
  MessagePartUpdated,
  SessionStatusChanged,
  type MessageWithParts,
  type RetryPart,
  type SessionStatus,
  type TextPart,
} from "@tessera/kernel";
import { e2eKernel, hasUnfinishedTool, NOTES, tempProject, toolParts, waitFor } from "./helpers.js";

const texts = (m: MessageWithParts | undefined) =>
  (m?.parts ?? []).filter((p): p is TextPart => p.type === "text").map((p) => p.text);
const retries = (m: MessageWithParts | undefined) => (m?.parts ?? []).filter((p): p is RetryPart => p.type === "retry");

/** Wraps turns so the server records when each request arrived. */
function timed(turns: Turn[]): { script: ScriptEntry[]; arrivals: number[] } {
  const arrivals: number[] = [];
  return {
    arrivals,
    script: turns.map((turn) => () => {
      arrivals.push(performance.now());
      return turn;
    }),
  };
}

/** Every `tool_calls` id in a chat-completions request has exactly one `tool` message answering it. */
function toolCallsAnswered(messages: Array<Record<string, any>>): boolean {
  const calls = messages.flatMap((m) => (m.role === "assistant" ? (m.tool_calls ?? []).map((c: { id: string }) => c.id) : []));
  const answers = messages.filter((m) => m.role === "tool").map((m) => m.tool_call_id);
  return calls.length === answers.length && calls.every((id: string) => answers.filter((a) => a === id).length === 1);
}

describe("the session engine over real HTTP (openai-compatible → scripted server)", () => {
  it("runs a tool the model calls, sends the result back, and stores the whole turn", async () => {
    await using server = await startScriptedServer({
      script: [
        { text: "Let me look.", toolCalls: [{ name: "read_note", arguments: { name: "todo" } }], usage: { input: 50, output: 10 } },
        { text: "Your todo note says: buy milk; call Ada.", usage: { input: 80, output: 12 } },
      ],
    });
    await using k = await e2eKernel(server);
    const { kernel } = k;
    const session = kernel.sessions.createSession({ title: "e2e tools" });

    const result = await kernel.sessions.prompt({ sessionID: session.id, text: "What is on my todo note?" });

    const messages = kernel.sessions.store.listMessages(session.id);
    expect(messages.map((m) => m.info.role)).toEqual(["user", "assistant", "assistant"]);
    const [, first, second] = messages;
    expect(first!.info).toMatchObject({ role: "assistant", finish: "tool-calls", providerID: "mock", modelID: "scripted-model" });
    expect(first!.info.role === "assistant" && first!.info.error).toBeFalsy();
    expect(first!.parts.map((p) => p.type)).toEqual(["step-start", "text", "tool", "step-finish"]);
    expect(texts(first)).toEqual(["Let me look."]);
    expect(toolParts(first)).toEqual([
      expect.objectContaining({
        callID: "call_1",
        tool: "read_note",
        state: expect.objectContaining({ status: "completed", input: { name: "todo" }, output: NOTES.todo, title: "note todo" }),
      }),
    ]);
    // Usage came through the include_usage chunk.
    expect(first!.info).toMatchObject({ tokens: { input: 50, output: 10 } });
    expect(second!.info).toMatchObject({ finish: "stop", tokens: { input: 80, output: 12 } });
    expect(second!.info.role === "assistant" && second!.info.time.completed).toBeTruthy();
    expect(texts(second)).toEqual(["Your todo note says: buy milk; call Ada."]);
    expect(result.assistant?.info.id).toBe(second!.info.id);

    // What went over the wire.
    expect(server.completionRequests).toHaveLength(2);
    expect(server.remaining).toBe(0);
    const [req1, req2] = server.completionRequests;
    expect(req1!.headers.authorization).toBe("Bearer test-key");
    expect(req1!.body).toMatchObject({ model: "scripted-model", stream: true, stream_options: { include_usage: true }, max_tokens: 4_000 });
    expect(req1!.body.tools.map((t: { function: { name: string } }) => t.function.name)).toContain("read_note");
    expect(req1!.body.messages[0].role).toBe("system");
    expect(req1!.body.messages.at(-1)).toEqual({ role: "user", content: "What is on my todo note?" });
    const sent = req2!.body.messages as Array<Record<string, any>>;
    expect(sent.slice(-2)).toEqual([
      {
        role: "assistant",
        content: "Let me look.",
        tool_calls: [{ id: "call_1", type: "function", function: { name: "read_note", arguments: JSON.stringify({ name: "todo" }) } }],
      },
      { role: "tool", tool_call_id: "call_1", content: NOTES.todo },
    ]);
    expect(kernel.sessions.status(session.id)).toEqual({ type: "idle" });
  });

  it("waits as long as a 429's retry-after-ms / retry-after asks (real backoff), then succeeds", async () => {
    const { script, arrivals } = timed([
      { status: 429, headers: { "retry-after-ms": "30" } },
      { status: 429, headers: { "retry-after": "1" } },
      { text: "Finally through." },
    ]);
    await using server = await startScriptedServer({ script });
    await using k = await e2eKernel(server); // no retryDelay override: the kernel's own backoff
    const { kernel } = k;
    const session = kernel.sessions.createSession({ title: "e2e 429" });
    const statuses: SessionStatus[] = [];
    kernel.bus.subscribe(SessionStatusChanged, (e) => {
      if (e.properties.sessionID === session.id) statuses.push(e.properties.status);
    });

    const result = await kernel.sessions.prompt({ sessionID: session.id, text: "hello" });

    expect(arrivals).toHaveLength(3);
    const [gap1, gap2] = [arrivals[1]! - arrivals[0]!, arrivals[2]! - arrivals[1]!];
    // retry-after-ms: 30 → ≥ 30 ms, and far below the 2 s default backoff of a first retry.
    expect(gap1).toBeGreaterThanOrEqual(28);
    expect(gap1).toBeLessThan(1_000);
    // retry-after: 1 (seconds) → ≥ 1 s, below the 4 s default backoff of a second retry.
    expect(gap2).toBeGreaterThanOrEqual(995);
    expect(gap2).toBeLessThan(2_000);

    const assistant = result.assistant;
    expect(assistant?.info).toMatchObject({ finish: "stop" });
    expect(assistant?.info.role === "assistant" && assistant.info.error).toBeFalsy();
    expect(texts(assistant)).toEqual(["Finally through."]);
    expect(retries(assistant).map((p) => [p.attempt, p.error])).toEqual([
      [1, expect.objectContaining({ name: "APIError", statusCode: 429, retryable: true })],
      [2, expect.objectContaining({ name: "APIError", statusCode: 429, retryable: true })],
    ]);
    const retryStatuses = statuses.filter((s) => s.type === "retry");
    expect(retryStatuses).toEqual([
      expect.objectContaining({ type: "retry", attempt: 1, message: "Rate limited" }),
      expect.objectContaining({ type: "retry", attempt: 2, message: "Rate limited" }),
    ]);
    expect(statuses.at(-1)).toEqual({ type: "idle" });
    expect(kernel.sessions.store.listMessages(session.id)).toHaveLength(2);
  });

  it("retries a 500 and then answers", async () => {
    await using server = await startScriptedServer({
      script: [{ status: 500, error: { message: "upstream exploded" } }, { text: "Recovered fine." }],
    });
    const attempts: number[] = [];
    await using k = await e2eKernel(server, {
      retryDelay: (attempt) => {
        attempts.push(attempt);
        return 10;
      },
    });
    const { kernel } = k;
    const session = kernel.sessions.createSession({ title: "e2e 500" });

    const result = await kernel.sessions.prompt({ sessionID: session.id, text: "hello" });

    expect(server.completionRequests).toHaveLength(2);
    expect(attempts).toEqual([1]);
    expect(texts(result.assistant)).toEqual(["Recovered fine."]);
    expect(result.assistant?.info).toMatchObject({ finish: "stop" });
    expect(result.assistant?.info.role === "assistant" && result.assistant.info.error).toBeFalsy();
    expect(retries(result.assistant)).toEqual([
      expect.objectContaining({
        attempt: 1,
        error: expect.objectContaining({ name: "APIError", statusCode: 500, retryable: true, message: expect.stringContaining("upstream exploded") }),
      }),
    ]);
    // The retried request is the same request.
    expect(server.completionRequests[1]!.body.messages).toEqual(server.completionRequests[0]!.body.messages);
  });

  it("retries a stream cut in the middle of a tool call's arguments; one completed tool part, nothing pending", async () => {
    // Events: role, 3 text pieces ("Checking." in 4-char chunks), the tool-call header, then the
    // 16 characters of arguments in 4 pieces. Cut after the 2nd argument piece.
    const call = { name: "read_note", arguments: { name: "ideas" } };
    await using server = await startScriptedServer({
      script: [
        { text: "Checking.", toolCalls: [call], cutAfterChunks: 1 + 3 + 1 + 2 },
        { text: "Checking.", toolCalls: [call] },
        { text: "Your idea: a plugin-first kernel." },
      ],
    });
    await using k = await e2eKernel(server, { retryDelay: () => 10 });
    const { kernel } = k;
    const session = kernel.sessions.createSession({ title: "e2e cut" });
    let sawPending = false;
    kernel.bus.subscribe(MessagePartUpdated, (e) => {
      const part = e.properties.part;
      if (part.type === "tool" && part.state.status === "pending") sawPending = true;
    });

    const result = await kernel.sessions.prompt({ sessionID: session.id, text: "read my ideas note" });

    expect(sawPending).toBe(true); // the first attempt did get into the tool call
    expect(server.completionRequests).toHaveLength(3);
    const messages = kernel.sessions.store.listMessages(session.id);
    expect(messages.map((m) => m.info.role)).toEqual(["user", "assistant", "assistant"]);
    const withTool = messages[1]!;
    expect(withTool.info).toMatchObject({ finish: "tool-calls" });
    expect(withTool.info.role === "assistant" && withTool.info.error).toBeFalsy();
    const tools = toolParts(withTool);
    expect(tools).toHaveLength(1);
    expect(tools[0]!.state).toMatchObject({ status: "completed", input: { name: "ideas" }, output: NOTES.ideas });
    expect(tools[0]!.callID).toBe("call_2"); // the retried stream's call, not the cut one's
    expect(hasUnfinishedTool(messages)).toBe(false);
    expect(messages.flatMap(toolParts)).toHaveLength(1);
    // The half-streamed text of the cut attempt was dropped, not doubled.
    expect(texts(withTool)).toEqual(["Checking."]);
    expect(retries(withTool)).toEqual([
      expect.objectContaining({ attempt: 1, error: expect.objectContaining({ name: "APIError", retryable: true }) }),
    ]);
    expect(texts(result.assistant)).toEqual(["Your idea: a plugin-first kernel."]);
    // The model got exactly one call and its one result.
    const sent = server.completionRequests[2]!.body.messages as Array<Record<string, any>>;
    expect(toolCallsAnswered(sent)).toBe(true);
    expect(sent.filter((m) => m.role === "tool")).toEqual([{ role: "tool", tool_call_id: "call_2", content: NOTES.ideas }]);
  });

  it("aborts a hung stream promptly, leaves a consistent store, and can be prompted again", async () => {
    // Role, 3 text pieces ("I will wait."), the tool-call header, 1 argument piece, then silence.
    await using server = await startScriptedServer({
      script: [
        { text: "I will wait.", toolCalls: [{ name: "read_note", arguments: { name: "todo" } }], hang: true, afterChunks: 1 + 3 + 1 + 1 },
      ],
    });
    await using k = await e2eKernel(server, { retryDelay: () => 10 });
    const { kernel } = k;
    const session = kernel.sessions.createSession({ title: "e2e abort" });
    let pendingTool = false;
    kernel.bus.subscribe(MessagePartUpdated, (e) => {
      const part = e.properties.part;
      if (part.type === "tool" && part.state.status === "pending") pendingTool = true;
    });
    const statuses: SessionStatus[] = [];
    kernel.bus.subscribe(SessionStatusChanged, (e) => {
      if (e.properties.sessionID === session.id) statuses.push(e.properties.status);
    });

    const controller = new AbortController();
    const prompted = kernel.sessions.prompt({ sessionID: session.id, text: "read my todo", abort: controller.signal });
    await waitFor(() => pendingTool, 5_000, "the tool call to start streaming");
    expect(kernel.sessions.status(session.id)).toEqual({ type: "busy" });
    const abortedAt = performance.now();
    controller.abort();
    const result = await prompted;
    expect(performance.now() - abortedAt).toBeLessThan(1_000);

    const info = result.assistant?.info;
    expect(info?.role).toBe("assistant");
    if (info?.role !== "assistant") throw new Error("unreachable");
    expect(info.error).toMatchObject({ name: "AbortedError" });
    expect(info.time.completed).toBeGreaterThan(0);
    expect(server.completionRequests).toHaveLength(1); // an abort is not retried
    const messages = kernel.sessions.store.listMessages(session.id);
    expect(hasUnfinishedTool(messages)).toBe(false);
    expect(toolParts(result.assistant).map((p) => p.state)).toEqual([
      expect.objectContaining({ status: "error", error: "Tool execution aborted" }),
    ]);
    expect(texts(result.assistant)).toEqual(["I will wait."]);
    expect(kernel.sessions.status(session.id)).toEqual({ type: "idle" });
    expect(statuses.at(-1)).toEqual({ type: "idle" });

    server.push({ text: "Back again." });
    const again = await kernel.sessions.prompt({ sessionID: session.id, text: "never mind, say hi" });
    expect(again.assistant?.info).toMatchObject({ finish: "stop" });
    expect(again.assistant?.info.role === "assistant" && again.assistant.info.error).toBeFalsy();
    expect(texts(again.assistant)).toEqual(["Back again."]);
    // The aborted turn went to the model consistently: the call is answered with its error.
    const sent = server.completionRequests[1]!.body.messages as Array<Record<string, any>>;
    expect(toolCallsAnswered(sent)).toBe(true);
    expect(sent.find((m) => m.role === "tool")).toMatchObject({ content: "Tool execution aborted" });
    expect(sent.at(-1)).toEqual({ role: "user", content: "never mind, say hi" });
    expect(kernel.sessions.status(session.id)).toEqual({ type: "idle" });
  });

  it("aborts while waiting out a long retry-after, without waiting for it", async () => {
    await using server = await startScriptedServer({ script: [{ status: 429, headers: { "retry-after": "30" } }] });
    await using k = await e2eKernel(server); // the real backoff: 30 s from the header
    const { kernel } = k;
    const session = kernel.sessions.createSession({ title: "e2e abort retry" });
    const controller = new AbortController();
    const prompted = kernel.sessions.prompt({ sessionID: session.id, text: "hello", abort: controller.signal });
    await waitFor(() => kernel.sessions.status(session.id).type === "retry", 5_000, "the retry status");
    expect(kernel.sessions.status(session.id)).toMatchObject({ type: "retry", attempt: 1, message: "Rate limited" });
    const abortedAt = performance.now();
    controller.abort();
    const result = await prompted;
    expect(performance.now() - abortedAt).toBeLessThan(1_000);
    expect(result.assistant?.info).toMatchObject({ error: { name: "AbortedError" } });
    expect(result.assistant?.info.role === "assistant" && result.assistant.info.time.completed).toBeGreaterThan(0);
    expect(server.completionRequests).toHaveLength(1);
    expect(kernel.sessions.status(session.id)).toEqual({ type: "idle" });
  });

  it("aborts a tool that is running after the stream ended: the tool and the message say aborted", async () => {
    await using server = await startScriptedServer({ script: [{ toolCalls: [{ name: "wait_forever", arguments: {} }] }] });
    await using k = await e2eKernel(server);
    const { kernel } = k;
    const session = kernel.sessions.createSession({ title: "e2e abort tool" });
    let running = false;
    kernel.bus.subscribe(MessagePartUpdated, (e) => {
      const part = e.properties.part;
      if (part.type === "tool" && part.state.status === "running") running = true;
    });
    const controller = new AbortController();
    const prompted = kernel.sessions.prompt({ sessionID: session.id, text: "wait", abort: controller.signal });
    await waitFor(() => running, 5_000, "the tool to run");
    // Let the model's stream finish (finish-step stored) while the tool still runs.
    await waitFor(() => kernel.sessions.store.listMessages(session.id).some((m) => m.info.role === "assistant" && m.info.finish), 5_000, "finish-step");
    controller.abort();
    const result = await prompted;
    expect(result.assistant?.info).toMatchObject({ finish: "tool-calls", error: { name: "AbortedError" } });
    expect(toolParts(result.assistant).map((p) => p.state)).toEqual([
      expect.objectContaining({ status: "error", error: "Tool execution aborted" }),
    ]);
    expect(hasUnfinishedTool(kernel.sessions.store.listMessages(session.id))).toBe(false);
    expect(server.completionRequests).toHaveLength(1); // the loop did not go on to another step
    expect(kernel.sessions.status(session.id)).toEqual({ type: "idle" });
  });

  it("hands a tool call with broken JSON arguments back to the model as a tool error, then answers", async () => {
    await using server = await startScriptedServer({
      script: [{ toolCalls: [{ name: "read_note", arguments: '{"name": "todo"' }] }, { text: "Sorry, let me not." }],
    });
    await using k = await e2eKernel(server);
    const { kernel } = k;
    const session = kernel.sessions.createSession({ title: "e2e broken json" });
    const result = await kernel.sessions.prompt({ sessionID: session.id, text: "read todo" });
    const messages = kernel.sessions.store.listMessages(session.id);
    expect(messages.map((m) => m.info.role)).toEqual(["user", "assistant", "assistant"]);
    const [part] = toolParts(messages[1]);
    expect(part?.state).toMatchObject({ status: "error" });
    expect(hasUnfinishedTool(messages)).toBe(false);
    expect(texts(result.assistant)).toEqual(["Sorry, let me not."]);
    const sent = server.completionRequests[1]!.body.messages as Array<Record<string, any>>;
    expect(toolCallsAnswered(sent)).toBe(true);
    expect(sent.find((m) => m.role === "tool")?.content).toBe(part?.state.status === "error" ? part.state.error : "");
  });

  it("stops on a provider's context-length error when no compaction plugin is loaded (no retry)", async () => {
    await using server = await startScriptedServer({
      script: [
        {
          status: 400,
          error: { message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.", code: "context_length_exceeded" },
        },
      ],
    });
    await using k = await e2eKernel(server, { retryDelay: () => 10 });
    const { kernel } = k;
    const session = kernel.sessions.createSession({ title: "e2e overflow" });
    const result = await kernel.sessions.prompt({ sessionID: session.id, text: "a very long prompt" });
    expect(server.completionRequests).toHaveLength(1);
    expect(result.assistant?.info).toMatchObject({ error: { name: "ContextOverflowError" } });
    expect(result.assistant?.info.role === "assistant" && result.assistant.info.time.completed).toBeGreaterThan(0);
    expect(kernel.sessions.status(session.id)).toEqual({ type: "idle" });
  });

  it("recovers a tool part left running by a killed process, and the session continues", async () => {
    const project = tempProject();
    const storePath = join(project.root, "tessera.db");
    try {
      await using server = await startScriptedServer({ script: [{ text: "Waiting…", toolCalls: [{ name: "wait_forever", arguments: {} }] }] });

      // 1. A child process runs the turn until the tool is running, then dies by SIGKILL.
      const childScript = fileURLToPath(new URL("./crash-child.mjs", import.meta.url));
      const child = spawn(process.execPath, [childScript, JSON.stringify({ url: server.url, storePath, dir: project.dir, env: project.env })], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on("exit", (code, signal) => resolve(signal ?? code)));
      const sessionID = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the child never ran the tool; stderr:\n${stderr}`)), 10_000);
        createInterface({ input: child.stdout }).on("line", (line) => {
          const match = /^RUNNING (\S+)$/.exec(line);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        });
        void exited.then((how) => reject(new Error(`the child exited (${how}) before the tool ran; stderr:\n${stderr}`)));
      });
      child.kill("SIGKILL");
      expect(await exited).toBe("SIGKILL"); // reaped: its pid is gone, so its store counts as dead

      // What the crash left on disk: a running tool part, an assistant message never completed.
      const raw = new DatabaseSync(storePath, { readOnly: true });
      const rows = raw.prepare("SELECT type, unfinished, data FROM part WHERE session_id = ? AND type = 'tool'").all(sessionID);
      const leftover = raw.prepare("SELECT data FROM message WHERE session_id = ? AND role = 'assistant'").all(sessionID);
      raw.close();
      expect(rows.map((r) => [r["unfinished"], JSON.parse(String(r["data"])).state.status])).toEqual([[1, "running"]]);
      expect(leftover.map((r) => JSON.parse(String(r["data"])).time.completed)).toEqual([undefined]);

      // 2. A new kernel on the same database recovers it.
      server.push({ text: "The wait was interrupted; moving on." });
      await using k = await e2eKernel(server, { storePath, project });
      const { kernel } = k;
      expect(kernel.sessions.store.recoveredOnOpen).toBe(2); // the tool part and the assistant message
      const messages = kernel.sessions.store.listMessages(sessionID);
      expect(messages.map((m) => m.info.role)).toEqual(["user", "assistant"]);
      const assistant = messages[1]!;
      expect(assistant.info.role === "assistant" && assistant.info.time.completed).toBeGreaterThan(0);
      expect(assistant.info).toMatchObject({ error: { name: "AbortedError", message: "interrupted" } });
      expect(toolParts(assistant).map((p) => p.state)).toEqual([
        expect.objectContaining({ status: "error", error: ABORTED_TOOL_ERROR, input: {} }),
      ]);
      expect(hasUnfinishedTool(messages)).toBe(false);
      expect(kernel.sessions.status(sessionID)).toEqual({ type: "idle" });

      // 3. The session continues.
      const result = await kernel.sessions.prompt({ sessionID, text: "go on" });
      expect(texts(result.assistant)).toEqual(["The wait was interrupted; moving on."]);
      expect(result.assistant?.info).toMatchObject({ finish: "stop" });
      expect(server.completionRequests).toHaveLength(2);
      const sent = server.completionRequests[1]!.body.messages as Array<Record<string, any>>;
      expect(toolCallsAnswered(sent)).toBe(true);
      expect(sent.find((m) => m.role === "tool")).toMatchObject({ tool_call_id: "call_1", content: ABORTED_TOOL_ERROR });
      expect(sent.at(-1)).toEqual({ role: "user", content: "go on" });
    } finally {
      rmSync(project.root, { recursive: true, force: true });
    }
  });
});
