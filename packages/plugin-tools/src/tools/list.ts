import { stat } from "node:fs/promises";
import { defineTool } from "@tessera/kernel";
import { Minimatch } from "minimatch";
import { z } from "zod";
import { toolDeps, type ToolDepsInput } from "../shared.js";
import { errorCode } from "../util/fs.js";
import { displayPath, filePermission, resolvePath } from "../util/paths.js";
import { LineBudget } from "../util/truncate.js";
import { walk, type WalkEntry } from "../util/walk.js";

export const ListParameters = z.object({
  path: z.string().optional().describe("Directory; default the project"),
  ignore: z.array(z.string()).optional().describe("Globs to leave out"),
});

/** Directories never listed: dependencies, build output, caches, virtual environments, VCS data. */
export const DEFAULT_LIST_IGNORES: readonly string[] = [
  "node_modules", ".git", ".hg", ".svn", "dist", "build", "out", ".next", ".nuxt", ".svelte-kit", ".turbo", ".cache",
  ".parcel-cache", "coverage", ".nyc_output", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".tox",
  ".venv", "venv", "target", "vendor", ".gradle", ".idea", ".vscode", "obj", "tmp", "temp",
];

interface Node {
  readonly name: string;
  readonly children?: Map<string, Node>;
}

function render(node: Node, indent: string, out: string[]): void {
  const children = [...(node.children?.values() ?? [])].sort((a, b) => {
    if (!!a.children !== !!b.children) return a.children ? -1 : 1;
    return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
  });
  for (const child of children) {
    out.push(`${indent}${child.name}${child.children ? "/" : ""}`);
    if (child.children) render(child, `${indent}  `, out);
  }
}

/**
 * The `list` tool: a directory tree (breadth first, so a capped listing still shows every top-level
 * entry), honouring .gitignore and skipping dependency, build and cache directories.
 */
export function createListTool(input: ToolDepsInput = {}) {
  const { options } = toolDeps(input);
  const max = options.list.maxEntries;
  const skipNames = new Set([...DEFAULT_LIST_IGNORES]);
  return defineTool({
    id: "list",
    description: `List a directory as a tree (at most ${max} entries). Honours .gitignore; skips node_modules, .git, dist, build and similar. Prefer glob and grep to find files.`,
    parameters: ListParameters,
    permission: (args, { directory }) => [filePermission("read", directory, args.path)],
    async execute(args, ctx) {
      const root = resolvePath(ctx.directory, args.path);
      const shown = displayPath(ctx.directory, root);
      try {
        if (!(await stat(root)).isDirectory()) throw new Error(`${shown} is a file, not a directory; use read to read it.`);
      } catch (error) {
        if (errorCode(error) === "ENOENT") throw new Error(`Directory not found: ${shown}.`);
        throw error;
      }
      const globs = [...options.list.ignore, ...(args.ignore ?? [])].map((g) => new Minimatch(g, { dot: true, matchBase: !g.includes("/") }));
      const skip = (entry: WalkEntry) => {
        const name = entry.rel.slice(entry.rel.lastIndexOf("/") + 1);
        if (entry.directory && skipNames.has(name)) return true;
        return globs.some((g) => g.match(entry.rel) || (entry.directory && g.match(`${entry.rel}/`)));
      };
      const tree: Node = { name: "", children: new Map() };
      const budget = new LineBudget({ maxLines: max, maxBytes: 64 * 1024 });
      let more = false;
      for await (const entry of walk(root, { skip, order: "breadth", signal: ctx.abort })) {
        if (!budget.push(entry.rel)) {
          more = true;
          break;
        }
        let node = tree;
        const parts = entry.rel.split("/");
        for (const [i, part] of parts.entries()) {
          const last = i === parts.length - 1;
          let child = node.children!.get(part);
          if (!child) {
            child = last && !entry.directory ? { name: part } : { name: part, children: new Map() };
            node.children!.set(part, child);
          }
          node = child;
        }
      }
      const lines: string[] = [];
      render(tree, "  ", lines);
      const note = more ? `\n\n(Showing the first ${budget.count} entries, level by level. List a subdirectory or use glob to see more.)` : "";
      return {
        title: shown,
        output: `${shown === "." ? ctx.directory : shown}/\n${lines.join("\n")}${note}`,
        metadata: { count: budget.count, truncated: more },
      };
    },
  });
}
