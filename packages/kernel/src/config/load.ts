import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { z } from "zod";
import { ConfigError } from "../errors.js";
import { importModule } from "../plugin/import.js";
import { tesseraPaths } from "../paths.js";
import { mergeLayers, type ConfigLayer, type PluginEntry } from "./merge.js";
import { ConfigSchema, type Config } from "./schema.js";
import { substitute } from "./substitute.js";
import { joinKey } from "./walk.js";

/** Config file names, in the order they are tried within one directory (the first found wins). */
export const CONFIG_FILES = [
  "package.json",
  ".tesserarc",
  ".tesserarc.json",
  ".tesserarc.yaml",
  ".tesserarc.yml",
  "tessera.config.ts",
  "tessera.config.mts",
  "tessera.config.js",
  "tessera.config.mjs",
  "tessera.config.cjs",
  "tessera.config.json",
  "tessera.config.yaml",
  "tessera.config.yml",
] as const;

export interface LoadConfigOptions {
  /** Where the search starts; the project directory. */
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** The global config directory; defaults to `$XDG_CONFIG_HOME/tessera`. `false` skips the global layer. */
  globalDir?: string | false;
}

export interface ResolvedConfig {
  readonly config: Config;
  /** The files read, lowest precedence first. */
  readonly files: readonly string[];
  /** Key path → the file that set it. */
  readonly sources: Readonly<Record<string, string>>;
  /** The plugins to load, in config order, each with the file that listed it. */
  readonly plugins: readonly PluginEntry[];
  /** The project directory (the search start). */
  readonly directory: string;
  /** The repository root (nearest `.git` above the directory), or the directory when there is none. */
  readonly root: string;
}

/**
 * Finds and merges config: the global layer, then one file per directory from the repository root
 * down to the working directory (inner directories win). Each file is substituted and validated
 * on its own, so an error names the file and the key.
 */
export async function loadConfig(options: LoadConfigOptions): Promise<ResolvedConfig> {
  const env = options.env ?? process.env;
  const directory = resolve(options.cwd);
  const root = findRepoRoot(directory) ?? directory;
  const layers: ConfigLayer[] = [];

  const globalDir = options.globalDir === undefined ? tesseraPaths(env).config : options.globalDir;
  if (globalDir) {
    const file = findConfigFile(globalDir, ["config.json", "config.yaml", "config.yml", ...CONFIG_FILES]);
    if (file) {
      const layer = await readLayer(file, env);
      if (layer) layers.push(layer);
    }
  }
  for (const dir of directoriesBetween(root, directory)) {
    const file = findConfigFile(dir, CONFIG_FILES);
    if (!file) continue;
    const layer = await readLayer(file, env);
    if (layer) layers.push(layer);
  }

  const merged = mergeLayers(layers);
  return {
    config: merged.config as Config,
    files: layers.map((l) => l.file),
    sources: merged.sources,
    plugins: merged.plugins,
    directory,
    root,
  };
}

/** Reads, substitutes and validates one config file; `undefined` for a package.json without `tessera`. */
export async function readLayer(file: string, env: NodeJS.ProcessEnv): Promise<ConfigLayer | undefined> {
  const raw = await readConfigFile(file);
  if (raw === undefined) return undefined;
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new ConfigError(file, undefined, `expected an object, got ${Array.isArray(raw) ? "an array" : typeof raw}`);
  }
  const substituted = substitute(raw as Record<string, unknown>, file, env);
  const parsed = ConfigSchema.safeParse(substituted);
  if (!parsed.success) throw configIssue(file, parsed.error);
  return { file, config: parsed.data as Record<string, unknown> };
}

async function readConfigFile(file: string): Promise<unknown> {
  try {
    if (/\.(c|m)?(t|j)s$/.test(file)) {
      const mod = (await importModule(file)) as { default?: unknown };
      return mod.default ?? mod;
    }
    // A plain JSON file needs no loader; this keeps cosmiconfig (and its YAML parser) off the
    // start-up path of the most common config.
    if (file.endsWith(".json") && !file.endsWith("package.json")) {
      const text = readFileSync(file, "utf8");
      return text.trim() === "" ? {} : JSON.parse(text);
    }
    // cosmiconfig is CommonJS: its named export sits on `default` when a bundler wraps it.
    const mod = (await import("cosmiconfig")) as typeof import("cosmiconfig") & { default?: typeof import("cosmiconfig") };
    const cosmiconfig = mod.cosmiconfig ?? mod.default!.cosmiconfig;
    const explorer = cosmiconfig("tessera", { searchStrategy: "none", cache: false });
    const result = await explorer.load(file);
    if (!result || result.isEmpty) return file.endsWith("package.json") ? undefined : {};
    return result.config;
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(file, undefined, `cannot be loaded: ${(error as Error).message}`, error);
  }
}

function configIssue(file: string, error: z.ZodError): ConfigError {
  const issue = error.issues[0]!;
  const key = issue.path.reduce<string>((acc, part) => joinKey(acc, part as string | number), "");
  let message = issue.message;
  if (issue.code === "unrecognized_keys") {
    const unknown = issue.keys[0]!;
    const suggestion = closest(unknown, keysAt(ConfigSchema, issue.path));
    const where = joinKey(key, unknown);
    message = `unknown key "${unknown}"${suggestion ? `; did you mean "${suggestion}"?` : ""}`;
    return new ConfigError(file, where, message, error);
  }
  const more = error.issues.length > 1 ? ` (and ${error.issues.length - 1} more)` : "";
  return new ConfigError(file, key || undefined, `${message}${more}`, error);
}

/** The keys allowed by the object schema at `path` (so a nested typo is matched against its siblings). */
function keysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  const unwrap = (s: z.ZodType | undefined): z.ZodType | undefined =>
    s instanceof z.ZodOptional || s instanceof z.ZodDefault ? unwrap(s.unwrap() as z.ZodType) : s;
  let current = unwrap(schema);
  for (const part of path) {
    if (current instanceof z.ZodObject) current = unwrap((current.shape as Record<string, z.ZodType>)[String(part)]);
    else if (current instanceof z.ZodRecord) current = unwrap(current.valueType as z.ZodType);
    else return [];
  }
  return current instanceof z.ZodObject ? Object.keys(current.shape) : [];
}

/** The closest candidate by edit distance, when it is close enough to be a typo. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(word.length / 3)) + 1;
  for (const candidate of candidates) {
    const d = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length]!;
}

function findConfigFile(dir: string, names: readonly string[]): string | undefined {
  for (const name of names) {
    const file = join(dir, name);
    if (!existsSync(file)) continue;
    if (name === "package.json" && !packageHasConfig(file)) continue;
    return file;
  }
  return undefined;
}

function packageHasConfig(file: string): boolean {
  try {
    const pkg = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    return pkg.tessera !== undefined;
  } catch {
    return false; // a broken package.json is not ours to report
  }
}

/** The nearest directory at or above `start` that holds `.git` (a folder, or a file for worktrees). */
export function findRepoRoot(start: string): string | undefined {
  let dir = start;
  for (;;) {
    if (existsSync(join(dir, ".git"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** `root`, then each directory down to `leaf` (inclusive); just `leaf` when it is not under `root`. */
export function directoriesBetween(root: string, leaf: string): string[] {
  const dirs: string[] = [];
  let dir = leaf;
  for (;;) {
    dirs.unshift(dir);
    if (dir === root) return dirs;
    const parent = dirname(dir);
    if (parent === dir) return [leaf];
    dir = parent;
  }
}
