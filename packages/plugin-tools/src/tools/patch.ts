import { chmod, mkdir, open, readFile, rename, rmdir, stat, unlink } from "node:fs/promises";
import { dirname } from "node:path";
import { defineTool, type ToolPermission } from "@tessera/kernel";
import { z } from "zod";
import { toolDeps, type ToolDepsInput } from "../shared.js";
import { unifiedDiff } from "../util/diff.js";
import { atomicWrite, errorCode, tempPathFor } from "../util/fs.js";
import { withLocks } from "../util/lock.js";
import { displayPath, filePermission, realPathOr, resolvePath } from "../util/paths.js";
import { decodeText, encodeText } from "./edit.js";

export const PatchParameters = z.object({
  patchText: z.string().describe("The patch, from *** Begin Patch to *** End Patch"),
});

// ---------------------------------------------------------------------------------------------
// Parsing

/** A line of a chunk: context (` `), removed (`-`) or added (`+`). */
export interface PatchLine {
  readonly kind: " " | "-" | "+";
  readonly text: string;
}

export interface PatchChunk {
  /** The text after `@@`, a line to find before the chunk's lines. */
  readonly context?: string;
  readonly lines: PatchLine[];
  /** `*** End of File`: the chunk ends at the end of the file. */
  readonly eof: boolean;
}

/** Lines the file has now (context and removed lines). */
const oldSide = (lines: readonly PatchLine[]) => lines.filter((l) => l.kind !== "+").map((l) => l.text);

export type PatchHunk =
  | { readonly type: "add"; readonly path: string; readonly content: string }
  | { readonly type: "delete"; readonly path: string }
  | { readonly type: "update"; readonly path: string; readonly moveTo?: string; readonly chunks: PatchChunk[] };

export class PatchParseError extends Error {
  constructor(message: string) {
    super(`Invalid patch: ${message}`);
    this.name = "PatchParseError";
  }
}

const BEGIN = "*** Begin Patch";
const END = "*** End Patch";

/**
 * Parses the `*** Begin Patch` format: `*** Add File: p` (lines `+…`), `*** Delete File: p`,
 * `*** Update File: p` (optionally `*** Move to: q`) with `@@ [context]` chunks of ` `, `-` and `+`
 * lines, and `*** End of File` to anchor a chunk at the end.
 */
export function parsePatch(text: string): PatchHunk[] {
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  const begin = lines.findIndex((l) => l.trim() === BEGIN);
  if (begin === -1) throw new PatchParseError(`the first line must be "${BEGIN}"`);
  let end = -1;
  for (let i = lines.length - 1; i > begin; i--) {
    if (lines[i]!.trim() === END) {
      end = i;
      break;
    }
  }
  if (end === -1) throw new PatchParseError(`the last line must be "${END}"`);

  const hunks: PatchHunk[] = [];
  let i = begin + 1;
  const header = (line: string, prefix: string) => (line.startsWith(prefix) ? line.slice(prefix.length).trim() : undefined);
  while (i < end) {
    const line = lines[i]!;
    let path: string | undefined;
    if ((path = header(line, "*** Add File:")) !== undefined) {
      if (!path) throw new PatchParseError(`line ${i + 1}: "*** Add File:" needs a path`);
      i++;
      const content: string[] = [];
      while (i < end && !lines[i]!.startsWith("*** ")) {
        const l = lines[i]!;
        if (!l.startsWith("+")) throw new PatchParseError(`line ${i + 1}: every line of an added file must start with "+"`);
        content.push(l.slice(1));
        i++;
      }
      hunks.push({ type: "add", path, content: content.length > 0 ? `${content.join("\n")}\n` : "" });
    } else if ((path = header(line, "*** Delete File:")) !== undefined) {
      if (!path) throw new PatchParseError(`line ${i + 1}: "*** Delete File:" needs a path`);
      hunks.push({ type: "delete", path });
      i++;
    } else if ((path = header(line, "*** Update File:")) !== undefined) {
      if (!path) throw new PatchParseError(`line ${i + 1}: "*** Update File:" needs a path`);
      i++;
      let moveTo: string | undefined;
      if (i < end && (moveTo = header(lines[i]!, "*** Move to:")) !== undefined) {
        if (!moveTo) throw new PatchParseError(`line ${i + 1}: "*** Move to:" needs a path`);
        i++;
      }
      const chunks: PatchChunk[] = [];
      let current: { context?: string; lines: PatchLine[]; eof: boolean } | undefined;
      const flush = () => {
        if (current && (current.lines.length > 0 || current.context !== undefined)) chunks.push(current);
        current = undefined;
      };
      while (i < end) {
        const l = lines[i]!;
        if (l.startsWith("@@")) {
          flush();
          const context = l.slice(2).trim().replace(/@@$/, "").trim();
          current = { lines: [], eof: false, ...(context ? { context } : {}) };
        } else if (l.trim() === "*** End of File") {
          if (current) current.eof = true;
        } else if (l.startsWith("*** ")) {
          break;
        } else {
          current ??= { lines: [], eof: false };
          const kind = l[0];
          if (kind === "+" || kind === "-" || kind === " ") current.lines.push({ kind, text: l.slice(1) });
          // A blank line is a blank context line whose leading space was lost.
          else if (l === "") current.lines.push({ kind: " ", text: "" });
          else {
            throw new PatchParseError(`line ${i + 1}: a change line must start with " ", "-" or "+" (got ${JSON.stringify(l.slice(0, 40))})`);
          }
        }
        i++;
      }
      flush();
      if (chunks.length === 0 && moveTo === undefined) throw new PatchParseError(`"*** Update File: ${path}" has no changes`);
      hunks.push({ type: "update", path, ...(moveTo !== undefined ? { moveTo } : {}), chunks });
    } else if (line.trim() === "") {
      i++;
    } else {
      throw new PatchParseError(`line ${i + 1}: expected "*** Add File:", "*** Update File:" or "*** Delete File:", got ${JSON.stringify(line.slice(0, 60))}`);
    }
  }
  if (hunks.length === 0) throw new PatchParseError("it changes no file");
  return hunks;
}

