import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { definePlugin, type PermissionRequest } from "@tessera/kernel";
import toolsPlugin, { TodoUpdated, toolSchemas } from "../src/index.js";
import { scriptedModel, tempProject, testKernel, toolParts, type TempProject } from "@tessera/testing";

const projects: TempProject[] = [];
afterAll(() => {
  for (const p of projects.splice(0)) p.remove();
});

/** A temp project removed after these tests (they dispose their kernels by hand). */
function project(): TempProject {
  const made = tempProject({ prefix: "tessera-tools-kernel-" });
  projects.push(made);
  return made;
}

/** A plugin that records every permission request and answers it with `decide` (allow by default). */
function recordPermissions(asked: PermissionRequest[], decide: (r: PermissionRequest) => "allow" | "deny" = () => "allow") {
  return definePlugin({
    name: "record-permissions",
    version: "1.0.0",
    kernel: "^1.0.0",
    setup(ctx) {
      ctx.tap("permission.ask", (input, output) => {
        asked.push(input);
        output.status = decide(input);
      });
    },
  });
}

describe("the tools in a real kernel", () => {
  it("registers every tool under the plugin's name", async () => {
    const { kernel } = await testKernel([toolsPlugin], { model: scriptedModel([]), project: project() });
    expect(kernel.describe().registries.tools).toEqual(
      ["read", "write", "edit", "patch", "bash", "grep", "glob", "list", "todowrite", "todoread", "task", "webfetch"].map((id) => ({ id, plugin: "@tessera/plugin-tools" })),
    );
    // The prompt weight with the kernel's own agents listed by task.
    expect(JSON.stringify(toolSchemas(kernel.tools.list())).length).toBeLessThanOrEqual(12_000);
    await kernel.dispose();
  });

  it("leaves out disabled tools", async () => {
    const { kernel } = await testKernel([{ plugin: toolsPlugin, options: { disabled: ["webfetch", "bash"] } }], { model: scriptedModel([]), project: project() });
    const ids = kernel.describe().registries.tools.map((t) => t.id);
    expect(ids).not.toContain("webfetch");
    expect(ids).not.toContain("bash");
    expect(ids).toContain("read");
    await kernel.dispose();
  });

  it("read → edit → bash: the file is fixed, and each permission request carries the contract patterns", async () => {
    const model = scriptedModel([
      { toolCalls: [{ id: "c_read", name: "read", input: { filePath: "src/math.ts" } }] },
      { toolCalls: [{ id: "c_edit", name: "edit", input: { filePath: "src/math.ts", oldString: "a - b", newString: "a + b" } }] },
      { toolCalls: [{ id: "c_bash", name: "bash", input: { command: "cat src/math.ts", description: "Show the fix" } }] },
      { text: "Fixed." },
    ]);
    const asked: PermissionRequest[] = [];
    const { kernel, dir } = await testKernel([toolsPlugin, recordPermissions(asked)], { model, project: project() });
    mkdirSync(join(dir, "src"));
    writeFileSync(join(dir, "src/math.ts"), "export const add = (a: number, b: number) => a - b;\n");

    const session = kernel.sessions.createSession();
    await kernel.sessions.prompt({ sessionID: session.id, text: "Fix add" });

    expect(readFileSync(join(dir, "src/math.ts"), "utf8")).toBe("export const add = (a: number, b: number) => a + b;\n");
    expect(asked.map(({ permission, patterns, metadata }) => ({ permission, patterns, metadata }))).toEqual([
      { permission: "read", patterns: ["src/math.ts"], metadata: { filepath: join(dir, "src/math.ts") } },
      { permission: "edit", patterns: ["src/math.ts"], metadata: { filepath: join(dir, "src/math.ts") } },
      { permission: "bash", patterns: ["cat src/math.ts"], metadata: { command: "cat src/math.ts", cwd: dir } },
    ]);
    const parts = toolParts(kernel, session.id);
    expect(parts.map((p) => [p.tool, p.state.status])).toEqual([
      ["read", "completed"],
      ["edit", "completed"],
      ["bash", "completed"],
    ]);
    const edit = parts[1]!.state;
    expect(edit.status === "completed" && edit.metadata?.diff).toContain("+export const add = (a: number, b: number) => a + b;");
    const bash = parts[2]!.state;
    expect(bash.status === "completed" && bash.output).toContain("a + b");
    await kernel.dispose();
  });

  it("bash gets the variables other plugins add through the shell.env hook", async () => {
    const model = scriptedModel([{ toolCalls: [{ id: "c_env", name: "bash", input: { command: 'printf "%s" "$DEPLOY_TOKEN"' } }] }, { text: "ok" }]);
    const envPlugin = definePlugin({
      name: "env-plugin",
      version: "1.0.0",
      kernel: "^1.0.0",
      setup(ctx) {
        ctx.tap("shell.env", (input, output) => {
          output.env.DEPLOY_TOKEN = `token-for-${input.sessionID}`;
        });
      },
    });
    const { kernel } = await testKernel([toolsPlugin, envPlugin, recordPermissions([])], { model, project: project() });
    const session = kernel.sessions.createSession();
    await kernel.sessions.prompt({ sessionID: session.id, text: "env" });
    const state = toolParts(kernel, session.id)[0]!.state;
    expect(state.status === "completed" && state.output).toBe(`token-for-${session.id}`);
    await kernel.dispose();
  });

  it("a denied edit changes nothing and the model hears why", async () => {
    const model = scriptedModel([
      { toolCalls: [{ id: "c_write", name: "write", input: { filePath: "notes.txt", content: "hello" } }] },
      { text: "Could not write." },
    ]);
    const asked: PermissionRequest[] = [];
    const { kernel, dir } = await testKernel([toolsPlugin, recordPermissions(asked, (r) => (r.permission === "edit" ? "deny" : "allow"))], { model, project: project() });
    const session = kernel.sessions.createSession();
    await kernel.sessions.prompt({ sessionID: session.id, text: "write notes" });
    expect(existsSync(join(dir, "notes.txt"))).toBe(false);
    expect(toolParts(kernel, session.id)[0]!.state.status).toBe("error");
    await kernel.dispose();
  });

  it("task runs a built-in subagent in a child session and returns its answer; its description lists the kernel's subagents", async () => {
    const model = scriptedModel([
      { toolCalls: [{ id: "c_task", name: "task", input: { description: "Find add", prompt: "Where is add defined?", subagent_type: "explore" } }] },
      { text: "add is in src/math.ts" },
      { text: "The subagent found it." },
    ]);
    const asked: PermissionRequest[] = [];
    const { kernel } = await testKernel([toolsPlugin, recordPermissions(asked)], { model, project: project() });
    const description = kernel.tools.get("task")!.description;
    expect(description).toContain("- explore: ");
    expect(description).toContain("- general: ");
    expect(description).not.toContain("- build");
    const session = kernel.sessions.createSession();
    await kernel.sessions.prompt({ sessionID: session.id, text: "find add" });
    const task = toolParts(kernel, session.id)[0]!;
    expect(task.state.status).toBe("completed");
    if (task.state.status !== "completed") return;
    expect(task.state.output).toBe("add is in src/math.ts");
    const child = task.state.metadata?.sessionID as string;
    expect(kernel.sessions.store.getSession(child)?.parentID).toBe(session.id);
    expect(asked.find((r) => r.permission === "task")?.patterns).toEqual(["explore"]);
    await kernel.dispose();
  });

  it("todowrite publishes todo.updated on the kernel's bus and persists under the data directory, until the session is deleted", async () => {
    const todos = [{ id: "a", content: "Plan", status: "in_progress", priority: "high" }];
    const model = scriptedModel([{ toolCalls: [{ name: "todowrite", input: { todos } }] }, { text: "ok" }]);
    const { kernel, home } = await testKernel([toolsPlugin], { model, project: project() });
    const seen: unknown[] = [];
    kernel.bus.subscribe(TodoUpdated, (event) => seen.push(event.properties));
    const session = kernel.sessions.createSession();
    await kernel.sessions.prompt({ sessionID: session.id, text: "plan" });
    expect(seen).toEqual([{ sessionID: session.id, todos }]);
    const file = join(home, ".local/share/tessera/todo", `${session.id}.json`);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(todos);
    kernel.sessions.deleteSession(session.id);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(existsSync(file)).toBe(false);
    await kernel.dispose();
  });
});
