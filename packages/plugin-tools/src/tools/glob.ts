import { statSync } from "node:fs";
import { stat } from "node:fs/promises";
import { isAbsolute, relative, sep } from "node:path";
import { defineTool } from "@tessera/kernel";
import { Minimatch } from "minimatch";
import { z } from "zod";
import { toolDeps, type ToolDepsInput } from "../shared.js";
import { errorCode } from "../util/fs.js";
import { displayPath, filePermission, resolvePath } from "../util/paths.js";
import { resolveRipgrep, runRipgrep } from "../util/ripgrep.js";
import { walk } from "../util/walk.js";
import { inSlices } from "./grep.js";

export const GlobParameters = z.object({
  pattern: z.string().describe('Glob, e.g. "**/*.ts" or "src/**/test_*.py"'),
  path: z.string().optional().describe("Directory to search; default the project"),
});

/** Splits an absolute glob into the directory before its first wildcard and the rest. */
function splitAbsolute(pattern: string): { root: string; pattern: string } | undefined {
  if (!isAbsolute(pattern)) return undefined;
  const parts = pattern.split("/");
  const first = parts.findIndex((p) => /[*?[\]{}]/.test(p));
  if (first === -1) return { root: parts.slice(0, -1).join("/") || "/", pattern: parts.at(-1)! };
  return { root: parts.slice(0, first).join("/") || "/", pattern: parts.slice(first).join("/") };
}

/**
 * Files under `root` matching `pattern`: the tree's files from ripgrep (`--files`) or the built-in
 * walk (both honouring ignore files and skipping hidden ones), filtered with the same glob matcher.
 * (ripgrep's own `--glob` would override .gitignore.)
 */
export async function globFiles(root: string, pattern: string, rg: string | undefined, signal?: AbortSignal): Promise<string[]> {
  const matcher = new Minimatch(pattern, { dot: true, matchBase: !pattern.includes("/") });
  const files: string[] = [];
  if (rg) {
    const prefix = root.endsWith(sep) ? root : root + sep;
    const run = await runRipgrep(rg, ["--no-config", "--no-require-git", "--files", "--color=never", "--no-messages", "--", root], {
      cwd: root,
      ...(signal ? { signal } : {}),
      onLine: (line) => {
        if (!line) return;
        const rel = line.startsWith(prefix) ? line.slice(prefix.length) : relative(root, line);
        if (matcher.match(sep === "/" ? rel : rel.split(sep).join("/"))) files.push(line);
      },
    });
    if (run.code === 2 && run.stderr.trim()) throw new Error(`ripgrep failed: ${run.stderr.trim().split("\n")[0]}`);
    return files;
  }
  for await (const entry of walk(root, signal ? { signal } : {})) {
    if (!entry.directory && matcher.match(entry.rel)) files.push(entry.path);
  }
  return files;
}

/** `files` with their modification times, newest first (ties in path order). */
export async function newestFirst(files: readonly string[], signal?: AbortSignal): Promise<Array<{ path: string; mtime: number }>> {
  const withTimes: Array<{ path: string; mtime: number }> = [];
  // Synchronous stats in slices: several times faster than fs.promises for thousands of files.
  await inSlices(
    files,
    (path) => {
      let mtime = 0;
      try {
        mtime = statSync(path).mtimeMs;
      } catch {
        // Deleted meanwhile: sorted last.
      }
      withTimes.push({ path, mtime });
    },
    signal,
  );
  return withTimes.sort((a, b) => b.mtime - a.mtime || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * The `glob` tool: files matching a glob, honouring .gitignore and skipping hidden files, newest
 * first, capped with a note. A pattern without `/` matches file names at any depth.
 */
export function createGlobTool(input: ToolDepsInput & { ripgrep?: string | false } = {}) {
  const { options } = toolDeps(input);
  const max = options.glob.maxResults;
  const setting = input.ripgrep === false ? "never" : (input.ripgrep ?? options.grep.ripgrep);
  return defineTool({
    id: "glob",
    description: `Find files by name with a glob pattern. Honours .gitignore; skips hidden files. Returns paths newest first, at most ${max}.`,
    parameters: GlobParameters,
    permission: (args, { directory }) => {
      const split = args.path === undefined ? splitAbsolute(args.pattern) : undefined;
      return [filePermission("read", directory, split?.root ?? args.path)];
    },
    async execute(args, ctx) {
      const split = args.path === undefined ? splitAbsolute(args.pattern) : undefined;
      const root = resolvePath(ctx.directory, split?.root ?? args.path);
      const pattern = split?.pattern ?? args.pattern;
      const shown = displayPath(ctx.directory, root);
      try {
        if (!(await stat(root)).isDirectory()) throw new Error(`${shown} is not a directory; give a directory as path.`);
      } catch (error) {
        if (errorCode(error) === "ENOENT") throw new Error(`Directory not found: ${shown}.`);
        throw error;
      }
      const rg = resolveRipgrep(setting);
      const files = await globFiles(root, pattern, rg, ctx.abort);
      if (files.length === 0) {
        return { title: pattern, output: `No files match ${JSON.stringify(pattern)} in ${shown}.`, metadata: { count: 0, engine: rg ? "ripgrep" : "built-in" } };
      }
      const sorted = await newestFirst(files, ctx.abort);
      const shownFiles = sorted.slice(0, max).map((f) => displayPath(ctx.directory, f.path));
      const note = files.length > max ? `\n\n(Showing the ${max} newest of ${files.length} files. Use a more specific pattern or path to see others.)` : "";
      return {
        title: pattern,
        output: `${shownFiles.join("\n")}${note}`,
        metadata: { count: files.length, truncated: files.length > max, engine: rg ? "ripgrep" : "built-in" },
      };
    },
  });
}
