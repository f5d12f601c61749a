import { APICallError } from "ai";
import { describe, expect, it } from "vitest";
import { defineTool, type TextPart } from "@tessera/kernel";
import { z } from "zod";
import { mockProvider, recordEvents, scriptedModel, tempProject, testKernel, testPlugin, toolParts } from "../src/index.js";

/** The plugin under test: one `shout` tool. */
const shoutPlugin = testPlugin("shout", (ctx) => {
  ctx.tools.register(
    defineTool({
      id: "shout",
      description: "Upper-cases a text",
      parameters: z.object({ text: z.string() }),
      permission: () => [],
      async execute({ text }) {
        return { title: "shout", output: text.toUpperCase() };
      },
    }),
  );
});

describe("testKernel with a scripted model", () => {
  it("runs a session: the model calls the plugin's tool, then answers", async () => {
    const scripted = scriptedModel([{ toolCalls: [{ id: "c1", name: "shout", input: { text: "hi" } }] }, { reasoning: "done", text: "It says HI.", usage: { input: 20, output: 4 } }]);
    await using k = await testKernel([shoutPlugin], { model: scripted });
    const events = recordEvents(k.kernel);
    const session = k.kernel.sessions.createSession({ title: "kit test" });
    await k.kernel.sessions.prompt({ sessionID: session.id, text: "shout hi" });

    expect(scripted.remaining()).toBe(0);
    expect(scripted.model.doStreamCalls).toHaveLength(2);
    expect(scripted.model.doStreamCalls[1]?.prompt.at(-1)).toMatchObject({ role: "tool" });
    expect(events.of("permission.asked")).toEqual([]);
    const [part] = toolParts(k.kernel, session.id);
    expect(part).toMatchObject({ tool: "shout", callID: "c1", state: { status: "completed", output: "HI" } });
    const last = k.kernel.sessions.store.listMessages(session.id).at(-1)!;
    expect(last.parts.filter((p): p is TextPart => p.type === "text").map((p) => p.text)).toEqual(["It says HI."]);
    expect(events.events.length).toBeGreaterThan(0);
    expect(k.dir).toBe(`${k.root}/project`);
    expect(k.env.HOME).toBe(k.home);
  });

  it("an { error } step fails the call; the engine retries it quickly and records the error", async () => {
    const overloaded = new APICallError({ message: "Overloaded", url: "https://api.example.com", requestBodyValues: {}, statusCode: 529 });
    const scripted = scriptedModel([{ error: overloaded }, { text: "ok" }]);
    await using k = await testKernel([mockProvider(scripted.model)]);
    const session = k.kernel.sessions.createSession({ title: "retry" });
    await k.kernel.sessions.prompt({ sessionID: session.id, text: "go" });
    expect(scripted.remaining()).toBe(0);
    expect(k.retried).toEqual([expect.objectContaining({ statusCode: 529, retryable: true })]);
  });

  it("takes a project of the caller (kept on dispose) and config over the mock model", async () => {
    const project = tempProject({ prefix: "tessera-kit-" });
    {
      await using k = await testKernel([], { project, model: scriptedModel([]), setup: (dir) => expect(dir).toBe(project.dir) });
      expect(k.dir).toBe(project.dir);
    }
    project.remove();
  });
});
