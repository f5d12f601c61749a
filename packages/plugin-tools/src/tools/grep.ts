import { readFileSync } from "node:fs";
import { stat } from "node:fs/promises";
import { dirname, relative, sep } from "node:path";
import { defineTool } from "@tessera/kernel";
import { Minimatch } from "minimatch";
import { z } from "zod";
import { toolDeps, type ToolDepsInput } from "../shared.js";
import { errorCode } from "../util/fs.js";
import { displayPath, filePermission, resolvePath } from "../util/paths.js";
import { resolveRipgrep, runRipgrep } from "../util/ripgrep.js";
import { truncateLine, truncateOutput } from "../util/truncate.js";
import { walk } from "../util/walk.js";

export const GrepParameters = z.object({
  pattern: z.string().describe("Regular expression"),
  path: z.string().optional().describe("Directory or file to search; default the project"),
  include: z.string().optional().describe('File glob, e.g. "*.ts" or "*.{ts,tsx}"'),
});

export interface GrepMatch {
  /** Absolute path. */
  readonly file: string;
  readonly line: number;
  readonly text: string;
}

/**
 * The first `limit` matches in (path, line) order, kept while matches arrive in any order (ripgrep
 * searches files in parallel), plus how many there were in all and in how many files.
 */
class MatchSet {
  readonly kept: GrepMatch[] = [];
  total = 0;
  private readonly files = new Set<string>();

  constructor(private readonly limit: number) {}

  add(match: GrepMatch): void {
    this.total++;
    this.files.add(match.file);
    const list = this.kept;
    if (list.length >= this.limit && compare(match, list[list.length - 1]!) >= 0) return;
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compare(list[mid]!, match) <= 0) lo = mid + 1;
      else hi = mid;
    }
    list.splice(lo, 0, match);
    if (list.length > this.limit) list.pop();
  }

  get fileCount(): number {
    return this.files.size;
  }
}

function compare(a: GrepMatch, b: GrepMatch): number {
  return a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line;
}

/** Translates ripgrep-only syntax (a leading `(?i)`) and compiles for the JS search; throws a clear error when invalid. */
export function compilePattern(pattern: string): RegExp {
  let source = pattern;
  let flags = "";
  const inline = /^\(\?([imsx]+)\)/.exec(source);
  if (inline) {
    source = source.slice(inline[0].length);
    if (inline[1]!.includes("i")) flags += "i";
    if (inline[1]!.includes("s")) flags += "s";
  }
  try {
    return new RegExp(source, `${flags}u`);
  } catch {
    try {
      return new RegExp(source, flags);
    } catch (error) {
      throw new Error(`Invalid regular expression ${JSON.stringify(pattern)}: ${(error as Error).message}. Escape special characters such as ( [ { . * + ? with \\.`);
    }
  }
}

/** Whether the file at `rel` (relative to the search root) passes the include glob (a leading `!` excludes). */
export function includeMatcher(include: string | undefined): (rel: string) => boolean {
  if (!include) return () => true;
  const negate = include.startsWith("!");
  const glob = negate ? include.slice(1) : include;
  const matcher = new Minimatch(glob, { dot: true, matchBase: !glob.includes("/") });
  return (rel) => matcher.match(rel) !== negate;
}

/**
 * Runs `fn` over `items` synchronously in slices of about 10 ms, yielding to the event loop between
 * slices. Synchronous file reads are about four times faster than `fs.promises` ones for many small
 * files (no thread-pool round trip per open, stat, read and close), and the slices keep the process
 * responsive and the search abortable.
 */
export async function inSlices<T>(items: readonly T[], fn: (item: T) => void, signal?: AbortSignal): Promise<void> {
  let slice = performance.now();
  for (const item of items) {
    fn(item);
    if (performance.now() - slice > 10) {
      await new Promise((resolve) => setImmediate(resolve));
      signal?.throwIfAborted();
      slice = performance.now();
    }
  }
}

/** The built-in search: walks the tree honouring ignore files and hidden-file rules as ripgrep does, and tests each line. */
export async function searchJs(root: string, pattern: string, include: string | undefined, found: (m: GrepMatch) => void, signal?: AbortSignal): Promise<void> {
  const regex = compilePattern(pattern);
  const multiline = new RegExp(regex.source, regex.flags.includes("m") ? regex.flags : `${regex.flags}m`);
  const wanted = includeMatcher(include);
  const files: string[] = [];
  const info = await stat(root);
  if (info.isFile()) files.push(root);
  else {
    const options = signal ? { signal } : {};
    for await (const entry of walk(root, options)) if (!entry.directory && wanted(entry.rel)) files.push(entry.path);
  }
  await inSlices(
    files,
    (file) => {
      let data: Buffer;
      try {
        data = readFileSync(file);
      } catch {
        return;
      }
      // Binary files are skipped, as ripgrep does.
      if (data.includes(0)) return;
      const text = data.toString("utf8");
      // One test of the whole file first: most files do not match at all.
      if (!multiline.test(text)) return;
      let lineNo = 1;
      let start = 0;
      for (;;) {
        const newline = text.indexOf("\n", start);
        const end = newline === -1 ? text.length : newline;
        if (newline === -1 && start === text.length) break;
        const line = text.slice(start, end);
        if (regex.test(line)) found({ file, line: lineNo, text: line.endsWith("\r") ? line.slice(0, -1) : line });
        if (newline === -1) break;
        start = newline + 1;
        lineNo++;
      }
    },
    signal,
  );
}

