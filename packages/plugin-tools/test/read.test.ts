import { createWriteStream, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { createReadTool, createToolState } from "../src/index.js";
import { failure, run, tempDir, toolContext } from "./helpers.js";

// A 1×1 transparent PNG.
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=", "base64");

function setup(files: Record<string, string | Buffer> = {}) {
  const dir = tempDir();
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  const state = createToolState();
  return { dir, state, tool: createReadTool({ state }), ctx: toolContext(dir) };
}

const lines = (n: number, make = (i: number) => `line ${i}`) => Array.from({ length: n }, (_, i) => make(i + 1)).join("\n") + "\n";

/** Writes a file of about `mb` megabytes, 64-byte lines, without holding it in memory. */
async function bigFile(path: string, mb: number, singleLine = false): Promise<number> {
  const stream = createWriteStream(path);
  const lineText = "x".repeat(58);
  let lineNo = 0;
  for (let chunk = 0; chunk < mb; chunk++) {
    let text = "";
    if (singleLine) text = "y".repeat(1024 * 1024);
    else for (let i = 0; i < 16384; i++) text += `${String(++lineNo).padStart(5, "0")}${lineText}\n`;
    if (!stream.write(text)) await once(stream, "drain");
  }
  stream.end();
  await once(stream, "finish");
  return lineNo;
}

describe("read", () => {
  it("shows a file as numbered lines with an end-of-file note", async () => {
    const { tool, ctx } = setup({ "a.txt": "alpha\nbeta\n" });
    const result = await run(tool, { filePath: "a.txt" }, ctx);
    expect(result.output).toBe("00001| alpha\n00002| beta\n\n(End of file: 2 lines.)");
  });

  it("reads the window given by offset (1-based) and limit, and says how to read on", async () => {
    const { tool, ctx } = setup({ "a.txt": lines(10) });
    const result = await run(tool, { filePath: "a.txt", offset: 4, limit: 3 }, ctx);
    expect(result.output).toBe("00004| line 4\n00005| line 5\n00006| line 6\n\n(Lines 4-6 shown; the file has more. Use offset=7 to read on.)");
  });

  it("stops at 2,000 lines and tells the model to use offset=2001", async () => {
    const { tool, ctx } = setup({ "a.txt": lines(2500) });
    const result = await run(tool, { filePath: "a.txt" }, ctx);
    const shown = result.output.split("\n").filter((l) => /^\d{5}\| /.test(l));
    expect(shown).toHaveLength(2000);
    expect(result.output).toContain("Use offset=2001 to read on.");
  });

  it("a limit over 2,000 is held to 2,000", async () => {
    const { tool, ctx } = setup({ "a.txt": lines(2500) });
    const result = await run(tool, { filePath: "a.txt", limit: 5000 }, ctx);
    expect(result.output.split("\n").filter((l) => /^\d{5}\| /.test(l))).toHaveLength(2000);
  });

  it("cuts lines longer than 2,000 characters and says so", async () => {
    const { tool, ctx } = setup({ "a.txt": `short\n${"z".repeat(5000)}\nend\n` });
    const result = await run(tool, { filePath: "a.txt" }, ctx);
    const long = result.output.split("\n")[1]!;
    expect(long.startsWith(`00002| ${"z".repeat(2000)}…`)).toBe(true);
    expect(long).not.toContain("z".repeat(2001));
    expect(result.output).toContain("1 line longer than 2000 characters was cut");
  });

  it("caps the output at 50 KB and says which offset to read on from", async () => {
    const { tool, ctx } = setup({ "a.txt": lines(1500, (i) => `${i} ${"w".repeat(100)}`) });
    const result = await run(tool, { filePath: "a.txt" }, ctx);
    expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(50 * 1024 + 200);
    const last = result.output.split("\n").filter((l) => /^\d{5}\| /.test(l)).length;
    expect(last).toBeLessThan(1500);
    expect(result.output).toContain(`Output capped at 50 KB after line ${last}. Use offset=${last + 1} to read on.`);
  });

  it("refuses a binary file clearly", async () => {
    const { tool, ctx } = setup({ "blob.dat2": Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x01, 0x02, 0x00, 0x00]) });
    const message = await failure(run(tool, { filePath: "blob.dat2" }, ctx));
    expect(message).toMatch(/blob\.dat2 is a binary file/);
  });

  it("returns an image as an attachment with a data URL", async () => {
    const { tool, ctx } = setup({ "pixel.png": PNG });
    const result = await run(tool, { filePath: "pixel.png" }, ctx);
    expect(result.attachments).toEqual([{ mediaType: "image/png", url: `data:image/png;base64,${PNG.toString("base64")}`, filename: "pixel.png" }]);
    expect(result.output).toContain("Image pixel.png (image/png");
  });

  it("lists a directory instead of reading it", async () => {
    const { tool, ctx } = setup({ "src/b.ts": "", "src/a.ts": "", "src/lib/c.ts": "" });
    const result = await run(tool, { filePath: "src" }, ctx);
    expect(result.output).toBe("src is a directory with 3 entries:\na.ts\nb.ts\nlib/");
  });

  it("suggests close names for a missing file", async () => {
    const { tool, ctx } = setup({ "src/config.ts": "", "src/other.ts": "" });
    const message = await failure(run(tool, { filePath: "src/confg.ts" }, ctx));
    expect(message).toBe("File not found: src/confg.ts. Did you mean: src/config.ts?");
  });

  it("says when the offset is past the end of the file", async () => {
    const { tool, ctx } = setup({ "a.txt": lines(3) });
    expect(await failure(run(tool, { filePath: "a.txt", offset: 10 }, ctx))).toContain("offset 10 is past the end of a.txt, which has 3 lines");
  });

  it("says a file is empty", async () => {
    const { tool, ctx } = setup({ "empty.txt": "" });
    expect((await run(tool, { filePath: "empty.txt" }, ctx)).output).toBe("empty.txt is empty.");
  });

  it("shows CRLF lines without the carriage return and a BOM-led first line without the BOM", async () => {
    const { tool, ctx } = setup({ "w.txt": "\uFEFFone\r\ntwo\r\n" });
    expect((await run(tool, { filePath: "w.txt" }, ctx)).output).toBe("00001| one\n00002| two\n\n(End of file: 2 lines.)");
  });

  it("records the read (time, size, mtime) for the session and file", async () => {
    const { tool, ctx, state, dir } = setup({ "a.txt": "x\n" });
    expect(state.files.get("ses_test", join(dir, "a.txt"))).toBeUndefined();
    const before = Date.now();
    await run(tool, { filePath: "a.txt" }, ctx);
    const record = state.files.get("ses_test", join(dir, "a.txt"));
    expect(record?.size).toBe(2n);
    expect(record!.time).toBeGreaterThanOrEqual(before);
    expect(state.files.get("ses_other", join(dir, "a.txt"))).toBeUndefined();
  });

  describe("a 100 MB file", () => {
    it("reads its first lines fast, without loading it", async () => {
      const { tool, ctx, dir } = setup();
      await bigFile(join(dir, "big.txt"), 100);
      const heap = process.memoryUsage();
      const started = performance.now();
      const result = await run(tool, { filePath: "big.txt" }, ctx);
      const ms = performance.now() - started;
      const grown = process.memoryUsage().rss - heap.rss;
      expect(result.output.startsWith("00001| 00001xxx")).toBe(true);
      expect(result.output).toContain("Use offset=");
      expect(ms).toBeLessThan(1_000);
      expect(grown).toBeLessThan(40 * 1024 * 1024);
    });

    it("reads lines near its end by streaming, not by loading it", async () => {
      const { tool, ctx, dir } = setup();
      const total = await bigFile(join(dir, "big.txt"), 100);
      const heap = process.memoryUsage();
      const result = await run(tool, { filePath: "big.txt", offset: total - 1 }, ctx);
      const grown = process.memoryUsage().rss - heap.rss;
      expect(result.output).toContain(`(End of file: ${total} lines.)`);
      expect(result.output.split("\n")[0]).toMatch(new RegExp(`^${total - 1}\\| `));
      expect(grown).toBeLessThan(40 * 1024 * 1024);
    });

    it("reads a single 100 MB line as one cut line", async () => {
      const { tool, ctx, dir } = setup();
      await bigFile(join(dir, "one.txt"), 100, true);
      const heap = process.memoryUsage();
      const result = await run(tool, { filePath: "one.txt" }, ctx);
      const grown = process.memoryUsage().rss - heap.rss;
      expect(result.output.split("\n")[0]!.length).toBeLessThan(2100);
      expect(result.output).toContain("(End of file: 1 line.)");
      expect(grown).toBeLessThan(40 * 1024 * 1024);
    });
  });
});
