import { existsSync, readFileSync, statSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

const CONDITIONS = ["import", "node", "default"];
const EXTENSIONS = [".js", ".mjs", ".cjs"];

export interface PackageSearch {
  /** The project directory; `node_modules` folders are searched from here up. */
  readonly directory: string;
  /** Folders of globally installed packages, searched after the project. */
  readonly globalModules: readonly string[];
}

/** Where globally installed packages live: Tessera's own folder, npm's global prefix, NODE_PATH. */
export function globalModuleDirs(configDir: string, env: NodeJS.ProcessEnv): string[] {
  const dirs = [join(configDir, "node_modules")];
  const prefix = env.npm_config_prefix ?? env.NPM_CONFIG_PREFIX ?? dirname(dirname(process.execPath));
  dirs.push(process.platform === "win32" ? join(prefix, "node_modules") : join(prefix, "lib", "node_modules"));
  for (const entry of (env.NODE_PATH ?? "").split(delimiter)) if (entry) dirs.push(entry);
  return dirs;
}

/** The entry file of package `name`, from the project's node_modules up, then the global folders. */
export function resolvePackage(name: string, search: PackageSearch): string {
  const searched: string[] = [];
  for (const dir of [...nodeModulesUpFrom(search.directory), ...search.globalModules]) {
    searched.push(dir);
    const pkgDir = join(dir, name);
    if (existsSync(join(pkgDir, "package.json"))) return packageEntry(pkgDir);
  }
  throw new Error(
    `cannot find package "${name}" (looked in node_modules from ${search.directory} up, then ${search.globalModules.join(", ") || "no global folders"}); install it with "npm install ${name}"`,
  );
}

/** Imports a provider package and returns its `create*` factory. */
export async function loadProviderFactory(
  name: string,
  search: PackageSearch,
): Promise<{ factory: (options: Record<string, unknown>) => unknown; exportName: string; file: string }> {
  const file = resolvePackage(name, search);
  const module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  const { fn, exportName } = pickFactory(name, module);
  return { factory: fn, exportName, file };
}

/**
 * The package's provider factory: among exports named `create…` that are functions, the one
 * matching the package name (`@ai-sdk/amazon-bedrock` → `createAmazonBedrock`), else the only
 * or first one; a default export that has one is searched as well.
 */
export function pickFactory(
  name: string,
  module: Record<string, unknown>,
): { fn: (options: Record<string, unknown>) => unknown; exportName: string } {
  const candidates = Object.entries(module).filter(
    ([key, value]) => /^create[A-Z]/.test(key) && typeof value === "function",
  ) as Array<[string, (options: Record<string, unknown>) => unknown]>;
  if (candidates.length === 0 && module.default && typeof module.default === "object") {
    return pickFactory(name, module.default as Record<string, unknown>);
  }
  if (candidates.length === 0) {
    throw new Error(`package "${name}" exports no create… factory (exports: ${Object.keys(module).join(", ") || "none"})`);
  }
  const base = (name.split("/").pop() ?? name).replace(/^ai-sdk-provider-|^ai-sdk-|-ai-provider$|-provider$/g, "");
  const wanted = `create${base.split(/[-_.]/).map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join("")}`.toLowerCase();
  const exact = candidates.find(([key]) => key.toLowerCase() === wanted);
  const [exportName, fn] = exact ?? candidates[0]!;
  return { fn, exportName };
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

function packageEntry(pkgDir: string): string {
  const pkg = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")) as {
    exports?: unknown;
    module?: string;
    main?: string;
  };
  if (pkg.exports !== undefined) {
    const target = exportTarget(pkg.exports);
    if (!target) throw new Error(`package at ${pkgDir} exports no "." entry for import`);
    return join(pkgDir, target);
  }
  const main = pkg.module ?? pkg.main ?? "index.js";
  const full = join(pkgDir, main);
  if (isFile(full)) return full;
  for (const ext of EXTENSIONS) if (isFile(full + ext)) return full + ext;
  for (const ext of EXTENSIONS) if (isFile(join(full, `index${ext}`))) return join(full, `index${ext}`);
  throw new Error(`package at ${pkgDir} has no entry file (${main})`);
}

function exportTarget(exports: unknown): string | undefined {
  if (typeof exports === "string" || Array.isArray(exports)) return pick(exports);
  if (typeof exports !== "object" || exports === null) return undefined;
  const map = exports as Record<string, unknown>;
  const isSubpathMap = Object.keys(map).some((k) => k.startsWith("."));
  return pick(isSubpathMap ? map["."] : map);
}

function pick(target: unknown): string | undefined {
  if (typeof target === "string") return target;
  if (Array.isArray(target)) {
    for (const t of target) {
      const picked = pick(t);
      if (picked) return picked;
    }
    return undefined;
  }
  if (typeof target !== "object" || target === null) return undefined;
  for (const [condition, value] of Object.entries(target)) {
    if (CONDITIONS.includes(condition)) {
      const picked = pick(value);
      if (picked) return picked;
    }
  }
  return undefined;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
