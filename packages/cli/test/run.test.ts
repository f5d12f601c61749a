import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startScriptedServer, type ScriptedServer } from "@tessera/testing";
import { afterEach, describe, expect, it } from "vitest";
import { JsonEventSchema } from "../src/json-events.js";
import { BIN, project, runCli, write } from "./helpers.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The model's streamed requests (the steps), without background title calls. */
const streamed = () => server!.completionRequests.filter((r) => (r.body as { stream?: boolean }).stream === true);

/** A temp project whose config points "mock/mock-model" at the scripted server. */
async function mockProject(script: Parameters<typeof startScriptedServer>[0]["script"]) {
  // Background title calls don't stream; answer them apart so they don't take a scripted turn.
  server = await startScriptedServer({ script, usageChunk: "always", nonStreaming: { text: "A title" } });
  const p = project("empty");
  write(
    join(p.dir, "tessera.config.json"),
    JSON.stringify({
      model: "mock/mock-model",
      provider: {
        mock: {
          npm: "@ai-sdk/openai-compatible",
          options: { baseURL: server.url, apiKey: "test-key" },
          models: { "mock-model": { name: "Mock", limit: { context: 128000, output: 8192 }, cost: { input: 1, output: 2 } } },
        },
      },
    }),
  );
  return p;
}

