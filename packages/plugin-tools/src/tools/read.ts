import { open, readdir, readFile, stat } from "node:fs/promises";
import { basename, dirname, extname, join } from "node:path";
import { defineTool } from "@tessera/kernel";
import { z } from "zod";
import { editDistance, plural, toolDeps, type ToolDepsInput } from "../shared.js";
import { errorCode, imageType, isImageExtension, looksBinary } from "../util/fs.js";
import { displayPath, filePermission, realPathOr, resolvePath } from "../util/paths.js";
import { formatBytes, LineBudget } from "../util/truncate.js";

export const ReadParameters = z.object({
  filePath: z.string().describe("File path, absolute or relative to the project"),
  offset: z.number().int().min(0).optional().describe("First line to read, 1-based"),
  limit: z.number().int().min(1).optional().describe("Number of lines (max 2000)"),
});

const SAMPLE_BYTES = 8192;
const CHUNK_BYTES = 64 * 1024;

interface LinesResult {
  /** Formatted lines (`00042| text`). */
  readonly lines: string[];
  readonly first: number;
  readonly last: number;
  /** Why reading stopped. */
  readonly stop: "eof" | "limit" | "bytes";
  /** Lines in the file, when reading reached its end. */
  readonly total?: number;
  /** How many shown lines were cut to the line length cap. */
  readonly cut: number;
}

/** `00042| text`: the read tool's line format (line number padded to 5 digits, a bar, a space). */
export function formatLine(lineNo: number, text: string): string {
  return `${String(lineNo).padStart(5, "0")}| ${text}`;
}

/**
 * Reads lines `offset`… of a file without loading it: 64 KB chunks, lines before `offset` only
 * counted, at most `maxLineChars` characters of any line kept (a 100 MB single-line file costs
 * a few KB), stopping as soon as `limit` lines or `maxBytes` bytes of output are collected.
 */
async function readLines(
  path: string,
  size: number,
  options: { offset: number; limit: number; maxLineChars: number; maxBytes: number },
): Promise<LinesResult> {
  const handle = await open(path, "r");
  const budget = new LineBudget({ maxLines: options.limit, maxBytes: options.maxBytes });
  const keepCap = options.maxLineChars * 4 + 4;
  const parts: Buffer[] = [];
  let kept = 0;
  let lineBytes = 0;
  let lineNo = 1;
  let cut = 0;
  let last = 0;
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  let position = 0;

  const append = (chunk: Buffer) => {
    lineBytes += chunk.length;
    if (kept < keepCap) {
      const piece = chunk.subarray(0, keepCap - kept);
      // Copied: the read buffer is reused for the next chunk.
      parts.push(Buffer.from(piece));
      kept += piece.length;
    }
  };
  /** Formats the line collected so far; false when the output budget is spent. */
  const emit = (): boolean => {
    let text = Buffer.concat(parts).toString("utf8");
    const truncatedBytes = lineBytes > kept;
    parts.length = 0;
    kept = 0;
    lineBytes = 0;
    if (text.endsWith("\r")) text = text.slice(0, -1);
    if (lineNo === 1 && text.startsWith("\uFEFF")) text = text.slice(1);
    if (truncatedBytes || text.length > options.maxLineChars) {
      text = `${text.slice(0, options.maxLineChars)}… (line cut at ${options.maxLineChars} chars)`;
      cut++;
    }
    if (!budget.push(formatLine(lineNo, text))) return false;
    last = lineNo;
    return true;
  };

  try {
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, position);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      let start = 0;
      for (;;) {
        const newline = chunk.indexOf(10, start);
        if (newline === -1) {
          if (lineNo >= options.offset) append(chunk.subarray(start));
          break;
        }
        if (lineNo >= options.offset) {
          append(chunk.subarray(start, newline));
          if (!emit()) return { lines: budget.lines, first: options.offset, last, stop: "bytes", cut };
          if (budget.count >= options.limit) {
            const more = position + newline + 1 < size;
            return more
              ? { lines: budget.lines, first: options.offset, last, stop: "limit", cut }
              : { lines: budget.lines, first: options.offset, last, stop: "eof", total: lineNo, cut };
          }
        }
        lineNo++;
        start = newline + 1;
      }
      position += bytesRead;
    }
    // The last line has no newline at its end.
    if (lineNo >= options.offset && lineBytes > 0) {
      if (!emit()) return { lines: budget.lines, first: options.offset, last, stop: "bytes", cut };
      return { lines: budget.lines, first: options.offset, last, stop: "eof", total: lineNo, cut };
    }
    return { lines: budget.lines, first: options.offset, last, stop: "eof", total: lineNo - 1, cut };
  } finally {
    await handle.close();
  }
}

/** Names in the missing file's directory that look like what was meant. */
export async function suggestions(abs: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dirname(abs));
  } catch {
    return [];
  }
  const wanted = basename(abs).toLowerCase();
  const stem = wanted.replace(/\.[^.]*$/, "");
  return names
    .map((name) => {
      const lower = name.toLowerCase();
      const distance = editDistance(lower, wanted);
      const related = lower.startsWith(stem) || (stem.length >= 3 && lower.includes(stem)) || (lower.length >= 3 && wanted.includes(lower.replace(/\.[^.]*$/, "")));
      return { name, score: related ? Math.min(distance, 1) : distance };
    })
    .filter((c) => c.score <= Math.max(2, Math.floor(wanted.length / 3)))
    .sort((a, b) => a.score - b.score || a.name.localeCompare(b.name))
    .slice(0, 3)
    .map((c) => c.name);
}

