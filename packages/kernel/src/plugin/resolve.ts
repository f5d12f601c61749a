import { existsSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isPathSpec } from "../config/merge.js";

const EXTENSIONS = [".ts", ".mts", ".cts", ".js", ".mjs", ".cjs"];
const CONDITIONS = ["import", "node", "default"];

export interface ResolveContext {
  /** The config file that listed the plugin; relative paths resolve against its folder. */
  readonly source: string;
  /** The project directory; npm names resolve from here first. */
  readonly directory: string;
  /** Folders that hold globally installed packages, searched after the project. */
  readonly globalModules: readonly string[];
}

/** Finds the file a plugin spec points at. Throws an Error whose message says where it looked. */
export function resolvePluginFile(spec: string, ctx: ResolveContext): string {
  if (isPathSpec(spec)) return resolvePath(spec, ctx.source);
  const { name, subpath } = splitPackageSpec(spec);
  const searched: string[] = [];
  for (const dir of [...nodeModulesUpFrom(ctx.directory), ...ctx.globalModules]) {
    const pkgDir = join(dir, name);
    searched.push(dir);
    if (existsSync(join(pkgDir, "package.json"))) return packageEntry(pkgDir, subpath);
  }
  throw new Error(
    `cannot find package "${name}" (looked in ${searched.length} node_modules folders, from ${ctx.directory} up, then globally); install it with "npm install -D ${name}"`,
  );
}

function resolvePath(spec: string, source: string): string {
  let path = spec.startsWith("file://") ? fileURLToPath(spec) : spec.startsWith("file:") ? spec.slice(5) : spec;
  if (path.startsWith("~/")) path = join(homedir(), path.slice(2));
  const full = isAbsolute(path) ? path : resolve(dirname(source), path);
  if (isFile(full)) return full;
  for (const ext of EXTENSIONS) if (isFile(full + ext)) return full + ext;
  if (isDirectory(full)) {
    if (existsSync(join(full, "package.json"))) return packageEntry(full, ".");
    for (const ext of EXTENSIONS) if (isFile(join(full, `index${ext}`))) return join(full, `index${ext}`);
  }
  throw new Error(`no file at ${full} (relative paths resolve against ${dirname(source)})`);
}

function splitPackageSpec(spec: string): { name: string; subpath: string } {
  const parts = spec.split("/");
  const count = spec.startsWith("@") ? 2 : 1;
  const name = parts.slice(0, count).join("/");
  const rest = parts.slice(count).join("/");
  return { name, subpath: rest ? `./${rest}` : "." };
}

function packageEntry(pkgDir: string, subpath: string): string {
  const pkg = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")) as {
    exports?: unknown;
    module?: string;
    main?: string;
  };
  if (pkg.exports !== undefined) {
    const target = exportTarget(pkg.exports, subpath);
    if (!target) throw new Error(`package at ${pkgDir} does not export "${subpath}"`);
    return join(pkgDir, target);
  }
  const main = subpath === "." ? (pkg.module ?? pkg.main ?? "index.js") : subpath;
  const full = join(pkgDir, main);
  if (isFile(full)) return full;
  for (const ext of EXTENSIONS) if (isFile(full + ext)) return full + ext;
  if (isDirectory(full)) for (const ext of EXTENSIONS) if (isFile(join(full, `index${ext}`))) return join(full, `index${ext}`);
  throw new Error(`package at ${pkgDir} has no entry file (${main})`);
}

/** The target of `subpath` in a package's `exports`, for ESM conditions. */
function exportTarget(exports: unknown, subpath: string): string | undefined {
  if (typeof exports === "string" || Array.isArray(exports)) return subpath === "." ? pickCondition(exports) : undefined;
  if (typeof exports !== "object" || exports === null) return undefined;
  const keys = Object.keys(exports);
  const isSubpathMap = keys.some((k) => k.startsWith("."));
  if (!isSubpathMap) return subpath === "." ? pickCondition(exports) : undefined;
  const map = exports as Record<string, unknown>;
  if (subpath in map) return pickCondition(map[subpath]);
  for (const key of keys) {
    const star = key.indexOf("*");
    if (star === -1) continue;
    const [prefix, suffix] = [key.slice(0, star), key.slice(star + 1)];
    if (subpath.startsWith(prefix) && subpath.endsWith(suffix)) {
      const match = subpath.slice(prefix.length, subpath.length - suffix.length);
      return pickCondition(map[key])?.replaceAll("*", match);
    }
  }
  return undefined;
}

function pickCondition(target: unknown): string | undefined {
  if (typeof target === "string") return target;
  if (Array.isArray(target)) {
    for (const t of target) {
      const picked = pickCondition(t);
      if (picked) return picked;
    }
    return undefined;
  }
  if (typeof target !== "object" || target === null) return undefined;
  for (const [condition, value] of Object.entries(target)) {
    if (CONDITIONS.includes(condition)) {
      const picked = pickCondition(value);
      if (picked) return picked;
    }
  }
  return undefined;
}

function nodeModulesUpFrom(start: string): string[] {
  const dirs: string[] = [];
  let dir = start;
  for (;;) {
    dirs.push(join(dir, "node_modules"));
    const parent = dirname(dir);
    if (parent === dir) return dirs;
    dir = parent;
  }
}

/** Where globally installed packages live: the global config folder, npm's global prefix, NODE_PATH. */
export function globalModuleDirs(configDir: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const dirs = [join(configDir, "node_modules")];
  const globalDir = (prefix: string) => (process.platform === "win32" ? join(prefix, "node_modules") : join(prefix, "lib", "node_modules"));
  const prefix = env.npm_config_prefix || env.NPM_CONFIG_PREFIX;
  if (prefix) dirs.push(globalDir(prefix));
  dirs.push(globalDir(dirname(dirname(process.execPath))));
  for (const p of (env.NODE_PATH ?? "").split(delimiter)) if (p) dirs.push(p);
  return [...new Set(dirs)];
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