/**
 * The search through ripgrep (which honours the same ignore files and skips hidden and binary
 * files). ripgrep's `--glob` would override .gitignore, so the include glob is given as a file
 * type instead (name globs), or applied to the results (path globs).
 */
export async function searchRipgrep(rg: string, root: string, pattern: string, include: string | undefined, found: (m: GrepMatch) => void, signal?: AbortSignal): Promise<void> {
  const info = await stat(root);
  const cwd = info.isFile() ? dirname(root) : root;
  const args = ["--no-config", "--no-require-git", "--line-number", "--with-filename", "--null", "--color=never", "--no-messages"];
  // An explicit file is searched whatever the include glob (in both engines).
  let keep: ((file: string) => boolean) | undefined;
  if (include && !info.isFile()) {
    const negate = include.startsWith("!");
    const glob = negate ? include.slice(1) : include;
    if (glob.includes("/")) {
      const wanted = includeMatcher(include);
      keep = (file) => wanted(toPosix(relative(root, file)));
    } else {
      args.push(`--type-add=tesserainclude:${glob}`, negate ? "--type-not=tesserainclude" : "--type=tesserainclude");
    }
  }
  args.push("--regexp", pattern, "--", root);
  const run = await runRipgrep(rg, args, {
    cwd,
    ...(signal ? { signal } : {}),
    onLine: (raw) => {
      const nul = raw.indexOf("\0");
      if (nul === -1) return;
      const colon = raw.indexOf(":", nul + 1);
      if (colon === -1) return;
      const file = raw.slice(0, nul);
      if (keep && !keep(file)) return;
      const text = raw.slice(colon + 1);
      found({ file, line: Number(raw.slice(nul + 1, colon)), text: text.endsWith("\r") ? text.slice(0, -1) : text });
    },
  });
  if (run.code === 2 && run.stderr.trim() !== "") {
    const message = run.stderr.trim().split("\n").slice(0, 6).join("\n");
    throw new Error(`ripgrep failed: ${message}`);
  }
}

const toPosix = (p: string) => (sep === "/" ? p : p.split(sep).join("/"));

/** Formats matches grouped by file (path order), each line as `  <line>: <text>`. */
export function formatMatches(directory: string, matches: readonly GrepMatch[], maxLineChars: number): string {
  const out: string[] = [];
  let current: string | undefined;
  for (const m of matches) {
    if (m.file !== current) {
      current = m.file;
      out.push(`${displayPath(directory, m.file)}:`);
    }
    out.push(`  ${m.line}: ${truncateLine(m.text, maxLineChars)}`);
  }
  return out.join("\n");
}

/**
 * The `grep` tool: regular-expression search over file contents with ripgrep when it is on PATH
 * and an equivalent built-in search otherwise. Results are grouped by file in path order (the same
 * order both ways, whatever order files were searched in), capped with a note.
 */
export function createGrepTool(input: ToolDepsInput & { ripgrep?: string | false } = {}) {
  const { options } = toolDeps(input);
  const limits = options.grep;
  const setting = input.ripgrep === false ? "never" : (input.ripgrep ?? limits.ripgrep);
  return defineTool({
    id: "grep",
    description: `Search file contents with a regular expression (ripgrep syntax). Honours .gitignore; skips hidden and binary files. Returns matching lines grouped by file, at most ${limits.maxMatches}.`,
    parameters: GrepParameters,
    permission: (args, { directory }) => [filePermission("read", directory, args.path)],
    async execute(args, ctx) {
      const root = resolvePath(ctx.directory, args.path);
      const shown = displayPath(ctx.directory, root);
      try {
        await stat(root);
      } catch (error) {
        if (errorCode(error) === "ENOENT") throw new Error(`Path not found: ${shown}. Give an existing directory or file (or no path for the whole project).`);
        throw error;
      }
      const set = new MatchSet(limits.maxMatches);
      const rg = resolveRipgrep(setting);
      if (rg) await searchRipgrep(rg, root, args.pattern, args.include, (m) => set.add(m), ctx.abort);
      else await searchJs(root, args.pattern, args.include, (m) => set.add(m), ctx.abort);

      const engine = rg ? "ripgrep" : "built-in";
      if (set.total === 0) {
        return { title: args.pattern, output: `No matches for ${JSON.stringify(args.pattern)} in ${shown}${args.include ? ` (files ${args.include})` : ""}.`, metadata: { matches: 0, engine } };
      }
      const body = formatMatches(ctx.directory, set.kept, limits.maxLineChars);
      const capped = set.total > set.kept.length;
      const header = `${set.total} match${set.total === 1 ? "" : "es"} in ${set.fileCount} file${set.fileCount === 1 ? "" : "s"}`;
      const note = capped ? `\n\n(Showing the first ${set.kept.length} of ${set.total} matches, in path order. Narrow the pattern, path or include to see the rest.)` : "";
      const output = truncateOutput(`${header}\n${body}${note}`, { maxLines: limits.maxMatches * 2 + 10, maxBytes: 64 * 1024 }).text;
      return { title: args.pattern, output, metadata: { matches: set.total, files: set.fileCount, truncated: capped, engine } };
    },
  });
}
