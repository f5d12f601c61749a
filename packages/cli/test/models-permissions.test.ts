import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startScriptedServer, type ScriptEntry, type ScriptedServer } from "@tessera/testing";
import { afterEach, describe, expect, it } from "vitest";
import { JsonEventSchema, type JsonEvent } from "../src/json-events.js";
import { BIN, MOCK_MODEL, configureMock, parseJson, project, runCli, streamedBodies, xdgEnv } from "./helpers.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

interface ModelRow {
  providerID: string;
  modelID: string;
  ref: string;
  name?: string;
  limit?: { context: number; output: number };
  cost?: { input: number; output: number };
  usable: boolean;
}

/** A project whose config names `mock/mock-model`; no server behind it unless a script is given. */
async function mockProject(script?: ScriptEntry[], extra?: Record<string, unknown>) {
  if (script) server = await startScriptedServer({ script, usageChunk: "always", nonStreaming: { text: "A title" } });
  const p = project("empty");
  const config = configureMock(p.dir, server?.url ?? "http://127.0.0.1:9/v1", extra ? { extra } : {});
  return { ...p, config };
}

describe("tessera models", () => {
  it("--json lists the config provider's model with its limit and cost, and the demo", async () => {
    const p = await mockProject();
    const run = await runCli(["models", "--json"], { cwd: p.dir, home: p.home });
    expect(run.code).toBe(0);
    const rows = parseJson<ModelRow[]>(run);
    expect(rows.map((r) => r.ref)).toEqual(["demo/offline", "mock/mock-model"]);
    expect(rows[1]).toMatchObject({ providerID: "mock", modelID: "mock-model", name: "Mock", limit: MOCK_MODEL.limit, cost: MOCK_MODEL.cost, usable: true });
  });

  it("lists the OpenAI catalog when OPENAI_API_KEY is set", async () => {
    const p = await mockProject();
    const without = parseJson<ModelRow[]>(await runCli(["models", "--json"], { cwd: p.dir, home: p.home }));
    expect(without.some((r) => r.providerID === "openai")).toBe(false);
    const rows = parseJson<ModelRow[]>(await runCli(["models", "--json"], { cwd: p.dir, home: p.home, env: { OPENAI_API_KEY: "sk-test" } }));
    const openai = rows.filter((r) => r.providerID === "openai");
    expect(openai.map((r) => r.ref)).toContain("openai/gpt-4.1");
    expect(openai.every((r) => r.usable && r.limit && r.cost)).toBe(true);
    expect(rows.map((r) => r.ref)).toContain("mock/mock-model");
  });

  it("prints one line per model under its provider's name", async () => {
    const p = await mockProject();
    const run = await runCli(["models"], { cwd: p.dir, home: p.home });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Tessera demo (offline)\n  demo/offline  ");
    expect(run.stdout).toContain("mock\n  mock/mock-model  Mock · 128k ctx · $1/$2 per Mtok\n");
    expect(run.stdout).not.toContain("no provider is usable");
  });

  it("says how to get a provider when only the demo is usable", async () => {
    const p = project("empty");
    const run = await runCli(["models"], { cwd: p.dir, home: p.home });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("no provider is usable: set an API key");
    expect(run.stdout).toContain("demo/offline");
  });

  it("ends quietly with 0 when stdout is closed early (tessera models | head)", async () => {
    const p = await mockProject();
    const child = spawn(process.execPath, [BIN, "models"], { cwd: p.dir, env: { ...xdgEnv(p.home), OPENAI_API_KEY: "sk-test" } });
    child.stdout.destroy();
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(stderr).not.toContain("EPIPE");
    expect(code).toBe(0);
  });
});

