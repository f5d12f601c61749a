import { chmodSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createEditTool, createReadTool, createToolState, findMatches } from "../src/index.js";
import { failure, run, tempDir, toolContext, writeTree } from "./helpers.js";

function setup(files: Record<string, string | Buffer>) {
  const dir = tempDir();
  writeTree(dir, files);
  const state = createToolState();
  const ctx = toolContext(dir);
  const read = createReadTool({ state });
  const edit = createEditTool({ state });
  return {
    dir,
    ctx,
    state,
    edit: (args: Record<string, unknown>) => run(edit, args, ctx),
    read: (filePath: string) => run(read, { filePath }, ctx),
    bytes: (name: string) => readFileSync(join(dir, name)),
    text: (name: string) => readFileSync(join(dir, name), "utf8"),
  };
}

describe("edit", () => {
  it("replaces the one exact occurrence and returns a unified diff", async () => {
    const t = setup({ "a.ts": "const a = 1;\nconst b = 2;\n" });
    await t.read("a.ts");
    const result = await t.edit({ filePath: "a.ts", oldString: "const b = 2;", newString: "const b = 3;" });
    expect(t.text("a.ts")).toBe("const a = 1;\nconst b = 3;\n");
    expect(result.output).toBe("Edited a.ts: 1 replacement.");
    expect(result.metadata?.diff).toBe("--- a.ts\n+++ a.ts\n@@ -1,2 +1,2 @@\n const a = 1;\n-const b = 2;\n+const b = 3;\n");
    expect(result.metadata).toMatchObject({ additions: 1, deletions: 1, replacements: 1, matcher: "exact" });
  });

  it("refuses an oldString that occurs twice, naming the lines and the way out, and leaves the file as it was", async () => {
    const t = setup({ "a.ts": "x = 1\ny = 2\nx = 1\n" });
    await t.read("a.ts");
    const before = t.bytes("a.ts");
    const message = await failure(t.edit({ filePath: "a.ts", oldString: "x = 1", newString: "x = 9" }));
    expect(message).toBe(
      "oldString matches 2 places in a.ts (lines 1, 3). Add more context (surrounding lines) to oldString so it matches only one, or set replaceAll to change all of them.",
    );
    expect(t.bytes("a.ts").equals(before)).toBe(true);
  });

  it("replaces every occurrence with replaceAll", async () => {
    const t = setup({ "a.ts": "x = 1\ny = 2\nx = 1\n" });
    await t.read("a.ts");
    const result = await t.edit({ filePath: "a.ts", oldString: "x = 1", newString: "x = 9", replaceAll: true });
    expect(t.text("a.ts")).toBe("x = 9\ny = 2\nx = 9\n");
    expect(result.output).toBe("Edited a.ts: 2 replacements.");
  });

  it("refuses identical oldString and newString", async () => {
    const t = setup({ "a.ts": "x\n" });
    await t.read("a.ts");
    expect(await failure(t.edit({ filePath: "a.ts", oldString: "x", newString: "x" }))).toContain("oldString and newString are identical");
  });

  it("says when oldString is not found, shows the closest line, and leaves the file as it was", async () => {
    const t = setup({ "a.ts": "function add(a, b) {\n  return a + b;\n}\n" });
    await t.read("a.ts");
    const before = t.bytes("a.ts");
    const message = await failure(t.edit({ filePath: "a.ts", oldString: "function sum(a, b) {", newString: "function plus(a, b) {" }));
    expect(message).toContain("oldString was not found in a.ts");
    expect(message).toContain("Read the file again");
    expect(message).toContain("The closest line is 1: function add(a, b) {");
    expect(t.bytes("a.ts").equals(before)).toBe(true);
  });

  it("keeps a CRLF file CRLF, new lines included", async () => {
    const t = setup({ "w.txt": "one\r\ntwo\r\nthree\r\n" });
    await t.read("w.txt");
    await t.edit({ filePath: "w.txt", oldString: "one\ntwo", newString: "one\ntwo and a half\n2.75" });
    expect(t.text("w.txt")).toBe("one\r\ntwo and a half\r\n2.75\r\nthree\r\n");
  });

  it("keeps a byte-order mark", async () => {
    const t = setup({ "b.txt": "\uFEFFhello world\n" });
    await t.read("b.txt");
    await t.edit({ filePath: "b.txt", oldString: "hello", newString: "goodbye" });
    expect([...t.bytes("b.txt").subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(t.text("b.txt")).toBe("\uFEFFgoodbye world\n");
  });

  it("inserts $&, $1, $$ and $' in newString literally", async () => {
    const t = setup({ "p.js": "const price = PRICE;\n" });
    await t.read("p.js");
    await t.edit({ filePath: "p.js", oldString: "PRICE", newString: "'$&' + '$1' + '$$' + \"$'\"" });
    expect(t.text("p.js")).toBe("const price = '$&' + '$1' + '$$' + \"$'\";\n");
  });

  it("refuses to edit a file changed on disk since it was read, and leaves the change alone", async () => {
    const t = setup({ "a.ts": "let v = 1;\n" });
    await t.read("a.ts");
    writeFileSync(join(t.dir, "a.ts"), "let v = 1; // edited by the user\n");
    const message = await failure(t.edit({ filePath: "a.ts", oldString: "let v = 1;", newString: "let v = 2;" }));
    expect(message).toContain("a.ts was modified since you read it");
    expect(message).toContain("Read it again");
    expect(t.text("a.ts")).toBe("let v = 1; // edited by the user\n");
  });

  it("notices a change that keeps the size (a newer modification time)", async () => {
    const t = setup({ "a.ts": "aaa\n" });
    await t.read("a.ts");
    writeFileSync(join(t.dir, "a.ts"), "bbb\n");
    const later = new Date(Date.now() + 5_000);
    utimesSync(join(t.dir, "a.ts"), later, later);
    expect(await failure(t.edit({ filePath: "a.ts", oldString: "bbb", newString: "ccc" }))).toContain("was modified since you read it");
  });

  it("refuses to edit a file this session has not read", async () => {
    const t = setup({ "a.ts": "x\n" });
    const message = await failure(t.edit({ filePath: "a.ts", oldString: "x", newString: "y" }));
    expect(message).toContain("You must read a.ts before changing it");
    expect(t.text("a.ts")).toBe("x\n");
  });

  it("can edit again after its own edit without another read", async () => {
    const t = setup({ "a.ts": "one two\n" });
    await t.read("a.ts");
    await t.edit({ filePath: "a.ts", oldString: "one", newString: "1" });
    await t.edit({ filePath: "a.ts", oldString: "two", newString: "2" });
    expect(t.text("a.ts")).toBe("1 2\n");
  });

  it("creates a new file (and its directories) from an empty oldString", async () => {
    const t = setup({});
    const result = await t.edit({ filePath: "src/new/file.ts", oldString: "", newString: "export {};\n" });
    expect(t.text("src/new/file.ts")).toBe("export {};\n");
    expect(result.output).toBe("Created src/new/file.ts (1 line).");
    expect(result.metadata?.diff).toContain("+export {};");
  });

  it("refuses an empty oldString on a file that has content", async () => {
    const t = setup({ "a.ts": "x\n" });
    await t.read("a.ts");
    expect(await failure(t.edit({ filePath: "a.ts", oldString: "", newString: "y" }))).toContain("oldString is empty but a.ts already has content");
  });

  it("keeps the file's mode and leaves no temp file behind", async () => {
    const t = setup({ "run.sh": "#!/bin/sh\necho hi\n" });
    chmodSync(join(t.dir, "run.sh"), 0o750);
    await t.read("run.sh");
    await t.edit({ filePath: "run.sh", oldString: "echo hi", newString: "echo bye" });
    expect(statSync(join(t.dir, "run.sh")).mode & 0o777).toBe(0o750);
    expect(readdirSync(t.dir)).toEqual(["run.sh"]);
  });

  it("serialises concurrent edits of one file, so none is lost", async () => {
    const markers = Array.from({ length: 12 }, (_, i) => `<m${i}>`);
    const t = setup({ "a.txt": `${markers.join("\n")}\n` });
    await t.read("a.txt");
    await Promise.all(markers.map((m) => t.edit({ filePath: "a.txt", oldString: m, newString: `${m}-done` })));
    expect(t.text("a.txt")).toBe(`${markers.map((m) => `${m}-done`).join("\n")}\n`);
  });

  describe("tolerant matching, after exact matching fails", () => {
    it("ignores trailing whitespace (trimmed lines)", async () => {
      const t = setup({ "a.py": "def f():   \n    return 1  \n" });
      await t.read("a.py");
      const result = await t.edit({ filePath: "a.py", oldString: "def f():\n    return 1\n", newString: "def f():\n    return 2\n" });
      expect(t.text("a.py")).toBe("def f():\n    return 2\n");
      expect(result.metadata?.matcher).toBe("trimmed-lines");
    });

    it("ignores runs of spaces inside lines (normalised whitespace)", async () => {
      const t = setup({ "a.ts": "if (a  &&   b) {\n  go();\n}\n" });
      await t.read("a.ts");
      const result = await t.edit({ filePath: "a.ts", oldString: "if (a && b) {\n  go();", newString: "if (a || b) {\n  go();" });
      expect(t.text("a.ts")).toBe("if (a || b) {\n  go();\n}\n");
      expect(result.metadata?.matcher).toBe("normalized-whitespace");
    });

    it("matches a block indented differently and re-indents the new text (flexible indentation)", async () => {
      const t = setup({ "a.ts": "class A {\n    run() {\n        step();\n    }\n}\n" });
      await t.read("a.ts");
      const result = await t.edit({ filePath: "a.ts", oldString: "run() {\n    step();\n}", newString: "run() {\n    step();\n    again();\n}" });
      expect(t.text("a.ts")).toBe("class A {\n    run() {\n        step();\n        again();\n    }\n}\n");
      expect(result.metadata?.matcher).toBe("flexible-indentation");
    });

    it("matches a block by its first and last lines when a middle line differs (block anchors)", async () => {
      const t = setup({ "a.ts": "function f() {\n  const a = 1;\n  const b = 2;\n  const c = 3;\n  return a + b + c;\n}\n" });
      await t.read("a.ts");
      const result = await t.edit({
        filePath: "a.ts",
        oldString: "function f() {\n  const a = 1;\n  const b = 20;\n  const c = 3;\n  return a + b + c;\n}",
        newString: "function f() {\n  return 6;\n}",
      });
      expect(t.text("a.ts")).toBe("function f() {\n  return 6;\n}\n");
      expect(result.metadata?.matcher).toBe("block-anchors");
    });

    it("tries the matchers in order: exact wins over a looser match elsewhere", () => {
      const content = "a  b\na b\n";
      expect(findMatches(content, "a b", "x")).toMatchObject({ matcher: "exact", matches: [{ start: 5, end: 8 }] });
    });

    it("treats several tolerant matches as ambiguous", async () => {
      const t = setup({ "a.ts": "x  = 1\ny\nx   = 1\n" });
      await t.read("a.ts");
      expect(await failure(t.edit({ filePath: "a.ts", oldString: "x = 1", newString: "x = 2" }))).toContain("oldString matches 2 places in a.ts (lines 1, 3)");
    });
  });
});
