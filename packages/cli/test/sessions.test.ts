import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { startScriptedServer, type ScriptEntry, type ScriptedServer } from "@tessera/testing";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { configureMock, parseJson, project, runCli, streamedBodies, userTexts } from "./helpers.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

interface SessionJson {
  id: string;
  title: string;
  directory: string;
}
interface ExportJson {
  info: SessionJson;
  messages: Array<{ info: { role: string }; parts: Array<{ type: string; text?: string }> }>;
}

async function mockProject(script: ScriptEntry[]) {
  // Background title calls don't stream; answer them apart so they don't take a scripted turn.
  server = await startScriptedServer({ script, usageChunk: "always", nonStreaming: { text: "A generated title" } });
  const p = project("empty");
  configureMock(p.dir, server.url);
  const cli = (args: string[], cwd = p.dir) => runCli(args, { cwd, home: p.home });
  return { ...p, cli };
}

/** A project with two sessions made by `tessera run --title`: "first session", then "second session". */
async function twoSessions() {
  const p = await mockProject([{ text: "First answer." }, { text: "Second answer." }]);
  expect((await p.cli(["run", "--title", "first session", "first question"])).code).toBe(0);
  expect((await p.cli(["run", "--title", "second session", "second question"])).code).toBe(0);
  const [second, first] = parseJson<SessionJson[]>(await p.cli(["sessions", "list", "--json"]));
  return { ...p, first: first!, second: second! };
}

/** One `twoSessions()` project shared by the tests that only read it (made once: runs are the slow part). */
let seeded: Awaited<ReturnType<typeof twoSessions>>;
beforeAll(async () => {
  seeded = await twoSessions();
  await server?.close();
  server = undefined;
});

const requests = () => streamedBodies(server!.completionRequests);
const texts = (exported: ExportJson) =>
  exported.messages.map((m) => `${m.info.role}: ${m.parts.filter((p) => p.type === "text").map((p) => p.text).join("")}`);

describe("tessera sessions list", () => {
  it("prints this directory's sessions newest first, one line each with id and title", async () => {
    const p = seeded;
    const run = await p.cli(["sessions", "list"]);
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`^${p.second.id}  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d  second session$`));
    expect(lines[1]).toMatch(new RegExp(`^${p.first.id}  .*  first session$`));
  });

  it("--json prints the sessions as data, newest first", async () => {
    const p = seeded;
    const sessions = parseJson<SessionJson[]>(await p.cli(["sessions", "list", "--json"]));
    expect(sessions.map((s) => s.title)).toEqual(["second session", "first session"]);
    expect(sessions[0]).toMatchObject({ directory: p.dir, time: { created: expect.any(Number), updated: expect.any(Number) } });
  });

  it("lists only the current directory's sessions unless --all", async () => {
    const p = await mockProject([{ text: "At the root." }, { text: "In sub." }]);
    const sub = join(p.dir, "sub");
    mkdirSync(sub);
    await p.cli(["run", "--title", "root session", "hello"]);
    await p.cli(["run", "--title", "sub session", "hello"], sub);
    const titles = async (args: string[], cwd?: string) => parseJson<SessionJson[]>(await p.cli(["sessions", "list", "--json", ...args], cwd)).map((s) => s.title);
    expect(await titles([])).toEqual(["root session"]);
    expect(await titles([], sub)).toEqual(["sub session"]);
    expect(await titles(["--all"])).toEqual(["sub session", "root session"]);
  });

  it("says so when the directory has no sessions", async () => {
    const p = project("empty");
    const run = await runCli(["sessions", "list"], { cwd: p.dir, home: p.home });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`no sessions in ${p.dir}`);
  });
});

