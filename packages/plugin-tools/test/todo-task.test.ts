import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Bus, type AgentDefinition } from "@tessera/kernel";
import { createTaskTool, createTodoTools, TodoUpdated, type Todo } from "../src/index.js";
import { failure, run, tempDir, toolContext } from "./helpers.js";

const todos: Todo[] = [
  { id: "1", content: "Write the parser", status: "completed", priority: "high" },
  { id: "2", content: "Test it", status: "in_progress", priority: "medium" },
];

describe("todowrite and todoread", () => {
  it("keep a list per session", async () => {
    const { todowrite, todoread } = createTodoTools({ dir: tempDir() });
    const dir = tempDir();
    await run(todowrite, { todos }, toolContext(dir, { sessionID: "ses_a" }));
    const a = await run(todoread, {}, toolContext(dir, { sessionID: "ses_a" }));
    const b = await run(todoread, {}, toolContext(dir, { sessionID: "ses_b" }));
    expect(JSON.parse(a.output)).toEqual(todos);
    expect(a.title).toBe("1 open of 2 todos");
    expect(JSON.parse(b.output)).toEqual([]);
  });

  it("persist to <data>/todo/<sessionID>.json, so a restart keeps them", async () => {
    const store = tempDir();
    const first = createTodoTools({ dir: store });
    await run(first.todowrite, { todos }, toolContext(tempDir(), { sessionID: "ses_keep" }));
    expect(JSON.parse(readFileSync(join(store, "ses_keep.json"), "utf8"))).toEqual(todos);
    const restarted = createTodoTools({ dir: store });
    const result = await run(restarted.todoread, {}, toolContext(tempDir(), { sessionID: "ses_keep" }));
    expect(JSON.parse(result.output)).toEqual(todos);
  });

  it("publish todo.updated with the session and its list", async () => {
    const bus = new Bus();
    const seen: unknown[] = [];
    bus.subscribe(TodoUpdated, (event) => seen.push(event.properties));
    const { todowrite } = createTodoTools({ dir: tempDir(), bus });
    await run(todowrite, { todos }, toolContext(tempDir(), { sessionID: "ses_ev" }));
    expect(seen).toEqual([{ sessionID: "ses_ev", todos }]);
  });

  it("reject an invalid status and duplicate ids", async () => {
    const { todowrite } = createTodoTools({ dir: tempDir() });
    expect(() => todowrite.parameters.parse({ todos: [{ ...todos[0], status: "done" }] })).toThrow();
    expect(await failure(run(todowrite, { todos: [todos[0], { ...todos[1], id: "1" }] }, toolContext(tempDir())))).toContain('Two todos have the id "1"');
  });

  it("need no permission", () => {
    const { todowrite, todoread } = createTodoTools({ dir: tempDir() });
    expect(todowrite.permission!({ todos }, { directory: "/" })).toEqual([]);
    expect(todoread.permission!({}, { directory: "/" })).toEqual([]);
  });
});

describe("task", () => {
  const agents: AgentDefinition[] = [
    { id: "build", mode: "primary", description: "default" },
    { id: "explore", mode: "subagent", description: "Fast read-only search agent." },
    { id: "general", mode: "subagent", description: "General-purpose agent." },
    { id: "reviewer", mode: "all", description: "Reviews code." },
    { id: "title", mode: "primary", hidden: true },
    { id: "secret", mode: "subagent", hidden: true, description: "internal" },
  ];

  it("lists the visible subagents in its description", () => {
    const task = createTaskTool({ agents: () => agents });
    expect(task.description).toContain("Subagents:\n- explore: Fast read-only search agent.\n- general: General-purpose agent.\n- reviewer: Reviews code.");
    expect(task.description).not.toContain("secret");
    expect(task.description).not.toContain("- build");
  });

  it("includes subagents registered after it was created", () => {
    const list = [...agents];
    const task = createTaskTool({ agents: () => list });
    list.push({ id: "late", mode: "subagent", description: "Registered later." });
    expect(task.description).toContain("- late: Registered later.");
  });

  it("runs the subagent through ctx.subtask and returns its answer with the child session id", async () => {
    const calls: unknown[] = [];
    const task = createTaskTool({ agents: () => agents });
    const ctx = toolContext(tempDir(), {
      subtask: async (input) => {
        calls.push(input);
        return { sessionID: "ses_child", text: "Found it in src/a.ts:12." };
      },
    });
    const result = await run(task, { description: "Find the bug", prompt: "Look for the null check", subagent_type: "explore" }, ctx);
    expect(calls).toEqual([{ agent: "explore", prompt: "Look for the null check", description: "Find the bug" }]);
    expect(result).toMatchObject({ title: "Find the bug", output: "Found it in src/a.ts:12.", metadata: { sessionID: "ses_child", agent: "explore" } });
  });

  it("refuses an unknown subagent, naming the ones there are", async () => {
    const task = createTaskTool({ agents: () => agents });
    expect(await failure(run(task, { description: "x", prompt: "y", subagent_type: "build" }, toolContext(tempDir())))).toBe(
      'Unknown subagent "build". Use one of: explore, general, reviewer.',
    );
  });

  it("asks the task permission for the subagent", () => {
    const task = createTaskTool({ agents: () => agents });
    expect(task.permission!({ description: "x", prompt: "y", subagent_type: "explore" }, { directory: "/" })).toEqual([{ permission: "task", patterns: ["explore"] }]);
  });
});
