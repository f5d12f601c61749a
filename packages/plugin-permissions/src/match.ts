import { homedir } from "node:os";
import { Minimatch } from "minimatch";

/**
 * Command-style wildcard: `*` matches any run of characters (spaces and slashes included), `?` one
 * character, everything else itself. A pattern ending in " *" also matches without that tail, so
 * `"git log *"` matches both `git log` and `git log -p`.
 */
export function wildcardMatch(pattern: string, subject: string): boolean {
  if (pattern === "*") return true;
  return wildcardRegExp(pattern).test(subject);
}

const wildcardCache = new Map<string, RegExp>();

export function wildcardRegExp(pattern: string): RegExp {
  let re = wildcardCache.get(pattern);
  if (re) return re;
  let body = pattern;
  let optionalTail = false;
  if (body.endsWith(" *")) {
    body = body.slice(0, -2);
    optionalTail = true;
  }
  let source = "";
  for (const ch of body) {
    if (ch === "*") source += ".*";
    else if (ch === "?") source += ".";
    else source += ch.replace(/[.+^${}()|[\]\\/-]/g, "\\$&");
  }
  if (optionalTail) source += "(?: .*)?";
  re = new RegExp(`^${source}$`, "s");
  if (wildcardCache.size > 5_000) wildcardCache.clear();
  wildcardCache.set(pattern, re);
  return re;
}

/** A path as rules see it: relative to the project directory (posix), and absolute. */
export interface PathSubject {
  /** Relative to the project directory, posix separators; starts with `../` when outside. */
  readonly rel: string;
  /** Absolute, posix separators. */
  readonly abs: string;
}

const pathCache = new Map<string, (subject: PathSubject) => boolean>();

/**
 * Path patterns are minimatch globs (dot files included):
 * - `*` and `**` match every path;
 * - a pattern starting with `/` or `~` matches the absolute path (`~` is the home directory);
 * - a pattern without a `/` matches the file name at any depth (`*.env`, `.env*`), like .gitignore;
 * - any other pattern matches the path relative to the project directory (`src/**`, `.git/**`);
 * - `dir/**` also matches `dir` itself.
 */
export function pathMatch(pattern: string, subject: PathSubject, home = homedir()): boolean {
  let fn = pathCache.get(pattern);
  if (!fn) {
    fn = compilePathPattern(pattern, home);
    if (pathCache.size > 5_000) pathCache.clear();
    pathCache.set(pattern, fn);
  }
  return fn(subject);
}

function compilePathPattern(pattern: string, home: string): (subject: PathSubject) => boolean {
  if (pattern === "*" || pattern === "**") return () => true;
  let p = pattern.replace(/\\/g, "/");
  let absolute = false;
  if (p === "~" || p.startsWith("~/")) {
    p = home.replace(/\\/g, "/").replace(/\/$/, "") + p.slice(1);
    absolute = true;
  } else if (p.startsWith("/")) absolute = true;
  if (p.startsWith("./")) p = p.slice(2);
  const options = { dot: true, matchBase: !p.includes("/"), nocomment: true, nonegate: true };
  const mm = new Minimatch(p, options);
  const base = p.endsWith("/**") ? p.slice(0, -3) : undefined;
  const baseMm = base !== undefined && base !== "" ? new Minimatch(base, { ...options, matchBase: false }) : undefined;
  return (subject) => {
    const s = absolute ? subject.abs : subject.rel;
    return mm.match(s) || (baseMm !== undefined && baseMm.match(s));
  };
}
