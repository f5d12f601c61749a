import { mkdirSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createGlobTool, createGrepTool, createListTool } from "../src/index.js";
import { ripgrepOnPath } from "../src/util/ripgrep.js";
import { run, tempDir, toolContext, writeTree } from "./helpers.js";

const rg = ripgrepOnPath();
/** Both engines when ripgrep is installed; the built-in one always (forced, whatever PATH holds). */
const engines: Array<[string, string | false]> = [["built-in", false], ...(rg ? ([["ripgrep", rg]] as Array<[string, string]>) : [])];

function project() {
  const dir = tempDir();
  mkdirSync(join(dir, ".git"));
  writeTree(dir, {
    ".gitignore": "ignored/\n*.log\n!keep.log\n",
    "src/a.ts": "const foo = 1;\nfoo();\n",
    "src/b.js": "// foo bar\n",
    "src/nested/.gitignore": "secret.ts\n",
    "src/nested/secret.ts": "foo secret\n",
    "src/nested/c.ts": "let foo;\r\nlet FOO;\r\n",
    "ignored/x.ts": "foo ignored\n",
    "debug.log": "foo log\n",
    "keep.log": "foo kept\n",
    ".hidden/h.ts": "foo hidden\n",
    "bin.dat": Buffer.from("foo\0binary"),
    "README.md": "nothing to see\n",
  });
  return dir;
}

