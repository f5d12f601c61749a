import { describe, expect, it } from "vitest";
import { LineBudget, truncateLine, truncateOutput } from "../src/index.js";

const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n");

describe("the shared truncation helper", () => {
  it("leaves output within the limits alone", () => {
    expect(truncateOutput("a\nb", { maxLines: 5, maxBytes: 100 })).toEqual({ text: "a\nb", truncated: false, omittedLines: 0, omittedBytes: 0 });
  });

  it("keeps the head and says how much was left out", () => {
    const result = truncateOutput(numbered(10), { maxLines: 3, maxBytes: 1000, hint: "Use offset." });
    expect(result.text).toBe("line 1\nline 2\nline 3\n\n(Output truncated: 7 more lines, 50 B omitted. Use offset.)");
    expect(result.omittedLines).toBe(7);
  });

  it("keeps head and tail for command output", () => {
    const result = truncateOutput(numbered(10), { maxLines: 4, maxBytes: 1000, keep: "head-tail", hint: "Full output: /tmp/x." });
    expect(result.text).toBe("line 1\nline 2\n\n… 6 lines (43 B) omitted … Full output: /tmp/x.\n\nline 9\nline 10");
  });

  it("cuts by bytes too, never inside a character", () => {
    const result = truncateOutput("ééééé", { maxLines: 10, maxBytes: 5 });
    expect(result.text.startsWith("éé\n")).toBe(true);
    expect(result.truncated).toBe(true);
  });

  it("reports the whole size when given only part of a larger output", () => {
    const result = truncateOutput("head\ntail", { maxLines: 100, maxBytes: 1000, keep: "head-tail", total: { bytes: 10_000_000, lines: 500_000 } });
    expect(result.text).toContain("… 499998 lines (9.5 MB) omitted …");
  });

  it("cuts a long line and says by how much", () => {
    expect(truncateLine("abcdefgh", 3)).toBe("abc… (5 more chars)");
  });

  it("a line budget stops at its line or byte limit and says which", () => {
    const lines = new LineBudget({ maxLines: 2, maxBytes: 100 });
    expect([lines.push("a"), lines.push("b"), lines.push("c")]).toEqual([true, true, false]);
    expect(lines.full).toBe("lines");
    const bytes = new LineBudget({ maxLines: 100, maxBytes: 5 });
    expect([bytes.push("abc"), bytes.push("def")]).toEqual([true, false]);
    expect(bytes.full).toBe("bytes");
  });
});
