// The offline demo model: four real steps through the kernel, its tools and its permission flow.
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { definePlugin, defineTool, type AssistantMessage, type PermissionAskOutput, type PluginDefinition } from "@tessera/kernel";
import { streamText } from "ai";
import { createDemoModel, DEMO_FILE, DEMO_MARKER, fileContent, parseListing, pickFile } from "../src/index.js";
import { runPrompt, tempProject, testKernel, texts, toolParts, type TempProject } from "./helpers.js";

/**
 * Minimal list/read/write/edit tools with the ids and parameters of the real tools plugin, and
 * output shaped like OpenCode's (a tree listing; numbered lines in <file>).
 */
const fsTools: PluginDefinition = definePlugin({
  name: "test-fs-tools",
  version: "1.0.0",
  kernel: "^1.0.0",
  setup(ctx) {
    const abs = (directory: string, path: string) => resolve(directory, path);
    ctx.tools.register(
      defineTool({
        id: "list",
        description: "List a directory",
        parameters: z.object({ path: z.string().optional() }),
        permission: ({ path }) => [{ permission: "list", patterns: [path ?? "."] }],
        async execute({ path }, tool) {
          const root = abs(tool.directory, path ?? ".");
          const lines = [`${root}/`];
          const walk = (dir: string, depth: number) => {
            for (const name of readdirSync(dir).sort()) {
              if (name === ".git") continue;
              const full = join(dir, name);
              const isDir = statSync(full).isDirectory();
              lines.push(`${"  ".repeat(depth)}${name}${isDir ? "/" : ""}`);
              if (isDir) walk(full, depth + 1);
            }
          };
          walk(root, 1);
          return { title: relative(tool.directory, root) || ".", output: lines.join("\n") };
        },
      }),
    );
    ctx.tools.register(
      defineTool({
        id: "read",
        description: "Read a file",
        parameters: z.object({ filePath: z.string(), offset: z.number().optional(), limit: z.number().optional() }),
        permission: ({ filePath }) => [{ permission: "read", patterns: [filePath] }],
        async execute({ filePath }, tool) {
          const text = readFileSync(abs(tool.directory, filePath), "utf8");
          const numbered = text.split("\n").map((line, i) => `${String(i + 1).padStart(5, "0")}| ${line}`);
          return { title: filePath, output: ["<file>", ...numbered, "</file>"].join("\n") };
        },
      }),
    );
    ctx.tools.register(
      defineTool({
        id: "write",
        description: "Write a file",
        parameters: z.object({ filePath: z.string(), content: z.string() }),
        permission: ({ filePath }) => [{ permission: "edit", patterns: [filePath] }],
        async execute({ filePath, content }, tool) {
          writeFileSync(abs(tool.directory, filePath), content);
          return { title: filePath, output: `Wrote ${filePath}` };
        },
      }),
    );
    ctx.tools.register(
      defineTool({
        id: "edit",
        description: "Edit a file",
        parameters: z.object({ filePath: z.string(), oldString: z.string(), newString: z.string(), replaceAll: z.boolean().optional() }),
        permission: ({ filePath }) => [{ permission: "edit", patterns: [filePath] }],
        async execute({ filePath, oldString, newString }, tool) {
          const path = abs(tool.directory, filePath);
          const text = readFileSync(path, "utf8");
          if (!text.includes(oldString)) throw new Error(`oldString not found in ${filePath}`);
          writeFileSync(path, text.replace(oldString, newString));
          return { title: filePath, output: `Edited ${filePath}` };
        },
      }),
    );
  },
});

function permissionPlugin(decide: (permission: string) => PermissionAskOutput["status"]): PluginDefinition {
  return definePlugin({
    name: "test-permissions",
    version: "1.0.0",
    kernel: "^1.0.0",
    setup(ctx) {
      ctx.tap("permission.ask", (input, output) => {
        output.status = decide(input.permission);
        if (output.status === "deny") output.reason = "the test denies it";
      });
    },
  });
}

function sampleProject(): TempProject {
  const project = tempProject();
  writeFileSync(join(project.dir, "README.md"), "# Hello Project\n\nA small sample.\n");
  writeFileSync(join(project.dir, "package.json"), JSON.stringify({ name: "hello-project", version: "1.0.0" }));
  mkdirSync(join(project.dir, "src"));
  writeFileSync(join(project.dir, "src", "index.ts"), "export const x = 1;\n");
  return project;
}