describe("tessera sessions show / export", () => {
  it("show prints the transcript as markdown", async () => {
    const p = seeded;
    const run = await p.cli(["sessions", "show", p.first.id]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^# first session\n/);
    expect(run.stdout).toContain(`- session: ${p.first.id}`);
    expect(run.stdout).toContain("## User\n\nfirst question");
    expect(run.stdout).toContain("## Assistant (build, mock/mock-model)\n\nFirst answer.");
    expect(run.stdout).not.toContain("second question");
  });

  it("show --json prints the stored session and its messages", async () => {
    const p = seeded;
    const data = parseJson<ExportJson>(await p.cli(["sessions", "show", p.first.id, "--json"]));
    expect(data.info).toMatchObject({ id: p.first.id, title: "first session" });
    expect(texts(data)).toEqual(["user: first question", "assistant: First answer."]);
  });

  it("export --format json prints { info, messages }", async () => {
    const p = seeded;
    const data = parseJson<ExportJson>(await p.cli(["sessions", "export", p.second.id, "--format", "json"]));
    expect(data.info.id).toBe(p.second.id);
    expect(texts(data)).toEqual(["user: second question", "assistant: Second answer."]);
  });

  it("export --format markdown (the default) prints the transcript", async () => {
    const p = seeded;
    const markdown = await p.cli(["sessions", "export", p.second.id, "--format", "markdown"]);
    expect(markdown.code).toBe(0);
    expect(markdown.stdout).toMatch(/^# second session\n/);
    expect(markdown.stdout).toContain("Second answer.");
    expect((await p.cli(["sessions", "export", p.second.id])).stdout).toBe(markdown.stdout);
  });

  it("export with another --format is a usage error", async () => {
    const p = seeded;
    const run = await p.cli(["sessions", "export", p.second.id, "--format", "html"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--format must be "json" or "markdown"');
  });
});

describe("tessera sessions delete / fork", () => {
  it("delete removes the session", async () => {
    const p = await twoSessions();
    const run = await p.cli(["sessions", "delete", p.first.id]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`deleted ${p.first.id}\n`);
    const left = parseJson<SessionJson[]>(await p.cli(["sessions", "list", "--json"]));
    expect(left.map((s) => s.id)).toEqual([p.second.id]);
  });

  it("fork copies a session into a new one with the same messages", async () => {
    const p = await twoSessions();
    const run = await p.cli(["sessions", "fork", p.first.id, "--json"]);
    expect(run.code).toBe(0);
    const fork = parseJson<SessionJson>(run);
    expect(fork.id).not.toBe(p.first.id);
    expect(fork.title).toBe("first session (fork)");
    const original = parseJson<ExportJson>(await p.cli(["sessions", "export", p.first.id, "--format", "json"]));
    const copy = parseJson<ExportJson>(await p.cli(["sessions", "export", fork.id, "--format", "json"]));
    expect(texts(copy)).toEqual(texts(original));
    expect(parseJson<SessionJson[]>(await p.cli(["sessions", "list", "--json"]))).toHaveLength(3);
  });

  it("fork prints the old and new ids without --json", async () => {
    const p = await twoSessions();
    const run = await p.cli(["sessions", "fork", p.first.id]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^forked ${p.first.id} → \\S+\\n$`));
  });
});

describe("tessera sessions errors", () => {
  it.each(["show", "export", "delete", "fork"])("%s with an unknown id exits 2 with a hint", async (action) => {
    const p = project("empty");
    const run = await runCli(["sessions", action, "ses_nosuch"], { cwd: p.dir, home: p.home });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no session "ses_nosuch"; "tessera sessions list" shows them');
    expect(run.stderr).toContain('Run "tessera sessions --help"');
  });

  it("an action without an id, or an unknown action, exits 2", async () => {
    const p = project("empty");
    const missing = await runCli(["sessions", "show"], { cwd: p.dir, home: p.home });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('"sessions show" needs a session id');
    const unknown = await runCli(["sessions", "rename", "x"], { cwd: p.dir, home: p.home });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown action "rename"');
  });
});

describe("tessera run with sessions", () => {
  it("-s <id> continues that session, not the latest", async () => {
    const p = await twoSessions();
    server!.push({ text: "Back in the first." });
    const run = await p.cli(["run", "-s", p.first.id, "third question"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("Back in the first.\n");
    expect(userTexts(requests()[2]!)).toEqual(["first question", "third question"]);
  });

  it("-c keeps the session's agent, and the json session event names it", async () => {
    const p = await mockProject([{ text: "Planned." }, { text: "Still planning." }]);
    expect((await p.cli(["run", "--agent", "plan", "make a plan"])).code).toBe(0);
    const run = await p.cli(["run", "-c", "--format", "json", "go on"]);
    expect(run.code).toBe(0);
    const tools = (requests()[1] as { tools?: Array<{ function: { name: string } }> }).tools ?? [];
    expect(tools.map((t) => t.function.name)).not.toContain("edit");
    expect(JSON.parse(run.stdout.split("\n")[0]!)).toMatchObject({ type: "session", agent: "plan" });
  });

  it("-s with an unknown id exits 2 with a hint", async () => {
    const p = project("empty");
    const run = await runCli(["run", "-s", "ses_nosuch", "hello"], { cwd: p.dir, home: p.home });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no session "ses_nosuch"; "tessera sessions list" shows them');
  });

  it("-c --fork continues in a fork and leaves the original unchanged", async () => {
    const p = await twoSessions();
    server!.push({ text: "In the fork." });
    const run = await p.cli(["run", "-c", "--fork", "third question"]);
    expect(run.code).toBe(0);
    expect(userTexts(requests()[2]!)).toEqual(["second question", "third question"]);
    const sessions = parseJson<SessionJson[]>(await p.cli(["sessions", "list", "--json"]));
    expect(sessions).toHaveLength(3);
    const fork = sessions[0]!;
    expect(fork.id).not.toBe(p.second.id);
    expect(fork.title).toBe("second session (fork)");
    const original = parseJson<ExportJson>(await p.cli(["sessions", "export", p.second.id, "--format", "json"]));
    expect(texts(original)).toEqual(["user: second question", "assistant: Second answer."]);
    const forked = parseJson<ExportJson>(await p.cli(["sessions", "export", fork.id, "--format", "json"]));
    expect(texts(forked)).toEqual(["user: second question", "assistant: Second answer.", "user: third question", "assistant: In the fork."]);
  });

  it("--fork without -c or -s is a usage error", async () => {
    const p = project("empty");
    const run = await runCli(["run", "--fork", "hello"], { cwd: p.dir, home: p.home });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--fork needs a session to fork");
  });

  it("--title names a new session", async () => {
    const p = await mockProject([{ text: "Titled." }]);
    expect((await p.cli(["run", "--title", "My own title", "hello"])).code).toBe(0);
    const [session] = parseJson<SessionJson[]>(await p.cli(["sessions", "list", "--json"]));
    expect(session!.title).toBe("My own title");
  });

  it("--title with -c renames the continued session", async () => {
    const p = await twoSessions();
    server!.push({ text: "Renamed." });
    expect((await p.cli(["run", "-c", "--title", "renamed", "third question"])).code).toBe(0);
    const sessions = parseJson<SessionJson[]>(await p.cli(["sessions", "list", "--json"]));
    expect(sessions.map((s) => [s.id, s.title])).toEqual([
      [p.second.id, "renamed"],
      [p.first.id, "first session"],
    ]);
  });
});
