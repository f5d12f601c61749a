import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startScriptedServer, type ScriptEntry, type ScriptedServer } from "@tessera/testing";
import { afterEach, describe, expect, it } from "vitest";
import { configureMock, parseJson, project, runCli, streamedBodies, userTexts, write, type ChatBody } from "./helpers.js";

// `tessera` with no arguments is the chat. Here stdin is a pipe (not a TTY), so the chat reads
// plain lines: every test pipes its whole input at once, as a script would.

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function chatProject(script: ScriptEntry[], extraModels: string[] = []) {
  // Background title calls don't stream; answer them apart so they don't take a scripted turn.
  server = await startScriptedServer({ script, usageChunk: "always", nonStreaming: { text: "A title" } });
  const p = project("empty");
  configureMock(p.dir, server.url, { extraModels });
  return p;
}

/** Pipes `lines` to `tessera` (the chat, with `flags`) in the project. */
function chat(p: { dir: string; home: string }, lines: string[], flags: string[] = [], cwd = p.dir) {
  return runCli(flags, { cwd, home: p.home, stdin: `${lines.join("\n")}\n` });
}

const requests = (): ChatBody[] => streamedBodies(server!.completionRequests);
const toolNames = (body: ChatBody) => ((body as { tools?: Array<{ function: { name: string } }> }).tools ?? []).map((t) => t.function.name);

