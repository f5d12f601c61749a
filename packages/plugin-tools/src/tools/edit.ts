import { readFile, stat } from "node:fs/promises";
import { defineTool } from "@tessera/kernel";
import { z } from "zod";
import { countLines, plural, toolDeps, type ToolDepsInput } from "../shared.js";
import { unifiedDiff } from "../util/diff.js";
import { atomicWrite, errorCode, looksBinary } from "../util/fs.js";
import { withLocks } from "../util/lock.js";
import { displayPath, filePermission, realPathOr, resolvePath } from "../util/paths.js";
import { didYouMean } from "./read.js";
import { applyMatches, findMatches } from "./replace.js";

export const EditParameters = z.object({
  filePath: z.string().describe("File path, absolute or relative to the project"),
  oldString: z.string().describe("Exact text to replace; empty to create a new file"),
  newString: z.string().describe("Replacement text"),
  replaceAll: z.boolean().optional().describe("Replace every occurrence"),
});

/** A file's text as the edit tool handles it: without BOM, with LF line endings when the file uses CRLF throughout. */
export interface DecodedText {
  readonly text: string;
  readonly bom: boolean;
  readonly crlf: boolean;
}

/** Decodes a file for editing; throws when it is binary or not valid UTF-8 (an edit would corrupt it). */
export function decodeText(raw: Buffer, shown: string): DecodedText {
  if (looksBinary(raw.subarray(0, 8192))) throw new Error(`${shown} is a binary file; it cannot be edited as text.`);
  let text = raw.toString("utf8");
  if (!Buffer.from(text, "utf8").equals(raw)) {
    throw new Error(`${shown} is not valid UTF-8; editing it as text would corrupt it. Use bash to change it.`);
  }
  const bom = text.startsWith("\uFEFF");
  if (bom) text = text.slice(1);
  // CRLF throughout: every \n is preceded by \r. A file mixing both is edited as it is.
  const lf = (text.match(/\n/g) ?? []).length;
  const crlf = lf > 0 && (text.match(/\r\n/g) ?? []).length === lf;
  return { text: crlf ? text.replaceAll("\r\n", "\n") : text, bom, crlf };
}

/** The bytes to write for `text` in the file's original form (BOM and line endings restored). */
export function encodeText(text: string, form: { bom: boolean; crlf: boolean }): string {
  const body = form.crlf ? text.replaceAll("\r\n", "\n").replaceAll("\n", "\r\n") : text;
  return form.bom ? `\uFEFF${body}` : body;
}

/** The content line most like `oldString`'s first non-blank line, to show when nothing matched. */
function closestLine(content: string, oldString: string): string | undefined {
  const wanted = oldString.split("\n").find((l) => l.trim() !== "")?.trim();
  if (!wanted) return undefined;
  const lines = content.split("\n");
  let best: { index: number; score: number } | undefined;
  const words = new Set(wanted.split(/\W+/).filter(Boolean));
  if (words.size === 0) return undefined;
  lines.forEach((line, index) => {
    const other = line.split(/\W+/).filter(Boolean);
    let shared = 0;
    for (const w of other) if (words.has(w)) shared++;
    const score = shared / Math.max(words.size, other.length);
    if (score > (best?.score ?? 0.4)) best = { index, score };
  });
  const found = best as { index: number } | undefined;
  return found ? `${found.index + 1}: ${lines[found.index]!.trim()}` : undefined;
}

/** 1-based line numbers where the matches start. */
function lineNumbers(content: string, starts: number[]): number[] {
  return starts.map((s) => countLines(content.slice(0, s)) + (s === 0 || content[s - 1] === "\n" ? 1 : 0));
}

/**
 * The `edit` tool: replaces `oldString` with `newString` in a file that this session has read
 * and that has not changed since. Exact matching first, then tolerant matchers (see replace.ts).
 * CRLF files stay CRLF, a BOM is kept, the file is replaced atomically (or not at all), edits of
 * one file run one at a time. An empty `oldString` creates a new file.
 */
