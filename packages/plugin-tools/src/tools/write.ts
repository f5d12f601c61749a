import { readFile, stat } from "node:fs/promises";
import { defineTool } from "@tessera/kernel";
import { z } from "zod";
import { countLines, plural, toolDeps, type ToolDepsInput } from "../shared.js";
import { unifiedDiff } from "../util/diff.js";
import { atomicWrite, errorCode } from "../util/fs.js";
import { withLocks } from "../util/lock.js";
import { displayPath, filePermission, realPathOr, resolvePath } from "../util/paths.js";

export const WriteParameters = z.object({
  filePath: z.string().describe("File path, absolute or relative to the project"),
  content: z.string().describe("The whole new content"),
});

/**
 * The `write` tool: writes a whole file, creating parent directories. Overwriting needs a read of
 * the file in this session with no change on disk since. Atomic; returns a unified diff.
 */
export function createWriteTool(input: ToolDepsInput = {}) {
  const { state } = toolDeps(input);
  return defineTool({
    id: "write",
    description:
      "Write a whole file, creating it and its directories if needed. To overwrite an existing file, read it first; prefer edit for changes to existing files.",
    parameters: WriteParameters,
    permission: (args, { directory }) => [filePermission("edit", directory, args.filePath)],
    async execute(args, ctx) {
      const abs = resolvePath(ctx.directory, args.filePath);
      const shown = displayPath(ctx.directory, abs);
      const real = await realPathOr(abs);
      return withLocks([real], async () => {
        let before: string | undefined;
        try {
          const info = await stat(real);
          if (info.isDirectory()) throw new Error(`${shown} is a directory; give a file path.`);
          await state.files.assertFresh(ctx.sessionID, real, shown, { requireRead: true });
          before = (await readFile(real)).toString("utf8");
        } catch (error) {
          if (errorCode(error) !== "ENOENT") throw error;
        }
        await atomicWrite(real, args.content);
        await state.files.record(ctx.sessionID, real);
        const d = unifiedDiff(shown, before ?? "", args.content);
        const lines = countLines(args.content);
        return {
          title: shown,
          output: `${before === undefined ? "Created" : "Overwrote"} ${shown} (${plural(lines, "line")}).`,
          metadata: { filepath: abs, exists: before !== undefined, diff: d.diff, additions: d.additions, deletions: d.deletions },
        };
      });
    },
  });
}
