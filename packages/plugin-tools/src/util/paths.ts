import { realpath } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import type { ToolPermission } from "@tessera/kernel";

/** A path the model gave, resolved against the project directory. */
export function resolvePath(directory: string, given: string | undefined): string {
  return resolve(directory, given ?? ".");
}

/** `abs` relative to the project directory, with `/` separators; `.` for the directory itself, `../…` outside it. */
export function relativePattern(directory: string, abs: string): string {
  const rel = relative(directory, abs);
  if (rel === "") return ".";
  // On a different drive (Windows), there is no relative path.
  if (isAbsolute(rel)) return rel.split(sep).join("/");
  return rel.split(sep).join("/");
}

/** How a path is shown to the model: relative inside the project, absolute outside it. */
export function displayPath(directory: string, abs: string): string {
  const rel = relativePattern(directory, abs);
  return rel.startsWith("../") || rel === ".." || isAbsolute(rel) ? abs : rel;
}

/**
 * The permission a file tool asks for: `read` or `edit`, the path relative to the project as the
 * pattern, and the absolute path in `metadata.filepath` (the permissions plugin resolves symlinks
 * and decides `external_directory` from it).
 */
export function filePermission(kind: "read" | "edit", directory: string, given: string | undefined): ToolPermission {
  const abs = resolvePath(directory, given);
  return { permission: kind, patterns: [relativePattern(directory, abs)], metadata: { filepath: abs } };
}

/**
 * The real path of `abs` (symlinks followed): of the file when it exists, else of its parent
 * directory joined with its name, else `abs` itself. Locks and read records use it, so a file
 * reached through a symlink is the same file.
 */
export async function realPathOr(abs: string): Promise<string> {
  try {
    return await realpath(abs);
  } catch {
    try {
      return join(await realpath(dirname(abs)), basename(abs));
    } catch {
      return abs;
    }
  }
}
