/**
 * The one place tool output is cut to size. Every tool's output goes through `truncateOutput`
 * (whole texts: bash, webfetch, task, and the final safety net in `finish`) or a `LineBudget`
 * (line streams: read, grep, glob, list), so the limits and the notes that tell the model how to
 * get the rest look the same everywhere.
 */

export interface OutputLimits {
  /** Most lines kept. */
  readonly maxLines: number;
  /** Most UTF-8 bytes kept. */
  readonly maxBytes: number;
}

export interface TruncateOptions extends OutputLimits {
  /** Keep the start (`head`), or the start and the end (`head-tail`, for command output). */
  readonly keep?: "head" | "head-tail";
  /** Appended to the truncation note, e.g. where the full text is saved. */
  readonly hint?: string;
  /**
   * The size of the whole output when `text` is only part of it (a spilled command output keeps
   * its first and last megabyte in memory); the note reports these figures.
   */
  readonly total?: { readonly bytes: number; readonly lines: number };
}

export interface TruncateResult {
  readonly text: string;
  readonly truncated: boolean;
  readonly omittedLines: number;
  readonly omittedBytes: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: false });

export function byteLength(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** "12 KB", "3.4 MB": sizes in notes. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** Cuts one line to `maxChars` characters, saying how much was cut. */
export function truncateLine(line: string, maxChars: number): string {
  if (line.length <= maxChars) return line;
  return `${line.slice(0, maxChars)}… (${line.length - maxChars} more chars)`;
}

/** The first `maxBytes` bytes of `text`, never ending in a broken character. */
function headBytes(text: string, maxBytes: number): string {
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return text;
  return decoder.decode(bytes.subarray(0, maxBytes)).replace(/\uFFFD+$/, "");
}

/** The last `maxBytes` bytes of `text`, never starting in a broken character. */
function tailBytes(text: string, maxBytes: number): string {
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return text;
  return decoder.decode(bytes.subarray(bytes.length - maxBytes)).replace(/^\uFFFD+/, "");
}

function takeHead(lines: string[], maxLines: number, maxBytes: number): string[] {
  const kept: string[] = [];
  let bytes = 0;
  for (const line of lines) {
    if (kept.length >= maxLines) break;
    const size = byteLength(line) + (kept.length > 0 ? 1 : 0);
    if (bytes + size > maxBytes) {
      // A first line longer than the whole budget is cut rather than dropped.
      if (kept.length === 0) kept.push(headBytes(line, maxBytes));
      break;
    }
    kept.push(line);
    bytes += size;
  }
  return kept;
}

function takeTail(lines: string[], maxLines: number, maxBytes: number): string[] {
  const kept: string[] = [];
  let bytes = 0;
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    if (kept.length >= maxLines) break;
    const size = byteLength(line) + (kept.length > 0 ? 1 : 0);
    if (bytes + size > maxBytes) {
      if (kept.length === 0) kept.push(tailBytes(line, maxBytes));
      break;
    }
    kept.push(line);
    bytes += size;
  }
  return kept.reverse();
}

/**
 * Cuts `text` to `maxLines` lines and `maxBytes` bytes, keeping its head (or head and tail), with
 * a note that says how much was left out and, through `hint`, how to get it.
 */
export function truncateOutput(text: string, options: TruncateOptions): TruncateResult {
  const totalBytes = options.total?.bytes ?? byteLength(text);
  const lines = text.split("\n");
  const totalLines = options.total?.lines ?? lines.length;
  const partial = options.total !== undefined && (options.total.bytes > byteLength(text));
  if (!partial && lines.length <= options.maxLines && totalBytes <= options.maxBytes) {
    return { text, truncated: false, omittedLines: 0, omittedBytes: 0 };
  }
  const hint = options.hint ? ` ${options.hint}` : "";
  if (options.keep === "head-tail") {
    const headLines = Math.ceil(options.maxLines / 2);
    const headBudget = Math.ceil(options.maxBytes / 2);
    const head = takeHead(lines, headLines, headBudget);
    // The tail may not reuse lines the head already holds.
    const rest = lines.slice(head.length);
    const tail = takeTail(rest, options.maxLines - headLines, options.maxBytes - headBudget);
    const keptBytes = byteLength(head.join("\n")) + byteLength(tail.join("\n"));
    const omittedLines = Math.max(0, totalLines - head.length - tail.length);
    const omittedBytes = Math.max(0, totalBytes - keptBytes);
    const note = `… ${omittedLines} lines (${formatBytes(omittedBytes)}) omitted …${hint}`;
    return { text: `${head.join("\n")}\n\n${note}\n\n${tail.join("\n")}`, truncated: true, omittedLines, omittedBytes };
  }
  const head = takeHead(lines, options.maxLines, options.maxBytes);
  const kept = head.join("\n");
  const omittedLines = Math.max(0, totalLines - head.length);
  const omittedBytes = Math.max(0, totalBytes - byteLength(kept));
  const note = `(Output truncated: ${omittedLines} more lines, ${formatBytes(omittedBytes)} omitted.${hint})`;
  return { text: `${kept}\n\n${note}`, truncated: true, omittedLines, omittedBytes };
}

/**
 * Collects lines up to a line count and a byte size, for tools that produce output line by line
 * and must stop reading as soon as the budget is spent (read, grep, glob, list).
 */
export class LineBudget {
  readonly lines: string[] = [];
  private bytes = 0;
  /** Why collection stopped, once it has. */
  full: "lines" | "bytes" | undefined;

  constructor(private readonly limits: OutputLimits & { readonly maxLineChars?: number }) {}

  /** Adds a line; false (and nothing added) when it no longer fits. */
  push(line: string): boolean {
    if (this.full) return false;
    if (this.lines.length >= this.limits.maxLines) {
      this.full = "lines";
      return false;
    }
    const text = this.limits.maxLineChars ? truncateLine(line, this.limits.maxLineChars) : line;
    const size = byteLength(text) + 1;
    if (this.bytes + size > this.limits.maxBytes) {
      this.full = "bytes";
      return false;
    }
    this.lines.push(text);
    this.bytes += size;
    return true;
  }

  get count(): number {
    return this.lines.length;
  }

  text(): string {
    return this.lines.join("\n");
  }
}
