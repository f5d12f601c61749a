import { existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createPatchTool, createReadTool, createToolState, parsePatch, type CommitHook } from "../src/index.js";
import { failure, run, tempDir, toolContext, writeTree } from "./helpers.js";

function setup(files: Record<string, string>, commitHook?: CommitHook) {
  const dir = tempDir();
  writeTree(dir, files);
  const state = createToolState();
  const ctx = toolContext(dir);
  const read = createReadTool({ state });
  const patch = createPatchTool({ state, ...(commitHook ? { commitHook } : {}) });
  const snapshot = () => Object.fromEntries(readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => [join(e.parentPath, e.name).slice(dir.length + 1), readFileSync(join(e.parentPath, e.name), "utf8")]));
  return {
    dir,
    ctx,
    patch: (patchText: string) => run(patch, { patchText }, ctx),
    permission: (patchText: string) => patch.permission!({ patchText }, { directory: dir }),
    read: async (...names: string[]) => {
      for (const filePath of names) await run(read, { filePath }, ctx);
    },
    text: (name: string) => readFileSync(join(dir, name), "utf8"),
    snapshot,
  };
}

const patchOf = (...body: string[]) => ["*** Begin Patch", ...body, "*** End Patch"].join("\n");

describe("patch", () => {
  it("adds, updates, moves and deletes files in one call", async () => {
    const t = setup({ "app.py": "def greet():\n    print('Hi')\n\ngreet()\n", "old.txt": "bye\n", "util.py": "x = 1\ny = 2\n" });
    await t.read("app.py", "old.txt", "util.py");
    const result = await t.patch(
      patchOf(
        "*** Add File: docs/hello.txt",
        "+Hello",
        "+world",
        "*** Update File: app.py",
        "@@ def greet():",
        "-    print('Hi')",
        "+    print('Hello, world!')",
        "*** Update File: util.py",
        "*** Move to: lib/util.py",
        "@@",
        " x = 1",
        "-y = 2",
        "+y = 3",
        "*** Delete File: old.txt",
      ),
    );
    expect(t.snapshot()).toEqual({
      "docs/hello.txt": "Hello\nworld\n",
      "app.py": "def greet():\n    print('Hello, world!')\n\ngreet()\n",
      "lib/util.py": "x = 1\ny = 3\n",
    });
    expect(result.output).toBe("Patch applied:\nA docs/hello.txt\nM app.py\nR util.py -> lib/util.py\nD old.txt");
    expect(result.metadata?.diff).toContain("+    print('Hello, world!')");
  });

  it("asks one edit permission per file, moved-to paths included", async () => {
    const t = setup({});
    const asked = await t.permission(patchOf("*** Add File: a.txt", "+a", "*** Update File: src/b.ts", "*** Move to: src/c.ts", "@@", "-x", "+y", "*** Delete File: ../outside.txt"));
    expect(asked).toEqual([
      { permission: "edit", patterns: ["a.txt"], metadata: { filepath: join(t.dir, "a.txt") } },
      { permission: "edit", patterns: ["src/b.ts"], metadata: { filepath: join(t.dir, "src/b.ts") } },
      { permission: "edit", patterns: ["src/c.ts"], metadata: { filepath: join(t.dir, "src/c.ts") } },
      { permission: "edit", patterns: ["../outside.txt"], metadata: { filepath: join(t.dir, "../outside.txt") } },
    ]);
  });

  it("changes nothing when one hunk does not apply", async () => {
    const t = setup({ "a.txt": "one\ntwo\n", "b.txt": "three\nfour\n" });
    await t.read("a.txt", "b.txt");
    const before = t.snapshot();
    const message = await failure(t.patch(patchOf("*** Add File: c.txt", "+new", "*** Update File: a.txt", "@@", "-one", "+ONE", "*** Delete File: a.txt")));
    expect(message).toContain("changes a.txt more than once");
    const message2 = await failure(t.patch(patchOf("*** Add File: c.txt", "+new", "*** Update File: a.txt", "@@", "-one", "+ONE", "*** Update File: b.txt", "@@", "-five", "+FIVE")));
    expect(message2).toContain("chunk 1 of b.txt: these lines were not found in the file:\nfive");
    expect(t.snapshot()).toEqual(before);
  });

  it("rolls back the files already written when a later write fails", async () => {
    const hook: CommitHook = (step) => {
      if (step === 2) throw new Error("disk full");
    };
    const t = setup({ "a.txt": "one\n", "b.txt": "two\n", "c.txt": "three\n" }, hook);
    await t.read("a.txt", "b.txt", "c.txt");
    const before = t.snapshot();
    const message = await failure(
      t.patch(patchOf("*** Update File: a.txt", "-one", "+ONE", "*** Delete File: b.txt", "*** Add File: new/dir/d.txt", "+four", "*** Update File: c.txt", "-three", "+THREE")),
    );
    expect(message).toBe("disk full");
    expect(t.snapshot()).toEqual(before);
    expect(existsSync(join(t.dir, "new"))).toBe(false);
    expect(readdirSync(t.dir).sort()).toEqual(["a.txt", "b.txt", "c.txt"]);
  });

  it("deletes a symbolic link itself, not the file it points to", async () => {
    const t = setup({ "target.txt": "keep me\n" });
    symlinkSync(join(t.dir, "target.txt"), join(t.dir, "link.txt"));
    await t.patch(patchOf("*** Delete File: link.txt"));
    expect(existsSync(join(t.dir, "link.txt"))).toBe(false);
    expect(t.text("target.txt")).toBe("keep me\n");
  });

  it("refuses to add a file that exists, or update a file that does not", async () => {
    const t = setup({ "a.txt": "x\n" });
    expect(await failure(t.patch(patchOf("*** Add File: a.txt", "+y")))).toContain('a.txt already exists; use "*** Update File: a.txt"');
    expect(await failure(t.patch(patchOf("*** Update File: nope.txt", "-x", "+y")))).toContain("nope.txt does not exist");
  });

  it("refuses to update a file changed since it was read", async () => {
    const t = setup({ "a.txt": "x\n" });
    await t.read("a.txt");
    writeFileSync(join(t.dir, "a.txt"), "x\nmore\n");
    expect(await failure(t.patch(patchOf("*** Update File: a.txt", "-x", "+y")))).toContain("a.txt was modified since you read it");
    expect(t.text("a.txt")).toBe("x\nmore\n");
  });

  it("keeps a CRLF file CRLF and tolerates trailing whitespace in context", async () => {
    const t = setup({ "w.txt": "a  \r\nb\r\nc\r\n" });
    await t.read("w.txt");
    await t.patch(patchOf("*** Update File: w.txt", "@@", " a", "-b", "+B", " c"));
    expect(t.text("w.txt")).toBe("a  \r\nB\r\nc\r\n");
  });

  it("reports a malformed patch before touching anything", async () => {
    const t = setup({});
    expect(await failure(t.patch("*** Update File: a.txt\n-x\n+y"))).toContain('Invalid patch: the first line must be "*** Begin Patch"');
    expect(await failure(t.patch(patchOf("*** Frobnicate File: a.txt")))).toContain('expected "*** Add File:"');
    expect(existsSync(join(t.dir, "a.txt"))).toBe(false);
  });

  it("parses @@ context, *** End of File and moves", () => {
    expect(parsePatch(patchOf("*** Update File: a", "*** Move to: b", "@@ class A", " keep", "-old", "+new", "*** End of File"))).toEqual([
      {
        type: "update",
        path: "a",
        moveTo: "b",
        chunks: [{ context: "class A", lines: [{ kind: " ", text: "keep" }, { kind: "-", text: "old" }, { kind: "+", text: "new" }], eof: true }],
      },
    ]);
  });
});