// ---------------------------------------------------------------------------------------------
// Applying chunks to a file's lines

const normalizers: Array<(s: string) => string> = [(s) => s, (s) => s.trimEnd(), (s) => s.trim()];

/** Where `pattern` occurs in `lines` at or after `from` (from the end first when `eof`), trying exact, then trimmed comparisons. */
function seek(lines: string[], pattern: string[], from: number, eof: boolean): number {
  if (pattern.length === 0) return from;
  if (pattern.length > lines.length) return -1;
  for (const normalize of normalizers) {
    const wanted = pattern.map(normalize);
    const matchesAt = (i: number) => wanted.every((w, j) => normalize(lines[i + j]!) === w);
    if (eof) {
      const atEnd = lines.length - pattern.length;
      if (atEnd >= from && matchesAt(atEnd)) return atEnd;
    }
    for (let i = from; i + pattern.length <= lines.length; i++) if (matchesAt(i)) return i;
  }
  return -1;
}

/** The new text of a file after the chunks of an update; throws naming the chunk that did not apply. */
export function applyChunks(content: string, chunks: readonly PatchChunk[], shown: string): string {
  const lines = content.split("\n");
  const trailingNewline = lines.at(-1) === "";
  if (trailingNewline) lines.pop();
  const replacements: Array<{ at: number; remove: number; insert: string[] }> = [];
  let cursor = 0;
  for (const [n, chunk] of chunks.entries()) {
    if (chunk.context !== undefined) {
      const at = seek(lines, [chunk.context], cursor, false);
      if (at === -1) throw new Error(`chunk ${n + 1} of ${shown}: the context line "@@ ${chunk.context}" was not found. Read the file and fix the patch.`);
      cursor = at + 1;
    }
    let body = chunk.lines;
    if (body.every((l) => l.kind === "+")) {
      // A pure addition goes after its context line, or at the end of the file.
      replacements.push({ at: chunk.context !== undefined && !chunk.eof ? cursor : lines.length, remove: 0, insert: body.map((l) => l.text) });
      continue;
    }
    let at = seek(lines, oldSide(body), cursor, chunk.eof);
    while (at === -1 && body.length > 1 && body.at(-1)!.kind === " " && body.at(-1)!.text === "") {
      // Trailing blank context lines the file does not have (often blank lines before the next header).
      body = body.slice(0, -1);
      at = seek(lines, oldSide(body), cursor, chunk.eof);
    }
    const oldLines = oldSide(body);
    if (at === -1) {
      const preview = oldLines.slice(0, 3).join("\n");
      throw new Error(`chunk ${n + 1} of ${shown}: these lines were not found in the file:\n${preview}${oldLines.length > 3 ? "\n…" : ""}\nRead the file again and make the context and "-" lines match it exactly.`);
    }
    // Context lines keep the file's own text (its whitespace), whatever the patch wrote.
    const insert: string[] = [];
    let k = at;
    for (const l of body) {
      if (l.kind === " ") insert.push(lines[k++]!);
      else if (l.kind === "-") k++;
      else insert.push(l.text);
    }
    replacements.push({ at, remove: oldLines.length, insert });
    cursor = at + oldLines.length;
  }
  for (const r of [...replacements].sort((a, b) => b.at - a.at)) lines.splice(r.at, r.remove, ...r.insert);
  return lines.length === 0 ? "" : `${lines.join("\n")}${trailingNewline || content === "" ? "\n" : ""}`;
}