/** " Did you mean: a.ts, b.ts?" for a missing file, or "". */
export async function didYouMean(directory: string, abs: string): Promise<string> {
  const near = await suggestions(abs);
  return near.length > 0 ? ` Did you mean: ${near.map((n) => displayPath(directory, join(dirname(abs), n))).join(", ")}?` : "";
}

/**
 * The `read` tool: a text file as numbered lines (`00001| …`), a window of it with `offset` and
 * `limit`, an image as an attachment, a directory as a listing. Binary files are refused; a
 * missing file gets close-name suggestions. Records the read for the stale-edit checks.
 */
export function createReadTool(input: ToolDepsInput = {}) {
  const { state, options } = toolDeps(input);
  const limits = options.read;
  return defineTool({
    id: "read",
    description:
      "Read a text file as numbered lines (`00001| text`), or an image (png, jpeg, gif, webp), or list a directory. " +
      `Reads up to ${limits.maxLines} lines; use offset and limit for more. Read a file before editing it.`,
    parameters: ReadParameters,
    permission: (args, { directory }) => [filePermission("read", directory, args.filePath)],
    async execute(args, ctx) {
      const abs = resolvePath(ctx.directory, args.filePath);
      const shown = displayPath(ctx.directory, abs);
      let info;
      try {
        info = await stat(abs);
      } catch (error) {
        if (errorCode(error) !== "ENOENT" && errorCode(error) !== "ENOTDIR") throw error;
        throw new Error(`File not found: ${shown}.${await didYouMean(ctx.directory, abs)}`);
      }

      if (info.isDirectory()) {
        const entries = await readdir(abs, { withFileTypes: true });
        const names = entries.map((e) => (e.isDirectory() ? `${e.name}/` : e.name)).sort((a, b) => a.localeCompare(b));
        const budget = new LineBudget({ maxLines: limits.maxLines, maxBytes: limits.maxBytes });
        for (const name of names) if (!budget.push(name)) break;
        const more = names.length - budget.count;
        const note = more > 0 ? `\n(${more} more entries not shown; use glob or list to narrow down.)` : "";
        return {
          title: shown,
          output: `${shown} is a directory with ${plural(names.length, "entry", "entries")}:\n${budget.text()}${note}`,
          metadata: { filepath: abs, directory: true, entries: names.length },
        };
      }
      if (!info.isFile()) throw new Error(`${shown} is not a regular file (a device, socket or pipe); it cannot be read.`);

      const extension = extname(abs);
      const sample = Buffer.alloc(Math.min(SAMPLE_BYTES, info.size));
      if (sample.length > 0) {
        const handle = await open(abs, "r");
        try {
          await handle.read(sample, 0, sample.length, 0);
        } finally {
          await handle.close();
        }
      }

      const image = imageType(sample, extension);
      if (image || isImageExtension(extension)) {
        if (!image) throw new Error(`${shown} has an image extension but is not a png, jpeg, gif or webp image.`);
        if (info.size > limits.maxImageBytes) {
          throw new Error(`${shown} is an image of ${formatBytes(info.size)}, over the ${formatBytes(limits.maxImageBytes)} limit; it was not read.`);
        }
        const data = await readFile(abs);
        await state.files.record(ctx.sessionID, await realPathOr(abs));
        return {
          title: shown,
          output: `Image ${shown} (${image}, ${formatBytes(info.size)}) is attached.`,
          metadata: { filepath: abs, mediaType: image, size: info.size },
          attachments: [{ mediaType: image, url: `data:${image};base64,${data.toString("base64")}`, filename: basename(abs) }],
        };
      }
      if (looksBinary(sample, extension)) {
        throw new Error(`${shown} is a binary file (${formatBytes(info.size)}); the read tool only reads text and images. Use bash (e.g. \`file\`, \`xxd | head\`) to inspect it.`);
      }

      const offset = Math.max(1, args.offset ?? 1);
      const limit = Math.min(args.limit ?? limits.maxLines, limits.maxLines);
      const result = await readLines(abs, info.size, { offset, limit, maxLineChars: limits.maxLineChars, maxBytes: limits.maxBytes });
      await state.files.record(ctx.sessionID, await realPathOr(abs));

      if (result.lines.length === 0) {
        if (result.total === 0) return { title: shown, output: `${shown} is empty.`, metadata: { filepath: abs, lines: 0 } };
        throw new Error(`offset ${offset} is past the end of ${shown}, which has ${plural(result.total ?? 0, "line")}. Use a smaller offset.`);
      }
      const notes: string[] = [];
      if (result.stop === "eof") notes.push(`(End of file: ${plural(result.total ?? 0, "line")}.)`);
      else if (result.stop === "limit") notes.push(`(Lines ${result.first}-${result.last} shown; the file has more. Use offset=${result.last + 1} to read on.)`);
      else notes.push(`(Output capped at ${formatBytes(limits.maxBytes)} after line ${result.last}. Use offset=${result.last + 1} to read on.)`);
      if (result.cut > 0) notes.push(`(${plural(result.cut, "line")} longer than ${limits.maxLineChars} characters ${result.cut === 1 ? "was" : "were"} cut; use grep or bash to see ${result.cut === 1 ? "it" : "them"} whole.)`);
      return {
        title: shown,
        output: `${result.lines.join("\n")}\n\n${notes.join("\n")}`,
        metadata: {
          filepath: abs,
          lines: [result.first, result.last],
          truncated: result.stop !== "eof",
          ...(result.total !== undefined ? { total: result.total } : {}),
        },
      };
    },
  });
}
