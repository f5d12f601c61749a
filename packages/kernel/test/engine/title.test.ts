/**
 * Session titles: made after the first step by the hidden `title` agent, in the background.
 */
import { describe, expect, it, onTestFinished } from "vitest";
import type { PluginDefinition } from "@tessera/kernel";
import { TITLE_PROMPT } from "../../src/engine/prompts/agents.js";
import { DEFAULT_TITLE_PREFIX } from "../../src/engine/title.js";
import { gate, instrumentedModel, mockProvider, testKernel, waitFor, type ScriptedStep } from "./harness.js";

async function start(script: ScriptedStep[], generate: NonNullable<Parameters<typeof instrumentedModel>[1]>["generate"], plugins: PluginDefinition[] = []) {
  const scripted = instrumentedModel(script, { generate });
  const test = await testKernel([mockProvider(scripted.model), ...plugins]);
  onTestFinished(() => test.kernel.dispose());
  const session = test.kernel.sessions.createSession();
  return { ...test, ...scripted, engine: test.kernel.sessions, session };
}

const titleOf = (engine: { store: { getSession(id: string): { title: string } | undefined } }, id: string) => engine.store.getSession(id)!.title;
type GenerateCall = { prompt: Array<{ role: string; content: unknown }> };

describe("session titles", () => {
  it("names the session with the title agent after the first step, once", async () => {
    const { engine, session, model } = await start([{ text: "Let me look." }, { text: "Done." }], "# Login redirect fix\n");
    expect(titleOf(engine, session.id).startsWith(DEFAULT_TITLE_PREFIX)).toBe(true);
    await engine.prompt({ sessionID: session.id, text: "fix the login redirect bug" });
    await waitFor(() => titleOf(engine, session.id) === "Login redirect fix", "the title");

    expect(model.doGenerateCalls).toHaveLength(1);
    const call = model.doGenerateCalls[0] as unknown as GenerateCall;
    const system = call.prompt.filter((m) => m.role === "system").map((m) => String(m.content)).join("\n");
    expect(system).toContain(TITLE_PROMPT.slice(0, 80));
    expect(JSON.stringify(call.prompt.filter((m) => m.role === "user"))).toContain("fix the login redirect bug");

    // A later prompt keeps the title.
    await engine.prompt({ sessionID: session.id, text: "and the logout one" });
    expect(model.doGenerateCalls).toHaveLength(1);
    expect(titleOf(engine, session.id)).toBe("Login redirect fix");
  });

  it("returns the answer without waiting for the title", async () => {
    const titleAsked = gate();
    const release = gate();
    const { engine, session, model } = await start([{ text: "Here you go." }], async () => {
      titleAsked.open();
      await release.promise;
      return "Slow title";
    });
    const { assistant } = await engine.prompt({ sessionID: session.id, text: "write a haiku" });

    expect(assistant?.info).toMatchObject({ finish: "stop" });
    await titleAsked.promise;
    expect(model.doGenerateCalls).toHaveLength(1);
    expect(titleOf(engine, session.id).startsWith(DEFAULT_TITLE_PREFIX)).toBe(true);
    release.open();
    await waitFor(() => titleOf(engine, session.id) === "Slow title", "the title");
  });

  it("logs a failed title call and keeps the default title", async () => {
    const { engine, session, logs, model } = await start([{ text: "ok" }], () => {
      throw new Error("title model is down");
    });
    const before = titleOf(engine, session.id);
    await engine.prompt({ sessionID: session.id, text: "hello there" });
    await waitFor(() => logs.some((l) => l.message.includes("could not generate a title")), "the failure to be logged");

    const record = logs.find((l) => l.message.includes("could not generate a title"))!;
    expect(record.level).toBe("warn");
    expect(record.message).toContain(session.id);
    expect(record.message).toContain("title model is down");
    expect(model.doGenerateCalls).toHaveLength(1);
    expect(titleOf(engine, session.id)).toBe(before);
  });

  it("does not title child sessions", async () => {
    const { engine, session, model } = await start([{ text: "child answer" }, { text: "parent answer" }], "Parent title");
    const child = engine.createSession({ parentID: session.id });
    const childTitle = child.title;
    expect(childTitle.startsWith(DEFAULT_TITLE_PREFIX)).toBe(true);

    await engine.prompt({ sessionID: child.id, text: "a question for the child" });
    await engine.prompt({ sessionID: session.id, text: "a question for the parent" });
    await waitFor(() => titleOf(engine, session.id) === "Parent title", "the parent's title");

    expect(model.doGenerateCalls).toHaveLength(1);
    expect(JSON.stringify((model.doGenerateCalls[0] as unknown as GenerateCall).prompt)).toContain("a question for the parent");
    expect(titleOf(engine, child.id)).toBe(childTitle);
  });
});
