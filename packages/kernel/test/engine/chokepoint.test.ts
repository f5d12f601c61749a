import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, type Kernel, type PermissionRequest, type ToolPart } from "@tessera/kernel";
import { mockProvider, scriptedModel, testKernel, testPlugin } from "./harness.js";

const toolParts = (kernel: Kernel, sessionID: string) =>
  kernel.sessions.store
    .listMessages(sessionID)
    .flatMap((m) => m.parts)
    .filter((p): p is ToolPart => p.type === "tool");
const byCall = (kernel: Kernel, sessionID: string, callID: string) => toolParts(kernel, sessionID).find((p) => p.callID === callID);
const errorOf = (part: ToolPart | undefined) => (part?.state.status === "error" ? part.state.error : undefined);
const promptOf = (model: { doStreamCalls: Array<{ prompt: unknown }> }, index: number) => JSON.stringify(model.doStreamCalls[index]?.prompt);

/** A plugin allowing every permission request, recording it. */
const allowAll = (asked: PermissionRequest[]) =>
  testPlugin("allow-all", (ctx) => {
    ctx.tap("permission.ask", (input, output) => {
      asked.push(input);
      output.status = "allow";
    });
  });

function echoPlugin(executed: Array<{ callID: string; text: string }>) {
  return testPlugin("echo-tools", (ctx) => {
    ctx.tools.register(
      defineTool({
        id: "echo",
        description: "Echo a text",
        parameters: z.object({ text: z.string() }),
        permission: () => [],
        async execute({ text }, tctx) {
          executed.push({ callID: tctx.callID, text });
          return { title: `echo ${text}`, output: text.toUpperCase() };
        },
      }),
    );
  });
}