// ---------------------------------------------------------------------------------------------
// Preparing and committing every change at once

/** One file operation of a prepared patch. */
interface FileOp {
  readonly kind: "write" | "delete";
  /** Real absolute path. */
  readonly path: string;
  /** The bytes before the patch (undefined: the file did not exist). */
  readonly before?: Buffer;
  readonly mode?: number;
  /** Encoded new content, for writes. */
  readonly after?: string;
}

export interface PreparedFile {
  readonly type: "add" | "update" | "delete" | "move";
  readonly path: string;
  readonly moveTo?: string;
  readonly diff: string;
  readonly additions: number;
  readonly deletions: number;
}

/** A hook tests use to fail the commit at a given step (to prove the rollback). */
export type CommitHook = (step: number, op: { kind: "write" | "delete"; path: string }) => void | Promise<void>;

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if (errorCode(error) === "ENOENT") return false;
    throw error;
  }
}

/**
 * Applies `ops` all or nothing: every new content is first written to a temp file beside its
 * target; then temps are renamed into place and deleted files moved aside, one by one. If any step
 * fails, the steps already done are undone (old contents written back, new files removed, moved
 * files put back) and the error is rethrown.
 */
async function commit(ops: readonly FileOp[], hook?: CommitHook): Promise<void> {
  const temps = new Map<FileOp, string>();
  const done: Array<{ op: FileOp; backup?: string }> = [];
  const createdDirs: Array<{ leaf: string; top: string }> = [];
  try {
    for (const op of ops) {
      if (op.kind !== "write") continue;
      // mkdir returns the first directory it had to create; everything below it is new too.
      const created = await mkdir(dirname(op.path), { recursive: true });
      if (created) createdDirs.push({ leaf: dirname(op.path), top: created });
      const temp = tempPathFor(op.path);
      const handle = await open(temp, "wx", op.mode ?? 0o666);
      temps.set(op, temp);
      try {
        await handle.writeFile(op.after ?? "");
        await handle.sync();
      } finally {
        await handle.close();
      }
      if (op.mode !== undefined) await chmod(temp, op.mode);
    }
    for (const [step, op] of ops.entries()) {
      await hook?.(step, { kind: op.kind, path: op.path });
      if (op.kind === "write") {
        await rename(temps.get(op)!, op.path);
        temps.delete(op);
        done.push({ op });
      } else {
        const backup = tempPathFor(op.path);
        await rename(op.path, backup);
        done.push({ op, backup });
      }
    }
  } catch (error) {
    for (const { op, backup } of done.reverse()) {
      try {
        if (backup) await rename(backup, op.path);
        else if (op.before) await atomicWrite(op.path, op.before, op.mode !== undefined ? { mode: op.mode } : {});
        else await unlink(op.path);
      } catch {
        // Best effort: keep undoing the other steps.
      }
    }
    for (const temp of temps.values()) await unlink(temp).catch(() => undefined);
    temps.clear();
    // Directories made for new files go too (each from the file's directory up to the first one made).
    for (const { leaf, top } of createdDirs.reverse()) {
      for (let d = leaf; ; d = dirname(d)) {
        if (!(await rmdir(d).then(() => true, () => false)) || d === top) break;
      }
    }
    throw error;
  } finally {
    for (const temp of temps.values()) await unlink(temp).catch(() => undefined);
  }
  for (const { backup } of done) if (backup) await unlink(backup).catch(() => undefined);
}

/**
 * The `patch` tool: applies a multi-file patch (add, update, move, delete) all or nothing. Every
 * change is validated and computed in memory first (paths, stale checks, chunks), then written
 * atomically; if a write fails, the files already changed are restored.
 */