describe("tessera permissions explain", () => {
  it("allows a read-only command by default", async () => {
    const p = project("empty");
    const run = await runCli(["permissions", "explain", "bash", "git status"], { cwd: p.dir, home: p.home });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^allow {2}bash git status\n/);
    expect(run.stdout).toContain("decided by the built-in defaults");
  });

  it("does not allow rm -rf /, and says why", async () => {
    const p = project("empty");
    const run = await runCli(["permissions", "explain", "bash", "rm -rf /", "--json"], { cwd: p.dir, home: p.home });
    expect(run.code).toBe(0);
    const result = parseJson(run);
    expect(["ask", "deny"]).toContain(result.decision);
    expect(result.reason).toContain('bash "rm -rf /"');
    expect(result.reason).toMatch(/protected path|outside the project/);
  });

  it("asks before editing a git hook (a protected path)", async () => {
    const p = project("empty");
    const run = await runCli(["permissions", "explain", "edit", ".git/hooks/pre-commit"], { cwd: p.dir, home: p.home });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^ask {2}edit \.git\/hooks\/pre-commit\n/);
    expect(run.stdout).toContain("protected path");
  });

  it("--json names the config rule that decided: its key, pattern and file", async () => {
    const p = await mockProject(undefined, { permission: { bash: { "npm *": "deny" } } });
    const run = await runCli(["permissions", "explain", "bash", "npm publish", "--json"], { cwd: p.dir, home: p.home });
    expect(run.code).toBe(0);
    const result = parseJson(run);
    expect(result).toMatchObject({
      permission: "bash",
      input: "npm publish",
      decision: "deny",
      rule: { source: p.config, key: 'permission.bash["npm *"]', pattern: "npm *", action: "deny", layer: "config" },
    });
  });

  it("the text output names the rule and its file", async () => {
    const p = await mockProject(undefined, { permission: { bash: { "npm *": "deny" } } });
    const run = await runCli(["permissions", "explain", "bash", "npm publish"], { cwd: p.dir, home: p.home });
    expect(run.stdout).toMatch(/^deny {2}bash npm publish\n/);
    expect(run.stdout).toContain(`rule permission.bash["npm *"] = "deny" in ${p.config}`);
  });

  it("an unknown action, or a missing input, exits 2", async () => {
    const p = project("empty");
    const unknown = await runCli(["permissions", "decide", "bash", "ls"], { cwd: p.dir, home: p.home });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown action "decide"');
    const missing = await runCli(["permissions", "explain", "bash"], { cwd: p.dir, home: p.home });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("explain needs a permission and an input");
  });
});

describe("permissions in tessera run", () => {
  const writeOut = `node -e "require('fs').writeFileSync('out.txt', 'ran')"`;
  const events = (stdout: string): JsonEvent[] => stdout.trim().split("\n").map((line) => JsonEventSchema.parse(JSON.parse(line)));

  it("--format json: every event validates, and a bash call rejected headless is a permission event and a tool error", async () => {
    const p = await mockProject([{ toolCalls: [{ name: "bash", arguments: { command: writeOut } }] }, { text: "Understood." }]);
    const run = await runCli(["run", "--format", "json", "write out.txt"], { cwd: p.dir, home: p.home });
    expect(run.code).toBe(0);
    const all = events(run.stdout);
    expect(all[0]).toMatchObject({ type: "session", model: "mock/mock-model", agent: "build", demo: false });
    expect(all.find((e) => e.type === "permission")).toMatchObject({ permission: "bash", patterns: [writeOut], status: "deny", decidedBy: "user", reason: "rejected" });
    const tool = all.filter((e) => e.type === "tool").at(-1);
    expect(tool).toMatchObject({ tool: "bash", status: "error" });
    expect(all.at(-1)).toMatchObject({ type: "done", status: "completed", text: "Understood." });
    expect(existsSync(join(p.dir, "out.txt"))).toBe(false);
    expect(run.stderr).toContain("(no input: rejected)");
  });

  it("--format json: a config deny rule is a permission event decided by the permissions plugin, with its reason", async () => {
    const p = await mockProject([{ toolCalls: [{ name: "bash", arguments: { command: "npm publish" } }] }, { text: "Not published." }], {
      permission: { bash: { "npm *": "deny" } },
    });
    const run = await runCli(["run", "--format", "json", "publish"], { cwd: p.dir, home: p.home });
    expect(run.code).toBe(0);
    const denied = events(run.stdout).find((e) => e.type === "permission");
    expect(denied).toMatchObject({ permission: "bash", status: "deny", decidedBy: "@tessera/plugin-permissions" });
    expect(denied?.type === "permission" && denied.reason).toContain('permission.bash["npm *"]');
    // Nobody was asked: the rule decided.
    expect(run.stderr).not.toContain("Allow bash");
    expect(JSON.stringify(streamedBodies(server!.completionRequests)[1]!.messages)).toContain('permission.bash[\\"npm *\\"]');
  });

  it("--auto approves a command that would ask, without a prompt", async () => {
    const p = await mockProject([{ toolCalls: [{ name: "bash", arguments: { command: writeOut } }] }, { text: "Done." }]);
    const run = await runCli(["run", "--auto", "write out.txt"], { cwd: p.dir, home: p.home });
    expect(run.code).toBe(0);
    expect(run.stderr).not.toContain("Allow bash");
    expect(run.stderr).toMatch(/✓ bash/);
    expect(readFileSync(join(p.dir, "out.txt"), "utf8")).toBe("ran");
  });

  it("--auto does not override a deny rule", async () => {
    const p = await mockProject([{ toolCalls: [{ name: "bash", arguments: { command: "npm publish" } }] }, { text: "Denied." }], {
      permission: { bash: { "npm *": "deny" } },
    });
    const run = await runCli(["run", "--auto", "publish"], { cwd: p.dir, home: p.home });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/⊘ bash denied \(npm publish\) by @tessera\/plugin-permissions/);
  });
});