describe("tessera run", () => {
  it("streams the answer to stdout and the token/cost line to stderr", async () => {
    const p = await mockProject([{ text: "The answer is 42." }]);
    const run = await runCli(["run", "what is the answer?"], { cwd: p.dir, home: p.home });
    expect(run.stderr).not.toContain("tessera run:");
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("The answer is 42.\n");
    expect(run.stderr).toMatch(/tokens: [\d,]+ in · [\d,]+ out · cost \$\d+\.\d{4}/);
  });

  it("reads a file with a tool, then answers (two steps), showing the tool line", async () => {
    const p = await mockProject([
      { toolCalls: [{ name: "read", arguments: { filePath: "notes.txt" } }] },
      { text: "The notes say hello." },
    ]);
    write(join(p.dir, "notes.txt"), "hello\n");
    const run = await runCli(["run", "read notes.txt"], { cwd: p.dir, home: p.home });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/✓ read/);
    expect(run.stdout).toContain("The notes say hello.");
    const second = JSON.stringify(streamed()[1]!.body);
    expect(second).toContain("hello");
  });

  it("prints one valid JSON event per line with --format json", async () => {
    const p = await mockProject([
      { toolCalls: [{ name: "read", arguments: { filePath: "notes.txt" } }] },
      { text: "Done reading." },
    ]);
    write(join(p.dir, "notes.txt"), "hello\n");
    const run = await runCli(["run", "--format", "json", "read notes.txt"], { cwd: p.dir, home: p.home });
    expect(run.code).toBe(0);
    const events = run.stdout.trim().split("\n").map((line) => JsonEventSchema.parse(JSON.parse(line)));
    const types = events.map((e) => e.type);
    expect(types[0]).toBe("session");
    expect(types).toContain("step.start");
    expect(types).toContain("text.delta");
    expect(types).toContain("step.finish");
    expect(events.filter((e) => e.type === "tool").map((e) => (e.type === "tool" ? e.status : ""))).toEqual(["running", "completed"]);
    const done = events.at(-1)!;
    expect(done).toMatchObject({ type: "done", status: "completed", text: "Done reading." });
    expect(new Set(events.map((e) => e.sessionID)).size).toBe(1);
  });

  it("continues the latest session with -c", async () => {
    const p = await mockProject([{ text: "First answer." }, { text: "Second answer." }]);
    expect((await runCli(["run", "first question"], { cwd: p.dir, home: p.home })).code).toBe(0);
    const second = await runCli(["run", "-c", "second question"], { cwd: p.dir, home: p.home });
    expect(second.code).toBe(0);
    const body = JSON.stringify(streamed()[1]!.body);
    expect(body).toContain("first question");
    expect(body).toContain("First answer.");
  });

  it("asks permission for a bash command and takes the answer from stdin", async () => {
    const p = await mockProject([
      { toolCalls: [{ name: "bash", arguments: { command: `node -e "require('fs').writeFileSync('out.txt', 'from-bash\\n')"`, description: "write a file" } }] },
      { text: "Wrote it." },
    ]);
    const run = await runCli(["run", "write out.txt"], { cwd: p.dir, home: p.home, stdin: "o\n" });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("Allow bash");
    expect(readFileSync(join(p.dir, "out.txt"), "utf8")).toBe("from-bash\n");
  });

  it("a rejected permission is a tool error and nothing runs", async () => {
    const p = await mockProject([
      { toolCalls: [{ name: "bash", arguments: { command: `node -e "require('fs').writeFileSync('out.txt', 'nope')"` } }] },
      { text: "Understood." },
    ]);
    const run = await runCli(["run", "write out.txt"], { cwd: p.dir, home: p.home, stdin: "r\n" });
    expect(run.code).toBe(0);
    expect(existsSync(join(p.dir, "out.txt"))).toBe(false);
    expect(JSON.stringify(streamed()[1]!.body)).toContain("rejected");
  });

  it("names a new session after its prompt, without asking the model for a title", async () => {
    const p = await mockProject([{ text: "Sure." }]);
    const long = "please summarise the architecture of this repository and list the main packages";
    expect((await runCli(["run", long], { cwd: p.dir, home: p.home })).code).toBe(0);
    const [session] = JSON.parse((await runCli(["sessions", "list", "--json"], { cwd: p.dir, home: p.home })).stdout);
    expect(session.title).toBe(`${long.slice(0, 49).trimEnd()}…`);
    expect(server!.completionRequests.filter((r) => (r.body as { stream?: boolean }).stream !== true)).toHaveLength(0);
  });

  it("exits 2 without a message", async () => {
    const p = project("empty");
    const run = await runCli(["run"], { cwd: p.dir, home: p.home, stdin: "" });
    expect(run.code).toBe(2);
  });

  it("SIGINT mid-stream exits 130 and leaves a consistent session that can continue", async () => {
    const p = await mockProject([{ text: "This answer never finishes", hang: true, afterChunks: 2 }, { text: "Resumed." }]);
    const child = spawn(process.execPath, [BIN, "run", "start something long"], {
      cwd: p.dir,
      env: { PATH: process.env.PATH, HOME: p.home, XDG_CONFIG_HOME: join(p.home, ".config"), XDG_DATA_HOME: join(p.home, ".local/share"), XDG_STATE_HOME: join(p.home, ".local/state") },
    });
    let stdout = "";
    child.stdout.on("data", (d) => (stdout += d));
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        if (stdout.includes("This")) {
          clearInterval(timer);
          resolve();
        }
      }, 20);
    });
    child.kill("SIGINT");
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(code).toBe(130);
    const show = await runCli(["sessions", "list", "--json"], { cwd: p.dir, home: p.home });
    const [session] = JSON.parse(show.stdout);
    const exported = JSON.parse((await runCli(["sessions", "export", session.id, "--format", "json"], { cwd: p.dir, home: p.home })).stdout);
    const assistant = exported.messages.find((m: { info: { role: string } }) => m.info.role === "assistant");
    expect(assistant.info.time.completed).toBeTypeOf("number");
    expect(assistant.info.error.name).toBe("AbortedError");
    const resumed = await runCli(["run", "-c", "go on"], { cwd: p.dir, home: p.home });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain("Resumed.");
  });
});

describe("the offline demo", () => {
  it("runs with no provider configured, says so, and does a real task through the tools", async () => {
    const p = project("empty");
    write(join(p.dir, "README.md"), "# Demo Project\n\nA small project.\n");
    const run = await runCli(["run", "show me around"], { cwd: p.dir, home: p.home });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain("offline demo model");
    expect(run.stderr).toMatch(/✓ list/);
    expect(run.stderr).toMatch(/✓ read/);
    expect(existsSync(join(p.dir, "tessera-demo.md"))).toBe(true);
    expect(run.stdout.length).toBeGreaterThan(20);
  });

  it("a second demo run reads its note before editing it, and adds a line", async () => {
    const p = project("empty");
    write(join(p.dir, "README.md"), "# Demo Project\n");
    expect((await runCli(["run", "show me around"], { cwd: p.dir, home: p.home })).code).toBe(0);
    const again = await runCli(["run", "show me around"], { cwd: p.dir, home: p.home });
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/✓ read tessera-demo\.md/);
    expect(again.stderr).toMatch(/✓ edit tessera-demo\.md/);
    expect(readFileSync(join(p.dir, "tessera-demo.md"), "utf8")).toContain("Seen again");
  });
});