describe("the demo model through the kernel", () => {
  it("lists, reads README.md, writes tessera-demo.md and summarises; a second run edits the note", async () => {
    const project = sampleProject();
    await using k = await testKernel({}, { project, plugins: [fsTools, permissionPlugin(() => "allow")] });
    const { assistants } = await runPrompt(k.kernel, "Show me what you can do", "demo/offline");

    expect(assistants.map((m) => toolParts(m).map((t) => t.tool))).toEqual([["list"], ["read"], ["write"], []]);
    const [list, read, write] = assistants.map((m) => toolParts(m)[0]);
    expect(list!.state).toMatchObject({ status: "completed", input: { path: "." } });
    expect(read!.state).toMatchObject({ status: "completed", input: { filePath: "README.md" } });
    expect(write!.state).toMatchObject({ status: "completed", input: { filePath: DEMO_FILE } });

    const note = readFileSync(join(project.dir, DEMO_FILE), "utf8");
    expect(note).toContain("- Project: Hello Project");
    expect(note).toContain("- Entries in the top folder: 3"); // README.md, package.json, src/
    expect(note).toContain("- First heading: Hello Project");
    expect(note).toContain(DEMO_MARKER);

    const summary = texts(assistants[3]).join("");
    expect(summary).toContain("Listed the project: 3 entries (README.md, package.json, src)");
    expect(summary).toContain('Read README.md: its first heading is "Hello Project"');
    expect(summary).toContain(`Created ${DEMO_FILE}`);
    expect(assistants[3]!.info).toMatchObject({ finish: "stop", providerID: "demo", modelID: "offline" });
    for (const m of assistants) {
      const info = m.info as AssistantMessage;
      expect(info.error).toBeUndefined();
      expect(info.tokens.input).toBeGreaterThan(0);
      expect(info.tokens.output).toBeGreaterThan(0);
      expect(info.cost).toBe(0);
    }

    // Second run: the note exists, so the demo reads it (edits need a read first), then edits it.
    const again = await runPrompt(k.kernel, "Again", "demo/offline");
    expect(again.assistants.map((m) => toolParts(m).map((t) => t.tool))).toEqual([["list"], ["read"], ["read"], ["edit"], []]);
    expect(readFileSync(join(project.dir, DEMO_FILE), "utf8")).toContain(`${DEMO_MARKER}\n- Seen again: Hello Project, 4 entries`);
    expect(texts(again.assistants[4]).join("")).toContain(`Updated ${DEMO_FILE}`);
  });

  it("says plainly when the write was denied, and how to allow it", async () => {
    const project = sampleProject();
    await using k = await testKernel({}, { project, plugins: [fsTools, permissionPlugin((p) => (p === "edit" ? "deny" : "allow"))] });
    const { assistants } = await runPrompt(k.kernel, "Go", "demo/offline");
    expect(assistants.map((m) => toolParts(m).map((t) => t.state.status))).toEqual([["completed"], ["completed"], ["error"], []]);
    expect(existsSync(join(project.dir, DEMO_FILE))).toBe(false);
    const summary = texts(assistants[3]).join("");
    expect(summary).toContain(`Could not create ${DEMO_FILE}: it was denied`);
    expect(summary).toContain("--auto");
    expect(summary).toContain('"permission": { "edit": "allow" }');
    expect(summary).toContain("Nothing was changed.");
  });

  it("is deterministic: the same project gives the same stream", async () => {
    const run = async () => {
      const project = sampleProject();
      await using k = await testKernel({}, { project, plugins: [fsTools, permissionPlugin(() => "allow")] });
      const { assistants } = await runPrompt(k.kernel, "Go", "demo/offline");
      return assistants.map((m) => ({
        text: texts(m).join(""),
        tools: toolParts(m).map((t) => ({ tool: t.tool, input: t.state.input })),
        output: (m.info as AssistantMessage).tokens.output,
      }));
    };
    const [a, b] = [await run(), await run()];
    // The working directory differs between runs (and is named in the summary); nothing else does.
    const strip = (runs: typeof a) => JSON.stringify(runs).replace(/\/[^"\s]*tessera-providers-[^/"\s]*\/project/g, "<dir>");
    expect(strip(a)).toBe(strip(b));
  });
});

describe("the demo model on its own", () => {
  it("streams its text word by word and reports usage", async () => {
    const result = streamText({ model: createDemoModel({ wordDelayMs: 0 }), prompt: "hi", tools: {} });
    const deltas: string[] = [];
    for await (const part of result.stream) if (part.type === "text-delta") deltas.push(part.text);
    expect(deltas.length).toBeGreaterThan(5);
    expect(deltas.every((d) => d.trim().split(/\s+/).length === 1)).toBe(true);
    expect(deltas.join("")).toContain("the list tool is not available");
    expect((await result.usage).inputTokens).toBeGreaterThan(0);
  });

  it("names a session when asked for a title", async () => {
    const model = createDemoModel({ wordDelayMs: 0 });
    const result = await model.doGenerate({
      prompt: [{ role: "user", content: [{ type: "text", text: "Write a title for this conversation:\n\nFix the failing tests please" }] }],
    });
    expect(result.content).toEqual([{ type: "text", text: "Demo: Fix the failing tests please" }]);
  });

  it("parses listings and picks a file deterministically", () => {
    const tree = parseListing("/tmp/x/\n  docs/\n    guide.md\n  Zeta.txt\n  app.py\n  .env\n");
    expect(tree.topLevel).toBe(4);
    expect(pickFile(tree)).toBe("Zeta.txt"); // no README.md or package.json: first text file by code point
    const drawn = parseListing("├── package.json\n├── src\n│   └── main.rs\n└── LICENSE\n");
    expect(drawn.entries.map((e) => e.path)).toEqual(["package.json", "src", "src/main.rs", "LICENSE"]);
    expect(pickFile(drawn)).toBe("package.json");
    expect(pickFile(parseListing("src/\n  lib.rs\n"))).toBe("src/lib.rs");
    expect(fileContent("<file>\n00001| # Title\n00002| body\n\n(End of file - total 2 lines)\n</file>")).toBe("# Title\nbody\n");
    expect(fileContent("     1\t{\"name\": \"x\"}")).toBe('{"name": "x"}');
  });
});