export function createPatchTool(input: ToolDepsInput & { commitHook?: CommitHook } = {}) {
  const { state } = toolDeps(input);
  return defineTool({
    id: "patch",
    description:
      "Apply a patch that adds, updates, moves or deletes files, all or nothing. Format:\n" +
      "*** Begin Patch\n*** Add File: a.txt\n+line\n*** Update File: b.ts\n*** Move to: c.ts\n@@ function f() {\n context\n-old\n+new\n*** Delete File: d.txt\n*** End Patch\n" +
      "Update needs 3 lines of context around each change; `@@ line` finds a line first. Read files before updating them.",
    parameters: PatchParameters,
    permission(args, { directory }): ToolPermission[] {
      let hunks: PatchHunk[];
      try {
        hunks = parsePatch(args.patchText);
      } catch {
        // Nothing will be written: execute reports the parse error.
        return [];
      }
      const paths: string[] = [];
      for (const h of hunks) {
        paths.push(h.path);
        if (h.type === "update" && h.moveTo !== undefined) paths.push(h.moveTo);
      }
      return [...new Set(paths.map((p) => resolvePath(directory, p)))].map((abs) => filePermission("edit", directory, abs));
    },
    async execute(args, ctx) {
      const hunks = parsePatch(args.patchText);
      const targets = await Promise.all(
        hunks.map(async (h) => {
          const abs = resolvePath(ctx.directory, h.path);
          const dest = h.type === "update" && h.moveTo !== undefined ? resolvePath(ctx.directory, h.moveTo) : undefined;
          return { hunk: h, abs, real: await realPathOr(abs), dest, destReal: dest ? await realPathOr(dest) : undefined };
        }),
      );
      const keys = targets.flatMap((t) => (t.destReal ? [t.real, t.destReal] : [t.real]));
      return withLocks(keys, async () => {
        const touched = new Set<string>();
        const claim = (real: string, shown: string) => {
          if (touched.has(real)) throw new Error(`the patch changes ${shown} more than once; merge those changes into one hunk.`);
          touched.add(real);
        };
        const ops: FileOp[] = [];
        const files: PreparedFile[] = [];
        const recordAfter: string[] = [];
        for (const t of targets) {
          const shown = displayPath(ctx.directory, t.abs);
          claim(t.real, shown);
          const h = t.hunk;
          if (h.type === "add") {
            if (await exists(t.real)) throw new Error(`${shown} already exists; use "*** Update File: ${h.path}" to change it.`);
            ops.push({ kind: "write", path: t.real, after: h.content });
            const d = unifiedDiff(shown, "", h.content);
            files.push({ type: "add", path: shown, ...d });
            recordAfter.push(t.real);
            continue;
          }
          if (!(await exists(t.real))) throw new Error(`${shown} does not exist, so it cannot be ${h.type === "delete" ? "deleted" : "updated"}.`);
          const info = await stat(t.real);
          if (info.isDirectory()) throw new Error(`${shown} is a directory, not a file.`);
          await state.files.assertFresh(ctx.sessionID, t.real, shown, { requireRead: h.type === "update" });
          const raw = await readFile(t.real);
          const mode = info.mode & 0o7777;
          if (h.type === "delete") {
            // The path itself is removed (a symbolic link, not its target).
            ops.push({ kind: "delete", path: t.abs, before: raw, mode });
            const d = unifiedDiff(shown, raw.toString("utf8"), "");
            files.push({ type: "delete", path: shown, ...d });
            continue;
          }
          const decoded = decodeText(raw, shown);
          const updated = applyChunks(decoded.text, h.chunks, shown);
          const encoded = encodeText(updated, decoded);
          if (t.destReal && t.destReal !== t.real) {
            const destShown = displayPath(ctx.directory, t.dest!);
            claim(t.destReal, destShown);
            if (await exists(t.destReal)) throw new Error(`cannot move ${shown} to ${destShown}: it already exists.`);
            ops.push({ kind: "write", path: t.destReal, after: encoded, mode });
            ops.push({ kind: "delete", path: t.abs, before: raw, mode });
            const d = unifiedDiff(destShown, decoded.text, updated);
            files.push({ type: "move", path: shown, moveTo: destShown, ...d });
            recordAfter.push(t.destReal);
          } else {
            ops.push({ kind: "write", path: t.real, before: raw, mode, after: encoded });
            const d = unifiedDiff(shown, decoded.text, updated);
            files.push({ type: "update", path: shown, ...d });
            recordAfter.push(t.real);
          }
        }

        await commit(ops, input.commitHook);
        for (const path of recordAfter) await state.files.record(ctx.sessionID, path);
        const letter = { add: "A", update: "M", delete: "D", move: "R" } as const;
        const summary = files.map((f) => `${letter[f.type]} ${f.path}${f.moveTo ? ` -> ${f.moveTo}` : ""}`);
        return {
          title: files.length === 1 ? files[0]!.path : `${files.length} files`,
          output: `Patch applied:\n${summary.join("\n")}`,
          metadata: {
            diff: files.map((f) => f.diff).join("\n"),
            files: files.map(({ diff: _diff, ...rest }) => rest),
          },
        };
      });
    },
  });
}
