import { jsonSchema, streamText, tool, isStepCount } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedServer, type ScriptedServer } from "../src/index.js";
import { collect, modelFor, partsOfType, readSse } from "./helpers.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const readTool = tool({
  description: "Read a file",
  inputSchema: jsonSchema<{ path: string }>({
    type: "object",
    properties: { path: { type: "string" } },
    required: ["path"],
    additionalProperties: false,
  }),
  execute: async ({ path }) => `contents of ${path}`,
});

describe("tool-call turns", () => {
  it("yields tool-input parts and a parsed tool-call, finish reason tool-calls", async () => {
    server = await startScriptedServer({
      script: [{ text: "Let me read it.", toolCalls: [{ name: "read", arguments: { path: "src/index.ts" } }] }],
    });
    const { parts, thrown } = await collect(
      streamText({ model: modelFor(server), prompt: "read it", tools: { read: readTool }, maxRetries: 0 }),
    );
    expect(thrown).toBeUndefined();

    const [start] = partsOfType(parts, "tool-input-start");
    expect(start).toMatchObject({ id: "call_1", toolName: "read" });
    const deltas = partsOfType(parts, "tool-input-delta");
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((d) => d.delta).join("")).toBe('{"path":"src/index.ts"}');
    expect(partsOfType(parts, "tool-input-end")).toEqual([{ type: "tool-input-end", id: "call_1" }]);

    const [call] = partsOfType(parts, "tool-call");
    expect(call).toMatchObject({ toolCallId: "call_1", toolName: "read", input: { path: "src/index.ts" } });
    const [result] = partsOfType(parts, "tool-result");
    expect(result).toMatchObject({ toolCallId: "call_1", toolName: "read", output: "contents of src/index.ts" });
    expect(partsOfType(parts, "finish-step")[0]).toMatchObject({ finishReason: "tool-calls", rawFinishReason: "tool_calls" });
    expect(partsOfType(parts, "finish")[0]?.finishReason).toBe("tool-calls");
  });

  it("the next request carries the tool result; the system prompt is recorded", async () => {
    server = await startScriptedServer({
      script: [{ toolCalls: [{ name: "read", arguments: { path: "a.txt" }, id: "call_abc" }] }, { text: "It says hi." }],
    });
    const result = streamText({
      model: modelFor(server),
      instructions: "You are Tessera.",
      prompt: "what is in a.txt?",
      tools: { read: readTool },
      stopWhen: isStepCount(2),
      maxRetries: 0,
    });
    const { parts } = await collect(result);
    expect(partsOfType(parts, "finish-step").map((p) => p.finishReason)).toEqual(["tool-calls", "stop"]);
    expect(await result.text).toBe("It says hi.");

    expect(server.completionRequests).toHaveLength(2);
    const [first, second] = server.completionRequests;
    expect(first?.body.messages[0]).toEqual({ role: "system", content: "You are Tessera." });
    expect(first?.body.tools[0]).toMatchObject({ type: "function", function: { name: "read" } });
    expect(second?.body.messages.slice(-2)).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call_abc", type: "function", function: { name: "read", arguments: '{"path":"a.txt"}' } }],
      },
      { role: "tool", tool_call_id: "call_abc", content: "contents of a.txt" },
    ]);
  });

  it("streams several tool calls by index, and raw (even malformed) argument strings", async () => {
    server = await startScriptedServer({
      script: [
        {
          toolCalls: [
            { name: "read", arguments: { path: "a" } },
            { name: "read", arguments: '{"path": "b"}' },
          ],
        },
      ],
    });
    const { parts } = await collect(
      streamText({ model: modelFor(server), prompt: "q", tools: { read: readTool }, maxRetries: 0 }),
    );
    expect(partsOfType(parts, "tool-call").map((c) => [c.toolCallId, c.input])).toEqual([
      ["call_1", { path: "a" }],
      ["call_2", { path: "b" }],
    ]);
  });

  it("an invalid arguments string surfaces as an invalid tool call (tool-error)", async () => {
    server = await startScriptedServer({ script: [{ toolCalls: [{ name: "read", arguments: '{"path": ' }] }] });
    const { parts } = await collect(
      streamText({ model: modelFor(server), prompt: "q", tools: { read: readTool }, maxRetries: 0 }),
    );
    const [call] = partsOfType(parts, "tool-call");
    expect(call).toMatchObject({ toolName: "read", invalid: true });
    expect(partsOfType(parts, "tool-error")).toHaveLength(1);
  });

  it("splits tool-call deltas on the wire: header with id/type/name, then argument pieces", async () => {
    server = await startScriptedServer({
      script: [{ toolCalls: [{ name: "read", arguments: { p: "xy" } }], chunkSize: 5 }],
    });
    const response = await fetch(`${server.url}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m", messages: [], stream: true }),
    });
    const chunks = (await readSse(response)).slice(0, -1).map((e) => JSON.parse(e));
    expect(chunks.map((c) => c.choices[0].delta)).toEqual([
      { role: "assistant", content: "" },
      { tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "read", arguments: "" } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"p":' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '"xy"}' } }] },
      {},
    ]);
    expect(chunks.at(-1).choices[0].finish_reason).toBe("tool_calls");
    expect(chunks.every((c) => !("usage" in c))).toBe(true);
  });

  it("a turn factory builds the turn from the request", async () => {
    server = await startScriptedServer({
      script: [
        (request) => {
          const last = request.body.messages.at(-1);
          return { text: `echo: ${last.content}` };
        },
      ],
    });
    const result = streamText({ model: modelFor(server), prompt: "ping", maxRetries: 0 });
    expect(await result.text).toBe("echo: ping");
  });
});
