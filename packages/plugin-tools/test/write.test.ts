import { chmodSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createReadTool, createToolState, createWriteTool } from "../src/index.js";
import { failure, run, tempDir, toolContext, writeTree } from "./helpers.js";

function setup(files: Record<string, string> = {}) {
  const dir = tempDir();
  writeTree(dir, files);
  const state = createToolState();
  const ctx = toolContext(dir);
  const read = createReadTool({ state });
  const write = createWriteTool({ state });
  return {
    dir,
    write: (filePath: string, content: string, c = ctx) => run(write, { filePath, content }, c),
    read: (filePath: string, c = ctx) => run(read, { filePath }, c),
    text: (name: string) => readFileSync(join(dir, name), "utf8"),
  };
}

describe("write", () => {
  it("creates a file and its parent directories, with a diff", async () => {
    const t = setup();
    const result = await t.write("deep/er/new.txt", "hello\nworld\n");
    expect(t.text("deep/er/new.txt")).toBe("hello\nworld\n");
    expect(result.output).toBe("Created deep/er/new.txt (2 lines).");
    expect(result.metadata).toMatchObject({ exists: false, additions: 2, deletions: 0 });
    expect(result.metadata?.diff).toContain("@@ -0,0 +1,2 @@\n+hello\n+world");
  });

  it("refuses to overwrite a file this session has not read", async () => {
    const t = setup({ "a.txt": "old\n" });
    expect(await failure(t.write("a.txt", "new\n"))).toContain("You must read a.txt before changing it");
    expect(t.text("a.txt")).toBe("old\n");
  });

  it("a read in another session does not count", async () => {
    const t = setup({ "a.txt": "old\n" });
    await t.read("a.txt", toolContext(t.dir, { sessionID: "ses_other" }));
    expect(await failure(t.write("a.txt", "new\n"))).toContain("You must read a.txt");
  });

  it("overwrites a file read in this session, returning the diff", async () => {
    const t = setup({ "a.txt": "old\n" });
    await t.read("a.txt");
    const result = await t.write("a.txt", "new\n");
    expect(t.text("a.txt")).toBe("new\n");
    expect(result.output).toBe("Overwrote a.txt (1 line).");
    expect(result.metadata?.diff).toContain("-old\n+new");
  });

  it("refuses to overwrite a file changed on disk since it was read", async () => {
    const t = setup({ "a.txt": "old\n" });
    await t.read("a.txt");
    writeFileSync(join(t.dir, "a.txt"), "changed by someone else\n");
    expect(await failure(t.write("a.txt", "new\n"))).toContain("a.txt was modified since you read it");
    expect(t.text("a.txt")).toBe("changed by someone else\n");
  });

  it("keeps an overwritten file's mode", async () => {
    const t = setup({ "run.sh": "#!/bin/sh\n" });
    chmodSync(join(t.dir, "run.sh"), 0o755);
    await t.read("run.sh");
    await t.write("run.sh", "#!/bin/sh\necho hi\n");
    expect(statSync(join(t.dir, "run.sh")).mode & 0o777).toBe(0o755);
  });

  it("refuses to write over a directory", async () => {
    const t = setup({ "d/x.txt": "" });
    expect(await failure(t.write("d", "text"))).toContain("d is a directory");
  });
});
