/**
 * Through a real kernel: a scripted model calls fake tools (with @tessera/plugin-tools' permission
 * contracts); the plugin decides at the kernel's chokepoint via `permission.ask`.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { AskRequest, Kernel, PermissionReply } from "@tessera/kernel";
import permissions, { approvalsFile, PLUGIN_NAME } from "../src/index.js";
import { mockProvider, recordEvents, scriptedModel, tempProject, testKernel, type ScriptedStep, type TempProject } from "@tessera/testing";
import { errorOf, fakeTools, stateOf } from "./fake-tools.js";

const call = (id: string, name: string, input: unknown) => ({ id, name, input });

async function run(
  ws: TempProject,
  steps: ScriptedStep[],
  options: {
    config?: Record<string, unknown>;
    plugin?: Record<string, unknown>;
    sources?: Record<string, string>;
    asker?: (request: AskRequest, signal: AbortSignal) => Promise<PermissionReply>;
    agent?: string;
  } = {},
) {
  const ran: string[] = [];
  const { model } = scriptedModel(steps);
  const { kernel, logs } = await testKernel([mockProvider(model), fakeTools(ran), { plugin: permissions, options: options.plugin ?? {} }], {
    project: ws,
    strict: true,
    ...(options.config ? { config: options.config } : {}),
    ...(options.sources ? { sources: options.sources } : {}),
  });
  if (options.asker) kernel.sessions.setAsker(options.asker);
  const events = recordEvents(kernel);
  const session = kernel.sessions.createSession();
  await kernel.sessions.prompt({ sessionID: session.id, text: "go", ...(options.agent ? { agent: options.agent } : {}) });
  return { kernel, session, ran, events, model, logs, error: (id: string) => errorOf(kernel, session.id, id), state: (id: string) => stateOf(kernel, session.id, id) };
}

const dispose = (k: Kernel) => k.dispose();

describe("through a real kernel", () => {
  it("the permission.ask tap fires and decides: the kernel records the plugin as decider, with the reason", async () => {
    const ws = tempProject({ prefix: "tessera-perm-" });
    const r = await run(ws, [{ toolCalls: [call("c1", "bash", { command: "git status" })] }, { text: "done" }]);
    expect(r.ran).toEqual(["bash:git status"]);
    expect(r.kernel.describe().hooks["permission.ask"]).toEqual([expect.objectContaining({ plugin: PLUGIN_NAME })]);
    expect(r.events.of("permission.decided")).toEqual([
      expect.objectContaining({ permission: "bash", status: "allow", decidedBy: PLUGIN_NAME, reason: expect.stringContaining('"git status *"') }),
    ]);
    expect(r.events.of("permission.asked")).toEqual([]);
    await dispose(r.kernel);
  });

  it("a deny rule becomes a tool error naming the config file, key and pattern", async () => {
    const ws = tempProject({ prefix: "tessera-perm-" });
    const file = `${ws.dir}/tessera.config.json`;
    const config = { permission: { bash: { "rm *": "deny" } } };
    writeFileSync(file, JSON.stringify(config));
    const steps = (): ScriptedStep[] => [{ toolCalls: [call("c1", "bash", { command: "git status && rm -rf build" })] }, { text: "ok" }];
    // The kernel hands the plugin `ctx.configSources` (key path → file).
    const r = await run(ws, steps(), { config, sources: { 'permission.bash["rm *"]': file } });
    expect(r.ran).toEqual([]);
    const error = r.error("c1")!;
    expect(error).toContain('permission.bash["rm *"]');
    expect(error).toContain(file);
    expect(error).toContain(PLUGIN_NAME);
    expect(r.events.of("permission.decided")).toEqual([expect.objectContaining({ status: "deny", decidedBy: PLUGIN_NAME, reason: expect.stringContaining(file) })]);
    await dispose(r.kernel);

    // Or the host overrides them with the `sources` option.
    const given = await run(ws, steps(), { config, plugin: { sources: { 'permission.bash["rm *"]': "/etc/tessera/shared.json" } } });
    expect(given.error("c1")).toContain("/etc/tessera/shared.json");
    await dispose(given.kernel);
  });

  it("headless: an ask with no asker is denied by the kernel; with `headless: true` the error names the exact rule", async () => {
    const ws = tempProject({ prefix: "tessera-perm-" });
    const steps = (): ScriptedStep[] => [{ toolCalls: [call("c1", "bash", { command: "npm run build -- --prod" })] }, { text: "ok" }];
    const kernelDenied = await run(ws, steps());
    expect(kernelDenied.ran).toEqual([]);
    expect(kernelDenied.error("c1")).toContain("headless");
    expect(kernelDenied.events.of("permission.decided")).toEqual([expect.objectContaining({ status: "deny", decidedBy: "headless" })]);
    await dispose(kernelDenied.kernel);

    const pluginDenied = await run(ws, steps(), { plugin: { headless: true } });
    expect(pluginDenied.ran).toEqual([]);
    expect(pluginDenied.error("c1")).toContain('"permission": { "bash": { "npm run build *": "allow" } }');
    expect(pluginDenied.events.of("permission.decided")).toEqual([expect.objectContaining({ status: "deny", decidedBy: PLUGIN_NAME })]);
    await dispose(pluginDenied.kernel);
  });

  it("--auto (auto: true) approves asks but not denials", async () => {
    const ws = tempProject({ prefix: "tessera-perm-" });
    const r = await run(
      ws,
      [{ toolCalls: [call("c1", "bash", { command: "npm install" }), call("c2", "bash", { command: "rm -rf node_modules" }), call("c3", "mcp_deploy", {})] }, { text: "ok" }],
      { plugin: { auto: true }, config: { permission: { bash: { "rm *": "deny" } } } },
    );
    expect(r.ran.sort()).toEqual(["bash:npm install", "mcp_deploy"]);
    expect(r.error("c2")).toContain("Denied");
    const decided = r.events.of("permission.decided");
    expect(decided).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ patterns: ["npm install"], status: "allow", decidedBy: PLUGIN_NAME, reason: expect.stringContaining("Auto-approved") }),
        expect.objectContaining({ permission: "mcp_deploy", status: "allow", decidedBy: PLUGIN_NAME }),
      ]),
    );
    await dispose(r.kernel);
  });

  it('"once" allows one call; the next identical call asks again', async () => {
    const ws = tempProject({ prefix: "tessera-perm-" });
    const asked: AskRequest[] = [];
    const r = await run(
      ws,
      [{ toolCalls: [call("c1", "bash", { command: "npm test" })] }, { toolCalls: [call("c2", "bash", { command: "npm test" })] }, { text: "ok" }],
      { asker: async (request) => (asked.push(request), "once") },
    );
    expect(r.ran).toEqual(["bash:npm test", "bash:npm test"]);
    expect(asked).toHaveLength(2);
    expect(r.events.of("permission.decided").map((e) => e.decidedBy)).toEqual(["user", "user"]);
    await dispose(r.kernel);
  });

  it('"always" stores the arity prefix per project, applies at once, and again in a new kernel', async () => {
    const ws = tempProject({ prefix: "tessera-perm-" });
    const asked: AskRequest[] = [];
    const first = await run(
      ws,
      [
        { toolCalls: [call("c1", "bash", { command: "git checkout -b feature" })] },
        { toolCalls: [call("c2", "bash", { command: "git checkout main" })] },
        { toolCalls: [call("c3", "read", { filePath: `${ws.root}/home/notes.txt` })] },
        { text: "ok" },
      ],
      { asker: async (request) => (asked.push(request), "always") },
    );
    expect(first.ran).toEqual(["bash:git checkout -b feature", "bash:git checkout main", `read:${ws.root}/home/notes.txt`]);
    expect(asked.map((a) => a.patterns[0])).toEqual(["git checkout -b feature", `../home/notes.txt`]);
    const file = approvalsFile(first.kernel.paths.data, ws.dir);
    expect(existsSync(file)).toBe(true);
    const stored = JSON.parse(readFileSync(file, "utf8"));
    expect(stored).toMatchObject({ version: 1, root: ws.dir });
    expect(stored.approvals.map((a: { permission: string; pattern: string }) => [a.permission, a.pattern])).toEqual([
      ["bash", "git checkout *"],
      ["external_directory", `${ws.root}/home/**`],
    ]);
    await dispose(first.kernel);

    // A new kernel for the same project, headless: the approvals load at setup and allow.
    const second = await run(ws, [
      { toolCalls: [call("d1", "bash", { command: "git checkout release" }), call("d2", "read", { filePath: `${ws.root}/home/todo.txt` })] },
      { text: "ok" },
    ]);
    expect(second.ran.sort()).toEqual(["bash:git checkout release", `read:${ws.root}/home/todo.txt`]);
    expect(second.events.of("permission.decided")).toEqual([
      expect.objectContaining({ status: "allow", decidedBy: PLUGIN_NAME, reason: expect.stringContaining('"always" approval') }),
      expect.objectContaining({ status: "allow", decidedBy: PLUGIN_NAME, reason: expect.stringContaining('"always" approval') }),
    ]);
    await dispose(second.kernel);
  });

  it('"reject" denies the call and cancels the session\'s other pending asks (end to end)', async () => {
    const ws = tempProject({ prefix: "tessera-perm-" });
    const asks: Array<{ request: AskRequest; signal: AbortSignal; answer: (reply: PermissionReply) => void }> = [];
    let bothPending!: () => void;
    const pending = new Promise<void>((resolve) => (bothPending = resolve));
    const ran: string[] = [];
    const { model } = scriptedModel([
      { toolCalls: [call("c1", "bash", { command: "rm -rf dist" }), call("c2", "bash", { command: "npm publish" })] },
      { text: "ok, stopping" },
    ]);
    const { kernel } = await testKernel([mockProvider(model), fakeTools(ran), permissions], { project: ws, strict: true });
    kernel.sessions.setAsker(
      (request, signal) =>
        new Promise<PermissionReply>((resolve) => {
          asks.push({ request, signal, answer: resolve });
          if (asks.length === 2) bothPending();
        }),
    );
    const events = recordEvents(kernel);
    const session = kernel.sessions.createSession();
    const prompt = kernel.sessions.prompt({ sessionID: session.id, text: "clean and publish" });
    await pending;
    const first = asks.find((a) => a.request.tool?.callID === "c1")!;
    const second = asks.find((a) => a.request.tool?.callID === "c2")!;
    first.answer("reject");
    await prompt;

    expect(ran).toEqual([]);
    expect(second.signal.aborted).toBe(true);
    expect(errorOf(kernel, session.id, "c1")).toContain("rejected");
    expect(errorOf(kernel, session.id, "c2")).toContain("cancelled");
    expect(events.of("permission.replied").map((e) => e.reply)).toEqual(["reject"]);
    await kernel.dispose();
  });

  it("agent rules apply to the session's agent (found from the assistant message)", async () => {
    const ws = tempProject({ prefix: "tessera-perm-" });
    const config = { agent: { reviewer: { description: "reviews", permission: { bash: { "git log *": "deny" } } } } };
    const steps = (): ScriptedStep[] => [{ toolCalls: [call("c1", "bash", { command: "git log -3" })] }, { text: "ok" }];
    const build = await run(ws, steps(), { config });
    expect(build.ran).toEqual(["bash:git log -3"]);
    await dispose(build.kernel);

    const reviewer = await run(ws, steps(), { config, agent: "reviewer" });
    expect(reviewer.ran).toEqual([]);
    expect(reviewer.error("c1")).toContain('agent.reviewer.permission.bash["git log *"]');
    await dispose(reviewer.kernel);

    const plan = await run(ws, [{ toolCalls: [call("c1", "bash", { command: "echo x > notes.md" })] }, { text: "ok" }], { agent: "plan" });
    expect(plan.ran).toEqual([]);
    expect(plan.error("c1")).toContain("agent.plan.permission.edit");
    await dispose(plan.kernel);
  });

  it("file tools: protected paths ask under allow-all; edits inside are allowed; .env asks", async () => {
    const ws = tempProject({ prefix: "tessera-perm-" });
    const r = await run(
      ws,
      [
        {
          toolCalls: [
            call("c1", "write", { filePath: ".git/hooks/pre-commit" }),
            call("c2", "write", { filePath: "src/index.ts" }),
          ],
        },
        { text: "ok" },
      ],
      { config: { permission: { "*": "allow" } } },
    );
    expect(r.ran).toEqual(["write:src/index.ts"]);
    expect(r.error("c1")).toContain("headless");
    expect(r.events.of("permission.decided").find((e) => e.patterns[0] === ".git/hooks/pre-commit")).toBeDefined();
    await dispose(r.kernel);

    // Without allow-all, reading .env asks (here: headless, so it is denied).
    const defaults = await run(ws, [{ toolCalls: [call("c1", "read", { filePath: "a/../.env" }), call("c2", "read", { filePath: ".env.example" })] }, { text: "ok" }]);
    expect(defaults.ran).toEqual(["read:.env.example"]);
    await dispose(defaults.kernel);
  });

  it("doom_loop asks: three identical calls in a row", async () => {
    const ws = tempProject({ prefix: "tessera-perm-" });
    const same = () => call(undefined as never, "bash", { command: "git status" });
    const r = await run(ws, [{ toolCalls: [same()] }, { toolCalls: [same()] }, { toolCalls: [same()] }, { text: "ok" }]);
    expect(r.ran).toEqual(["bash:git status", "bash:git status"]);
    expect(r.events.of("permission.decided").at(-1)).toMatchObject({ permission: "doom_loop", status: "deny", decidedBy: "headless" });
    await dispose(r.kernel);
  });
});