describe("grep", () => {
  for (const [name, engine] of engines) {
    describe(`with the ${name} engine`, () => {
      const grep = createGrepTool({ ripgrep: engine });

      it("groups matching lines by file, in path order, honouring .gitignore and skipping hidden and binary files", async () => {
        const dir = project();
        const result = await run(grep, { pattern: "foo" }, toolContext(dir));
        expect(result.output).toBe(
          ["5 matches in 4 files", "keep.log:", "  1: foo kept", "src/a.ts:", "  1: const foo = 1;", "  2: foo();", "src/b.js:", "  1: // foo bar", "src/nested/c.ts:", "  1: let foo;"].join("\n"),
        );
        expect(result.metadata?.engine).toBe(name);
      });

      it("filters files with include and searches under path", async () => {
        const dir = project();
        const result = await run(grep, { pattern: "^let", include: "*.ts", path: "src" }, toolContext(dir));
        expect(result.output).toBe("2 matches in 1 file\nsrc/nested/c.ts:\n  1: let foo;\n  2: let FOO;");
      });

      it("an include glob does not bring back files .gitignore leaves out", async () => {
        const dir = project();
        for (const include of ["*.ts", "src/**/*.ts"]) {
          const result = await run(grep, { pattern: "foo", include }, toolContext(dir));
          expect(result.output).toBe("3 matches in 2 files\nsrc/a.ts:\n  1: const foo = 1;\n  2: foo();\nsrc/nested/c.ts:\n  1: let foo;");
        }
      });

      it("says when nothing matches", async () => {
        const dir = project();
        expect((await run(grep, { pattern: "zzz_nope" }, toolContext(dir))).output).toBe('No matches for "zzz_nope" in ..');
      });

      it("caps the matches and says how many there were", async () => {
        const dir = tempDir();
        writeTree(dir, Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${String(i).padStart(2, "0")}.txt`, "hit\nhit\n"])));
        const capped = createGrepTool({ ripgrep: engine, options: { grep: { maxMatches: 5 } } });
        const result = await run(capped, { pattern: "hit" }, toolContext(dir));
        expect(result.output).toBe(
          "60 matches in 30 files\nf00.txt:\n  1: hit\n  2: hit\nf01.txt:\n  1: hit\n  2: hit\nf02.txt:\n  1: hit\n\n(Showing the first 5 of 60 matches, in path order. Narrow the pattern, path or include to see the rest.)",
        );
      });
    });
  }

  it.skipIf(!rg)("ripgrep and the built-in search give the same output on the same tree", async () => {
    const dir = project();
    const viaRg = createGrepTool({ ripgrep: rg! });
    const viaJs = createGrepTool({ ripgrep: false });
    const cases = [{ pattern: "foo" }, { pattern: "^foo" }, { pattern: "(?i)FOO" }, { pattern: "foo", include: "*.ts" }, { pattern: "foo", include: "src/**" }, { pattern: "foo", include: "!*.ts" }, { pattern: "foo", include: "*.{js,log}" }, { pattern: "o", path: "src" }, { pattern: "b.r|se.ret" }, { pattern: "foo", path: "src/a.ts" }];
    for (const args of cases) {
      const a = await run(viaRg, args, toolContext(dir));
      const b = await run(viaJs, args, toolContext(dir));
      expect({ args, output: b.output }).toEqual({ args, output: a.output });
    }
  });

  it("reports an invalid regular expression clearly (built-in engine)", async () => {
    const dir = project();
    await expect(run(createGrepTool({ ripgrep: false }), { pattern: "foo(" }, toolContext(dir))).rejects.toThrow(/Invalid regular expression "foo\("/);
  });
});

describe("glob", () => {
  for (const [name, engine] of engines) {
    describe(`with the ${name} engine`, () => {
      const glob = createGlobTool({ ripgrep: engine });

      it("finds files newest first, honouring .gitignore and skipping hidden files", async () => {
        const dir = project();
        const now = Date.now() / 1000;
        utimesSync(join(dir, "src/a.ts"), now - 300, now - 300);
        utimesSync(join(dir, "src/nested/c.ts"), now - 100, now - 100);
        const result = await run(glob, { pattern: "**/*.ts" }, toolContext(dir));
        expect(result.output).toBe("src/nested/c.ts\nsrc/a.ts");
      });

      it("matches a pattern without a slash at any depth, under path", async () => {
        const dir = project();
        const result = await run(glob, { pattern: "*.js", path: "src" }, toolContext(dir));
        expect(result.output).toBe("src/b.js");
      });

      it("caps the list and says how many files matched", async () => {
        const dir = tempDir();
        writeTree(dir, Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`f${i}.txt`, ""])));
        const capped = createGlobTool({ ripgrep: engine, options: { glob: { maxResults: 10 } } });
        const result = await run(capped, { pattern: "*.txt" }, toolContext(dir));
        expect(result.output.split("\n").filter((l) => l.endsWith(".txt"))).toHaveLength(10);
        expect(result.output).toContain("(Showing the 10 newest of 12 files.");
      });
    });
  }
});

describe("list", () => {
  it("shows a tree, skipping node_modules, dist and other build output, and ignored files", async () => {
    const dir = project();
    writeTree(dir, { "node_modules/x/index.js": "", "dist/out.js": "", "coverage/lcov.info": "", "src/lib/util.ts": "" });
    const result = await run(createListTool(), {}, toolContext(dir));
    expect(result.output).toBe(
      [`${dir}/`, "  src/", "    lib/", "      util.ts", "    nested/", "      c.ts", "    a.ts", "    b.js", "  README.md", "  bin.dat", "  keep.log"].join("\n"),
    );
  });

  it("leaves out what the ignore globs match", async () => {
    const dir = project();
    const result = await run(createListTool(), { path: "src", ignore: ["*.js", "nested"] }, toolContext(dir));
    expect(result.output).toBe("src/\n  a.ts");
  });

  it("caps the entries, level by level, with a note", async () => {
    const dir = tempDir();
    writeTree(dir, { "a/deep/x.txt": "", "b.txt": "", "c.txt": "", "d/y.txt": "" });
    const result = await run(createListTool({ options: { list: { maxEntries: 4 } } }), {}, toolContext(dir));
    expect(result.output).toBe(`${dir}/\n  a/\n  d/\n  b.txt\n  c.txt\n\n(Showing the first 4 entries, level by level. List a subdirectory or use glob to see more.)`);
  });
});
