import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ToolDefinition } from "@tessera/kernel";
import { createTools } from "../src/index.js";

const directory = "/work/project";
const tools = Object.fromEntries(createTools({ agents: () => [] }).map((t) => [t.id, t as ToolDefinition<any>]));
const ask = (id: string, args: Record<string, unknown>) => tools[id]!.permission!(tools[id]!.parameters.parse(args), { directory });

describe("permission requests (the contract the permissions plugin relies on)", () => {
  it("read, list, grep and glob ask for read with the path relative to the project", async () => {
    expect(await ask("read", { filePath: "src/a.ts" })).toEqual([{ permission: "read", patterns: ["src/a.ts"], metadata: { filepath: "/work/project/src/a.ts" } }]);
    expect(await ask("list", {})).toEqual([{ permission: "read", patterns: ["."], metadata: { filepath: directory } }]);
    expect(await ask("grep", { pattern: "x", path: "lib" })).toEqual([{ permission: "read", patterns: ["lib"], metadata: { filepath: "/work/project/lib" } }]);
    expect(await ask("glob", { pattern: "**/*.ts", path: "src" })).toEqual([{ permission: "read", patterns: ["src"], metadata: { filepath: "/work/project/src" } }]);
  });

  it("an absolute path inside the project becomes relative; one outside starts with ../", async () => {
    expect(await ask("read", { filePath: "/work/project/docs/x.md" })).toEqual([{ permission: "read", patterns: ["docs/x.md"], metadata: { filepath: "/work/project/docs/x.md" } }]);
    expect(await ask("read", { filePath: "/etc/hosts" })).toEqual([{ permission: "read", patterns: ["../../etc/hosts"], metadata: { filepath: "/etc/hosts" } }]);
    expect(await ask("read", { filePath: "../sibling/y.ts" })).toEqual([{ permission: "read", patterns: ["../sibling/y.ts"], metadata: { filepath: "/work/sibling/y.ts" } }]);
  });

  it("an absolute glob asks for the directory before its first wildcard", async () => {
    expect(await ask("glob", { pattern: "/work/project/src/**/*.ts" })).toEqual([{ permission: "read", patterns: ["src"], metadata: { filepath: "/work/project/src" } }]);
  });

  it("write and edit ask for edit", async () => {
    expect(await ask("write", { filePath: "a.txt", content: "" })).toEqual([{ permission: "edit", patterns: ["a.txt"], metadata: { filepath: join(directory, "a.txt") } }]);
    expect(await ask("edit", { filePath: "src/b.ts", oldString: "x", newString: "y" })).toEqual([{ permission: "edit", patterns: ["src/b.ts"], metadata: { filepath: join(directory, "src/b.ts") } }]);
  });

  it("bash asks with the command as the pattern, and the command and cwd as metadata", async () => {
    expect(await ask("bash", { command: "git status && ls" })).toEqual([{ permission: "bash", patterns: ["git status && ls"], metadata: { command: "git status && ls", cwd: directory } }]);
  });

  it("webfetch asks for the URL, task for the subagent, todos for nothing", async () => {
    expect(await ask("webfetch", { url: "https://a.example/b" })).toEqual([{ permission: "webfetch", patterns: ["https://a.example/b"] }]);
    expect(await ask("task", { description: "d", prompt: "p", subagent_type: "general" })).toEqual([{ permission: "task", patterns: ["general"] }]);
    expect(await ask("todowrite", { todos: [] })).toEqual([]);
    expect(await ask("todoread", {})).toEqual([]);
  });

  it("every tool declares its permissions (none falls back to the kernel's fail-closed default)", () => {
    for (const tool of Object.values(tools)) expect(typeof tool.permission, tool.id).toBe("function");
  });
});