describe("tessera (chat)", () => {
  it("/help lists the slash commands", async () => {
    const p = await chatProject([]);
    const run = await chat(p, ["/help"]);
    expect(run.code).toBe(0);
    for (const command of ["/new", "/model", "/agent", "/undo", "/redo", "/export", "/exit"]) expect(run.stdout).toContain(command);
    expect(requests()).toHaveLength(0);
  });

  it("answers a message on stdout, with the token line on stderr", async () => {
    const p = await chatProject([{ text: "Hello from the model." }]);
    const run = await chat(p, ["hi there"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Hello from the model.\n");
    expect(run.stderr).toMatch(/tokens: [\d,]+ in · [\d,]+ out · cost \$\d+\.\d{4}/);
    expect(userTexts(requests()[0]!)).toEqual(["hi there"]);
  });

  it("the token line after an answer counts every step of the turn", async () => {
    const p = await chatProject([
      { toolCalls: [{ name: "list", arguments: { path: "." } }], usage: { input: 1000, output: 10 } },
      { text: "Listed.", usage: { input: 2000, output: 20 } },
    ]);
    const run = await chat(p, ["list the files"]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("tokens: 3,000 in · 30 out · cost $0.0031");
  });

  it("/exit quits with 0 and reads no further input", async () => {
    const p = await chatProject([{ text: "Never sent." }]);
    const run = await chat(p, ["/exit", "this is not sent"]);
    expect(run.code).toBe(0);
    expect(requests()).toHaveLength(0);
  });

  it("answers every piped message in one session, then exits 0 at the end of input", async () => {
    const p = await chatProject([{ text: "First answer." }, { text: "Second answer." }]);
    const run = await chat(p, ["first question", "second question"]);
    expect(run.stderr).not.toContain("tessera:");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("First answer.");
    expect(run.stdout).toContain("Second answer.");
    expect(userTexts(requests()[1]!)).toEqual(["first question", "second question"]);
  });

  it("a line ending in \\ continues the message on the next line", async () => {
    const p = await chatProject([{ text: "Got both lines." }]);
    const run = await chat(p, ["line one \\", "line two"]);
    expect(run.code).toBe(0);
    expect(requests()).toHaveLength(1);
    expect(userTexts(requests()[0]!)).toEqual(["line one \nline two"]);
  });

  it("/new starts a new session for the next message", async () => {
    const p = await chatProject([{ text: "One." }, { text: "Two." }]);
    const run = await chat(p, ["in the first session", "/new", "in the second session"]);
    expect(run.code).toBe(0);
    expect(userTexts(requests()[1]!)).toEqual(["in the second session"]);
    const sessions = parseJson<Array<{ id: string }>>(await runCli(["sessions", "list", "--json"], { cwd: p.dir, home: p.home }));
    expect(sessions).toHaveLength(2);
  });

  it("/model changes the model of the next request", async () => {
    const p = await chatProject([{ text: "From the first model." }, { text: "From the other model." }], ["other"]);
    const run = await chat(p, ["first", "/model mock/other", "second"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("model: mock/other");
    expect(requests().map((b) => b.model)).toEqual(["mock-model", "other"]);
  });

  it("/agent plan switches to the plan agent (no edit tools in the next request)", async () => {
    const p = await chatProject([{ text: "Building." }, { text: "Planning." }]);
    const run = await chat(p, ["first", "/agent plan", "second"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("agent: plan");
    const [build, plan] = requests();
    expect(toolNames(build!)).toContain("edit");
    expect(toolNames(plan!)).not.toContain("edit");
    expect(toolNames(plan!)).toContain("read");
  });

  it("/agent with an unknown name prints an error and keeps the agent", async () => {
    const p = await chatProject([{ text: "Still building." }]);
    const run = await chat(p, ["/agent nosuch", "go"]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('no agent "nosuch"');
    expect(run.stdout).toContain("agent: build");
    expect(toolNames(requests()[0]!)).toContain("edit");
  });

  it("/undo removes the last exchange from the conversation", async () => {
    const p = await chatProject([{ text: "Answer one." }, { text: "Answer two." }, { text: "Answer three." }]);
    const run = await chat(p, ["question one", "question two", "/undo", "question three"]);
    expect(run.code).toBe(0);
    const third = JSON.stringify(requests()[2]!.messages);
    expect(userTexts(requests()[2]!)).toEqual(["question one", "question three"]);
    expect(third).not.toContain("Answer two.");
  });

  it("/redo brings back what /undo removed", async () => {
    const p = await chatProject([{ text: "Answer one." }, { text: "Answer two." }, { text: "Answer three." }]);
    const run = await chat(p, ["question one", "question two", "/undo", "/redo", "question three"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/restored \d+ messages/);
    expect(userTexts(requests()[2]!)).toEqual(["question one", "question two", "question three"]);
    expect(JSON.stringify(requests()[2]!.messages)).toContain("Answer two.");
  });

  it("/export writes the session as a markdown transcript", async () => {
    const p = await chatProject([{ text: "An answer worth keeping." }]);
    const run = await chat(p, ["keep this question", "/export out.md"]);
    expect(run.code).toBe(0);
    const file = join(p.dir, "out.md");
    expect(run.stdout).toContain(`wrote ${file}`);
    const markdown = readFileSync(file, "utf8");
    expect(markdown).toMatch(/^# /);
    expect(markdown).toContain("## User\n\nkeep this question");
    expect(markdown).toContain("## Assistant (build, mock/mock-model)\n\nAn answer worth keeping.");
  });

  it("-m chooses the chat's model", async () => {
    const p = await chatProject([{ text: "From the other model." }], ["other"]);
    const run = await chat(p, ["hello"], ["-m", "mock/other"]);
    expect(run.stderr).not.toContain("tessera:");
    expect(run.code).toBe(0);
    expect(requests().map((b) => b.model)).toEqual(["other"]);
  });

  it("--agent starts the chat with that agent", async () => {
    const p = await chatProject([{ text: "Planning." }]);
    const run = await chat(p, ["hello"], ["--agent", "plan"]);
    expect(run.code).toBe(0);
    expect(toolNames(requests()[0]!)).not.toContain("edit");
  });

  it("--dir chats in another directory", async () => {
    const p = await chatProject([{ text: "Elsewhere." }]);
    const run = await chat(p, ["hello"], ["--dir", p.dir], p.home);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`tessera chat in ${p.dir}`);
    expect(run.stdout).toContain("Elsewhere.");
  });

  it("an unknown flag is a usage error (exit 2)", async () => {
    const p = await chatProject([]);
    const run = await chat(p, ["hello"], ["--frobnicate"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--frobnicate");
  });

  it("an invalid config exits 1 naming the file and key, without a stack trace", async () => {
    const p = project("empty");
    write(join(p.dir, "tessera.config.json"), JSON.stringify({ plugin: ["x"] }));
    const run = await chat(p, ["hello"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^tessera: /);
    expect(run.stderr).toContain(`${join(p.dir, "tessera.config.json")} at "plugin"`);
    expect(run.stderr).not.toMatch(/^\s+at /m);
  });

  describe("permission prompts (answered by the next input line)", () => {
    const writeOut = `node -e "require('fs').appendFileSync('out.txt', 'ran\\n')"`;
    const bashCall = { toolCalls: [{ name: "bash", arguments: { command: writeOut, description: "append to out.txt" } }] };

    it("o runs the command once", async () => {
      const p = await chatProject([bashCall, { text: "Ran it." }]);
      const run = await chat(p, ["append to out.txt", "o"]);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain("Allow bash");
      expect(readFileSync(join(p.dir, "out.txt"), "utf8")).toBe("ran\n");
      expect(run.stdout).toContain("Ran it.");
    });

    it("r rejects it: nothing runs and the model is told", async () => {
      const p = await chatProject([bashCall, { text: "Understood." }]);
      const run = await chat(p, ["append to out.txt", "r"]);
      expect(run.code).toBe(0);
      expect(existsSync(join(p.dir, "out.txt"))).toBe(false);
      expect(JSON.stringify(requests()[1]!.messages)).toContain("rejected");
    });

    it("a approves it for the rest of the chat: the same command does not ask again", async () => {
      const p = await chatProject([bashCall, { text: "Once." }, bashCall, { text: "Twice." }]);
      // "a" answers the first prompt; a second prompt would find no input left and reject.
      const run = await chat(p, ["append to out.txt", "a", "again"]);
      expect(run.code).toBe(0);
      expect(run.stdout.match(/Allow bash/g)).toHaveLength(1);
      expect(readFileSync(join(p.dir, "out.txt"), "utf8")).toBe("ran\nran\n");
      expect(userTexts(requests()[2]!)).toEqual(["append to out.txt", "again"]);
    });

    it("--auto approves it without a prompt", async () => {
      const p = await chatProject([bashCall, { text: "Ran it." }]);
      const run = await chat(p, ["append to out.txt"], ["--auto"]);
      expect(run.code).toBe(0);
      expect(run.stdout).not.toContain("Allow bash");
      expect(readFileSync(join(p.dir, "out.txt"), "utf8")).toBe("ran\n");
    });

    it("the end of input rejects a pending prompt", async () => {
      const p = await chatProject([bashCall, { text: "Nothing ran." }]);
      const run = await chat(p, ["append to out.txt"]);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain("(no input: rejected)");
      expect(existsSync(join(p.dir, "out.txt"))).toBe(false);
    });
  });
});
