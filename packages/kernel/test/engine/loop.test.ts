import { describe, expect, it } from "vitest";
import { z } from "zod";
import { definePlugin, defineTool, type MessageWithParts, type ToolPart } from "@tessera/kernel";
import { mockProvider, scriptedModel, testKernel } from "./harness.js";

const echoTools = definePlugin({
  name: "echo-tools",
  version: "1.0.0",
  kernel: "^1.0.0",
  setup(ctx) {
    ctx.tools.register(
      defineTool({
        id: "echo",
        description: "Echo a text",
        parameters: z.object({ text: z.string() }),
        permission: () => [],
        async execute({ text }) {
          return { title: `echo ${text}`, output: text.toUpperCase() };
        },
      }),
    );
  },
});

const partsOf = (m: MessageWithParts | undefined) => m?.parts ?? [];
const tool = (m: MessageWithParts | undefined) => partsOf(m).find((p): p is ToolPart => p.type === "tool");

describe("the agent loop", () => {
  it("streams a text answer into an assistant message and stops", async () => {
    const { model } = scriptedModel([{ text: "Hello there, friend." }]);
    const { kernel } = await testKernel([mockProvider(model)]);
    const session = kernel.sessions.createSession();
    const result = await kernel.sessions.prompt({ sessionID: session.id, text: "hi" });
    expect(result.assistant?.info).toMatchObject({ role: "assistant", finish: "stop", providerID: "mock", modelID: "mock-model", agent: "build" });
    const text = partsOf(result.assistant).find((p) => p.type === "text");
    expect(text).toMatchObject({ text: "Hello there, friend." });
    expect(partsOf(result.assistant).map((p) => p.type)).toEqual(["step-start", "text", "step-finish"]);
    await kernel.dispose();
  });

  it("runs a tool call through the chokepoint, then answers with the result in context", async () => {
    const { model } = scriptedModel([
      { toolCalls: [{ name: "echo", input: { text: "ping" } }] },
      { text: "The echo said PING." },
    ]);
    const { kernel } = await testKernel([mockProvider(model), echoTools]);
    const session = kernel.sessions.createSession();
    const result = await kernel.sessions.prompt({ sessionID: session.id, text: "echo ping" });
    const messages = kernel.sessions.store.listMessages(session.id);
    expect(messages.map((m) => m.info.role)).toEqual(["user", "assistant", "assistant"]);
    expect(tool(messages[1])?.state).toMatchObject({ status: "completed", output: "PING", title: "echo ping" });
    expect(messages[1]?.info).toMatchObject({ finish: "tool-calls" });
    expect(result.assistant?.info.id).toBe(messages[2]?.info.id);
    const secondPrompt = JSON.stringify(model.doStreamCalls[1]?.prompt);
    expect(secondPrompt).toContain("PING");
    await kernel.dispose();
  });
});