describe("the tool chokepoint", () => {
  it("turns invalid arguments into a tool error the model sees in its next step", async () => {
    const executed: Array<{ callID: string; text: string }> = [];
    const { model } = scriptedModel([
      { toolCalls: [{ id: "call_bad", name: "echo", input: { text: 5 } }] },
      { text: "Let me fix that." },
    ]);
    const { kernel } = await testKernel([mockProvider(model), echoPlugin(executed)]);
    const session = kernel.sessions.createSession();
    const result = await kernel.sessions.prompt({ sessionID: session.id, text: "echo" });

    const error = errorOf(byCall(kernel, session.id, "call_bad"));
    expect(error).toContain('Invalid arguments for tool "echo"');
    expect(error).toContain("text");
    expect(executed).toEqual([]);
    expect(promptOf(model, 1)).toContain("Invalid arguments for tool");
    expect(result.assistant?.info).toMatchObject({ finish: "stop" });
    expect(result.assistant?.info.role === "assistant" && result.assistant.info.error).toBeFalsy();
    await kernel.dispose();
  });

  describe("order", () => {
    function writeKernel(sequence: string[], rewrite: (args: Record<string, unknown>) => void, asked: PermissionRequest[] = []) {
      const write = defineTool({
        id: "write",
        description: "Write a file",
        parameters: z.object({ path: z.string(), content: z.string() }),
        permission: (args) => [{ permission: "edit", patterns: [args.path], metadata: { path: args.path } }],
        async execute(args) {
          sequence.push(`execute:${args.path}`);
          return { title: `Wrote ${args.path}`, output: `${args.content.length} bytes`, metadata: { path: args.path } };
        },
      });
      return testPlugin("ordered", (ctx) => {
        ctx.tools.register(write);
        ctx.tap("tool.execute.before", (input, output) => {
          sequence.push(`before:${input.tool}:${String(output.args.path)}`);
          rewrite(output.args);
        });
        ctx.tap("permission.ask", (input, output) => {
          asked.push(input);
          sequence.push(`ask:${input.permission}:${input.patterns.join(",")}`);
          output.status = "allow";
        });
        ctx.tap("tool.execute.after", (input, output) => {
          sequence.push(`after:${String(input.args.path)}`);
          output.output = `${output.output} (checked)`;
          output.title = `${output.title}!`;
        });
      });
    }

    it("validates, runs tool.execute.before, asks the declared permission, executes, then runs tool.execute.after", async () => {
      const sequence: string[] = [];
      const asked: PermissionRequest[] = [];
      const { model } = scriptedModel([
        { toolCalls: [{ id: "call_w", name: "write", input: { path: "draft.txt", content: "hello" } }] },
        { text: "written" },
      ]);
      const plugin = writeKernel(sequence, (args) => (args.path = "final.txt"), asked);
      const { kernel } = await testKernel([mockProvider(model), plugin]);
      const session = kernel.sessions.createSession();
      await kernel.sessions.prompt({ sessionID: session.id, text: "write" });

      expect(sequence).toEqual(["before:write:draft.txt", "ask:edit:final.txt", "execute:final.txt", "after:final.txt"]);
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatchObject({
        permission: "edit",
        patterns: ["final.txt"],
        metadata: { path: "final.txt" },
        sessionID: session.id,
        tool: { callID: "call_w" },
      });
      expect(byCall(kernel, session.id, "call_w")?.state).toMatchObject({
        status: "completed",
        title: "Wrote final.txt!",
        output: "5 bytes (checked)",
        metadata: { path: "final.txt" },
      });
      expect(promptOf(model, 1)).toContain("5 bytes (checked)");
      await kernel.dispose();
    });

    it("re-validates arguments rewritten by tool.execute.before, and stops an invalid rewrite before permission and execution", async () => {
      const sequence: string[] = [];
      const { model } = scriptedModel([
        { toolCalls: [{ id: "call_w", name: "write", input: { path: "draft.txt", content: "hello" } }] },
        { text: "hmm" },
      ]);
      const plugin = writeKernel(sequence, (args) => (args.path = 42));
      const { kernel } = await testKernel([mockProvider(model), plugin]);
      const session = kernel.sessions.createSession();
      await kernel.sessions.prompt({ sessionID: session.id, text: "write" });

      expect(sequence).toEqual(["before:write:draft.txt"]);
      expect(errorOf(byCall(kernel, session.id, "call_w"))).toContain('Invalid arguments for tool "write"');
      await kernel.dispose();
    });

    it('asks a tool without permission() as { permission: <tool id>, patterns: ["*"] }', async () => {
      const asked: PermissionRequest[] = [];
      let ran = 0;
      const fetchTool = testPlugin("third-party", (ctx) => {
        ctx.tools.register(
          defineTool({
            id: "fetch_page",
            description: "Fetch a page",
            parameters: z.object({ url: z.string() }),
            async execute({ url }) {
              ran++;
              return { title: url, output: "<html>" };
            },
          }),
        );
      });
      const { model } = scriptedModel([
        { toolCalls: [{ id: "call_f", name: "fetch_page", input: { url: "https://example.com" } }] },
        { text: "fetched" },
      ]);
      const { kernel } = await testKernel([mockProvider(model), fetchTool, allowAll(asked)]);
      const session = kernel.sessions.createSession();
      await kernel.sessions.prompt({ sessionID: session.id, text: "fetch" });

      expect(asked).toEqual([
        expect.objectContaining({ permission: "fetch_page", patterns: ["*"], tool: expect.objectContaining({ callID: "call_f" }) }),
      ]);
      expect(ran).toBe(1);
      expect(byCall(kernel, session.id, "call_f")?.state.status).toBe("completed");
      await kernel.dispose();
    });

    it("blocks the call with a tool error naming the plugin when tool.execute.before throws; the tool never runs", async () => {
      const executed: Array<{ callID: string; text: string }> = [];
      const asked: PermissionRequest[] = [];
      const guard = testPlugin("guard", (ctx) => {
        ctx.tap("tool.execute.before", () => {
          throw new Error("echo is frozen today");
        });
      });
      const { model } = scriptedModel([
        { toolCalls: [{ id: "call_e", name: "echo", input: { text: "hi" } }] },
        { text: "blocked" },
      ]);
      const { kernel } = await testKernel([mockProvider(model), echoPlugin(executed), guard, allowAll(asked)]);
      const session = kernel.sessions.createSession();
      await kernel.sessions.prompt({ sessionID: session.id, text: "echo" });

      const error = errorOf(byCall(kernel, session.id, "call_e"));
      expect(error).toContain('plugin "guard"');
      expect(error).toContain("echo is frozen today");
      expect(executed).toEqual([]);
      expect(asked).toEqual([]);
      expect(promptOf(model, 1)).toContain("echo is frozen today");
      await kernel.dispose();
    });
  });

  describe("repair", () => {
    async function runCalls(calls: Array<{ id: string; name: string; input: unknown }>) {
      const executed: Array<{ callID: string; text: string }> = [];
      const { model } = scriptedModel([{ toolCalls: calls }, { text: "ok" }]);
      const { kernel } = await testKernel([mockProvider(model), echoPlugin(executed)]);
      const session = kernel.sessions.createSession();
      await kernel.sessions.prompt({ sessionID: session.id, text: "go" });
      return { kernel, session, executed, model };
    }

    it("repairs a tool name in the wrong case (ECHO → echo)", async () => {
      const { kernel, session, executed } = await runCalls([{ id: "call_upper", name: "ECHO", input: { text: "loud" } }]);
      expect(byCall(kernel, session.id, "call_upper")).toMatchObject({ tool: "echo", state: { status: "completed", output: "LOUD" } });
      expect(executed).toEqual([{ callID: "call_upper", text: "loud" }]);
      await kernel.dispose();
    });

    it("answers an unknown tool name with an error listing the available tools", async () => {
      const { kernel, session, executed, model } = await runCalls([{ id: "call_x", name: "teleport", input: { text: "x" } }]);
      const error = errorOf(byCall(kernel, session.id, "call_x"));
      expect(error).toContain('Unknown tool "teleport"');
      expect(error).toMatch(/Available tools: .*echo/);
      expect(executed).toEqual([]);
      expect(promptOf(model, 1)).toContain('Unknown tool \\"teleport\\"');
      await kernel.dispose();
    });

    it("repairs JSON input wrapped in a ```json fence", async () => {
      const { kernel, session, executed } = await runCalls([
        { id: "call_fence", name: "echo", input: '```json\n{"text": "fenced"}\n```' },
      ]);
      expect(byCall(kernel, session.id, "call_fence")?.state).toMatchObject({ status: "completed", input: { text: "fenced" }, output: "FENCED" });
      expect(executed).toEqual([{ callID: "call_fence", text: "fenced" }]);
      await kernel.dispose();
    });

    it("repairs JSON input with a trailing comma", async () => {
      const { kernel, session, executed } = await runCalls([{ id: "call_comma", name: "echo", input: '{"text": "comma",}' }]);
      expect(byCall(kernel, session.id, "call_comma")?.state).toMatchObject({ status: "completed", output: "COMMA" });
      expect(executed).toEqual([{ callID: "call_comma", text: "comma" }]);
      await kernel.dispose();
    });

    it("answers hopeless JSON input with an error result the model sees", async () => {
      const { kernel, session, executed, model } = await runCalls([{ id: "call_junk", name: "echo", input: "{text: hi" }]);
      const error = errorOf(byCall(kernel, session.id, "call_junk"));
      expect(error).toContain('Invalid input for tool "echo"');
      expect(executed).toEqual([]);
      expect(promptOf(model, 1)).toContain("Invalid input for tool");
      await kernel.dispose();
    });
  });

  it("no path skips the chokepoint: plain, repaired, parallel and subtask calls each pass tool.execute.before once and ask their permission", async () => {
    const before = new Map<string, number>();
    const asks = new Map<string, string[]>();
    const executed: Array<{ callID: string; sessionID: string }> = [];
    const observer = testPlugin("observer", (ctx) => {
      ctx.tap("tool.execute.before", (input) => void before.set(input.callID, (before.get(input.callID) ?? 0) + 1));
      ctx.tap("permission.ask", (input, output) => {
        const callID = input.tool?.callID ?? "none";
        asks.set(callID, [...(asks.get(callID) ?? []), `${input.permission}:${input.patterns.join(",")}`]);
        output.status = "allow";
      });
    });
    const tools = testPlugin("probe-tools", (ctx) => {
      ctx.tools.register(
        defineTool({
          id: "probe",
          description: "Probe something",
          parameters: z.object({ tag: z.string() }),
          permission: (args) => [{ permission: "probe", patterns: [args.tag] }],
          async execute({ tag }, tctx) {
            executed.push({ callID: tctx.callID, sessionID: tctx.sessionID });
            return { title: `probe ${tag}`, output: `probed ${tag}` };
          },
        }),
      );
      ctx.tools.register(
        defineTool({
          id: "delegate",
          description: "Delegate to a subagent",
          parameters: z.object({ task: z.string() }),
          // No permission(): asked as { permission: "delegate", patterns: ["*"] }.
          async execute({ task }, tctx) {
            executed.push({ callID: tctx.callID, sessionID: tctx.sessionID });
            const result = await tctx.subtask({ agent: "general", prompt: task, description: "child work" });
            return { title: "delegated", output: result.text };
          },
        }),
      );
    });
    const { model } = scriptedModel([
      // Parent step 1: parallel calls, two of them repaired.
      {
        toolCalls: [
          { id: "p_plain_a", name: "probe", input: { tag: "a" } },
          { id: "p_plain_b", name: "probe", input: { tag: "b" } },
          { id: "p_case", name: "PROBE", input: { tag: "c" } },
          { id: "p_fence", name: "probe", input: '```json\n{"tag": "d"}\n```' },
          { id: "p_delegate", name: "delegate", input: { task: "probe the child" } },
        ],
      },
      // The child session (general subagent).
      { toolCalls: [{ id: "c_probe", name: "probe", input: { tag: "child" } }] },
      { text: "child done" },
      // Parent step 2.
      { text: "all done" },
    ]);
    const { kernel } = await testKernel([mockProvider(model), tools, observer]);
    const session = kernel.sessions.createSession();
    const result = await kernel.sessions.prompt({ sessionID: session.id, text: "go" });
    expect(result.assistant?.parts.find((p) => p.type === "text")).toMatchObject({ text: "all done" });

    const ids = executed.map((e) => e.callID).sort();
    expect(ids).toEqual(["c_probe", "p_case", "p_delegate", "p_fence", "p_plain_a", "p_plain_b"]);
    const child = executed.find((e) => e.callID === "c_probe")!;
    expect(child.sessionID).not.toBe(session.id);
    expect(kernel.sessions.store.getSession(child.sessionID)?.parentID).toBe(session.id);

    const declared: Record<string, string> = {
      p_plain_a: "probe:a",
      p_plain_b: "probe:b",
      p_case: "probe:c",
      p_fence: "probe:d",
      p_delegate: "delegate:*",
      c_probe: "probe:child",
    };
    for (const id of ids) {
      expect(before.get(id), `tool.execute.before for ${id}`).toBe(1);
      expect(asks.get(id), `permission.ask for ${id}`).toEqual([declared[id]]);
    }
    await kernel.dispose();
  });
});