export function createEditTool(input: ToolDepsInput = {}) {
  const { state } = toolDeps(input);
  return defineTool({
    id: "edit",
    description:
      "Replace oldString with newString in a file you have read. oldString must match the file exactly (indentation included) and only once, " +
      "unless replaceAll is set; include enough surrounding lines to make it unique. Empty oldString creates a new file.",
    parameters: EditParameters,
    permission: (args, { directory }) => [filePermission("edit", directory, args.filePath)],
    async execute(args, ctx) {
      if (args.oldString === args.newString) {
        throw new Error("oldString and newString are identical, so there is nothing to change. Give the new text in newString.");
      }
      const abs = resolvePath(ctx.directory, args.filePath);
      const shown = displayPath(ctx.directory, abs);
      const real = await realPathOr(abs);
      return withLocks([real], async () => {
        let exists = true;
        try {
          if ((await stat(real)).isDirectory()) throw new Error(`${shown} is a directory, not a file.`);
        } catch (error) {
          if (errorCode(error) !== "ENOENT") throw error;
          exists = false;
        }

        if (!exists) {
          if (args.oldString !== "") {
            throw new Error(`File not found: ${shown}.${await didYouMean(ctx.directory, abs)} To create it, use write, or edit with an empty oldString.`);
          }
          await atomicWrite(real, args.newString);
          await state.files.record(ctx.sessionID, real);
          const d = unifiedDiff(shown, "", args.newString);
          return {
            title: shown,
            output: `Created ${shown} (${plural(countLines(args.newString), "line")}).`,
            metadata: { filepath: abs, created: true, diff: d.diff, additions: d.additions, deletions: d.deletions },
          };
        }

        await state.files.assertFresh(ctx.sessionID, real, shown, { requireRead: true });
        const raw = await readFile(real);
        const decoded = decodeText(raw, shown);
        const content = decoded.text;
        const lf = (s: string) => (decoded.crlf ? s.replaceAll("\r\n", "\n") : s);
        const oldString = lf(args.oldString);
        const newString = lf(args.newString);

        let updated: string;
        let replacements = 1;
        let matcher = "exact";
        if (oldString === "") {
          if (content !== "") {
            throw new Error(`oldString is empty but ${shown} already has content. Give the text to replace, or use write to replace the whole file.`);
          }
          updated = newString;
        } else {
          const result = findMatches(content, oldString, newString);
          matcher = result.matcher;
          if (result.matches.length === 0) {
            const close = closestLine(content, oldString);
            throw new Error(
              `oldString was not found in ${shown}, not even ignoring whitespace and indentation. ` +
                `Read the file again and copy the text to replace exactly.${close ? ` The closest line is ${close}` : ""}`,
            );
          }
          if (result.matches.length > 1 && !args.replaceAll) {
            const at = lineNumbers(content, result.matches.map((m) => m.start));
            throw new Error(
              `oldString matches ${result.matches.length} places in ${shown} (lines ${at.join(", ")}). ` +
                `Add more context (surrounding lines) to oldString so it matches only one, or set replaceAll to change all of them.`,
            );
          }
          replacements = result.matches.length;
          updated = applyMatches(content, result.matches);
        }
        if (updated === content) throw new Error(`The edit would leave ${shown} unchanged; newString equals the text it replaces.`);

        await atomicWrite(real, encodeText(updated, decoded));
        await state.files.record(ctx.sessionID, real);
        const d = unifiedDiff(shown, content, updated);
        const how = matcher === "exact" ? "" : ` (oldString matched after ${matcher.replace("-", " ")} tolerance)`;
        return {
          title: shown,
          output: `Edited ${shown}: ${replacements} replacement${replacements === 1 ? "" : "s"}${how}.`,
          metadata: { filepath: abs, diff: d.diff, additions: d.additions, deletions: d.deletions, replacements, matcher },
        };
      });
    },
  });
}
