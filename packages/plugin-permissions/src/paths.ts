import { readdirSync, realpathSync, statSync } from "node:fs";
import { posix } from "node:path";

/** A path resolved for a permission check. All values are absolute or posix-relative. */
export interface ResolvedPath {
  /** As the request or command gave it. */
  readonly input: string;
  /** Absolute, `..` removed lexically, symlinks not resolved. */
  readonly lexical: string;
  /** Absolute with symlinks resolved (for a new file: its nearest existing parent, then the rest). */
  readonly real: string;
  /** The real path is inside the project directory or the repository root. */
  readonly inside: boolean;
  /** The real path relative to the project directory (`../x` when above it). */
  readonly rel: string;
  /** The lexical path relative to the project directory. */
  readonly logicalRel: string;
}

const realCache = new Map<string, string>();

// Filled during one decision only (see `ProjectPaths.fresh`): the disk may change between decisions.
let memo: Map<string, string | undefined> | undefined;

function realpath(p: string): string | undefined {
  if (memo?.has(p)) return memo.get(p);
  let real: string | undefined;
  try {
    real = realpathSync.native(p);
  } catch {
    real = undefined;
  }
  memo?.set(p, real);
  return real;
}

/**
 * Resolves like the kernel does when it opens the path: components from left to right, each
 * existing one through realpath before `..` applies to it (so `link/../x` follows `link`). Once a
 * component does not exist, the rest is lexical (nothing below it can be a symlink).
 */
export function physicalPath(absolute: string): string {
  const normalized = posix.normalize(absolute);
  if (!absolute.split("/").includes("..")) {
    // The common case: realpath the path, or its nearest existing parent.
    const direct = realpath(normalized);
    if (direct) return direct;
    let parent = posix.dirname(normalized);
    let rest = posix.basename(normalized);
    while (parent !== "/") {
      const real = realpath(parent);
      if (real) return posix.join(real, rest);
      rest = posix.join(posix.basename(parent), rest);
      parent = posix.dirname(parent);
    }
    return normalized;
  }
  let current = "/";
  let exists = true;
  for (const part of absolute.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      current = posix.dirname(current);
      continue;
    }
    const next = posix.join(current, part);
    if (exists) {
      const real = realpath(next);
      if (real) {
        current = real;
        continue;
      }
      exists = false;
    }
    current = next;
  }
  return current;
}

const PROTECTED_NAME = (segment: string) =>
  segment === ".git" || segment === ".tessera" || segment.startsWith("tessera.config.") || segment.startsWith(".tesserarc");

export class ProjectPaths {
  readonly directory: string;
  readonly root: string;
  readonly directoryReal: string;
  readonly rootReal: string;

  constructor(
    directory: string,
    root: string,
    readonly home: string,
    /** Absolute directories that are protected wherever they are (Tessera's global config, approvals). */
    readonly protectedDirs: readonly string[] = [],
  ) {
    this.directory = posix.resolve(directory);
    this.root = posix.resolve(root);
    this.directoryReal = cached(this.directory);
    this.rootReal = cached(this.root);
  }

  /** Runs `fn` with realpath results cached for its duration (one decision). */
  fresh<T>(fn: () => T): T {
    const outer = memo;
    memo = new Map();
    try {
      return fn();
    } finally {
      memo = outer;
    }
  }

  /**
   * Resolves `value` (from a request or a command line) against `cwd`. `tilde`: the value starts
   * with an unquoted `~` meaning the home directory.
   */
  resolve(value: string, cwd: string, tilde = false): ResolvedPath {
    let v = value;
    if (tilde && (v === "~" || v.startsWith("~/"))) v = this.home + v.slice(1);
    const joined = v.startsWith("/") ? v : `${cwd.replace(/\/$/, "")}/${v}`;
    const lexical = posix.normalize(joined).replace(/(.)\/$/, "$1");
    const real = physicalPath(joined);
    // /proc/self/… means the shell's process there, not ours: never treat it as inside.
    const inside = !lexical.startsWith("/proc/") && (isWithin(real, this.directoryReal) || isWithin(real, this.rootReal));
    const rel = posix.relative(this.directoryReal, real) || ".";
    const logicalRel = posix.relative(this.directory, lexical) || ".";
    return { input: value, lexical, real, inside, rel, logicalRel };
  }

  /**
   * A protected path: inside `.git`, `.tessera`, a `tessera.config.*` or `.tesserarc*` file, or a
   * protected directory. `broad` (a glob or a recursive write): also a directory that holds one
   * of those, or an ancestor of the project.
   */
  isProtected(path: ResolvedPath, broad = false): boolean {
    for (const candidate of [path.real, path.lexical]) {
      const within = isWithin(candidate, this.rootReal)
        ? posix.relative(this.rootReal, candidate)
        : isWithin(candidate, this.root)
          ? posix.relative(this.root, candidate)
          : candidate;
      if (within.split("/").some(PROTECTED_NAME)) return true;
      if (this.protectedDirs.some((dir) => isWithin(candidate, dir))) return true;
    }
    if (broad) {
      const real = path.real;
      if (isWithin(this.rootReal, real) || isWithin(this.directoryReal, real)) return true; // the project or above it
      if (this.protectedDirs.some((dir) => isWithin(dir, real))) return true;
      try {
        if (statSync(real).isDirectory() && readdirSync(real).some(PROTECTED_NAME)) return true;
      } catch {
        // does not exist: holds nothing
      }
    }
    return false;
  }

  /** The directory an "always" approval of an outside path covers: the path if a directory, else its parent. */
  approvalDir(path: ResolvedPath): string {
    try {
      if (statSync(path.real).isDirectory()) return path.real;
    } catch {
      // fall through
    }
    return posix.dirname(path.real);
  }
}

/** Whether `path` is `dir` or below it. */
export function isWithin(path: string, dir: string): boolean {
  if (path === dir) return true;
  return path.startsWith(dir.endsWith("/") ? dir : `${dir}/`);
}

function cached(p: string): string {
  let real = realCache.get(p);
  if (!real) {
    real = physicalPath(p);
    realCache.set(p, real);
  }
  return real;
}

/** Whether a rule pattern names a protected path explicitly (`.git/**`, `.tessera/plugins/*`, `tessera.config.ts`). */
export function namesProtected(pattern: string, protectedDirs: readonly string[], home: string): boolean {
  const p = pattern.startsWith("~") ? home + pattern.slice(1) : pattern;
  if (p.split("/").some(PROTECTED_NAME)) return true;
  return protectedDirs.some((dir) => isWithin(p, dir));
}
