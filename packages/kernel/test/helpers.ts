/**
 * Test helpers: temporary projects copied from fixture folders, a log sink that captures records,
 * and a kernel factory for plugins given inline. Everything here uses the kernel as users get it.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { onTestFinished } from "vitest";
import {
  createKernel,
  definePlugin,
  type Kernel,
  type KernelOptions,
  type LogRecord,
  type LogSink,
  type PluginContext,
  type PluginDefinition,
} from "@tessera/kernel";

export const FIXTURES = fileURLToPath(new URL("./fixtures/", import.meta.url));
const KERNEL_NODE_MODULES = fileURLToPath(new URL("../node_modules/", import.meta.url));

/**
 * A temporary project, laid out as
 *
 *     base/            (not a repository; `above/` of the fixture lands here)
 *     base/home        HOME
 *     base/xdg         XDG_CONFIG_HOME (`global/` of the fixture lands in base/xdg/tessera)
 *     base/repo        the project: `project/` of the fixture, with a `.git` folder
 */
export interface Project {
  readonly base: string;
  /** The repository root. */
  readonly root: string;
  readonly home: string;
  /** `$XDG_CONFIG_HOME/tessera`: the global config folder. */
  readonly global: string;
  /** The environment to give loadConfig/createKernel, so the real user's config never leaks in. */
  readonly env: NodeJS.ProcessEnv;
  /** A path inside the repository. */
  path(...parts: string[]): string;
  /** Writes a file inside the repository (folders are created). */
  write(relative: string, content: string): string;
  /** Creates a folder inside the repository and returns its path. */
  mkdir(relative: string): string;
  /** Makes `node_modules/<name>` point at the kernel's own copy of a dependency (e.g. zod). */
  link(name: string): void;
}

/**
 * Copies `fixtures/<name>` into a fresh temporary folder (see {@link Project}). Folders named
 * `_node_modules` are renamed to `node_modules` (git ignores the real name). Removed after the test.
 */
export function project(name?: string, options: { git?: boolean } = {}): Project {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "tessera-kernel-")));
  onTestFinished(() => rmSync(base, { recursive: true, force: true }));
  const root = join(base, "repo");
  const home = join(base, "home");
  const xdg = join(base, "xdg");
  const global = join(xdg, "tessera");
  mkdirSync(root, { recursive: true });
  mkdirSync(home, { recursive: true });
  mkdirSync(global, { recursive: true });

  if (name !== undefined) {
    const fixture = join(FIXTURES, name);
    if (!existsSync(fixture)) throw new Error(`no fixture ${fixture}`);
    const copy = (from: string, to: string) => {
      if (!existsSync(from)) return;
      cpSync(from, to, { recursive: true });
      renameNodeModules(to);
    };
    copy(join(fixture, "project"), root);
    copy(join(fixture, "global"), global);
    copy(join(fixture, "above"), base);
  }
  if (options.git !== false) mkdirSync(join(root, ".git"), { recursive: true });

  const path = (...parts: string[]) => join(root, ...parts);
  return {
    base,
    root,
    home,
    global,
    env: { HOME: home, XDG_CONFIG_HOME: xdg },
    path,
    write(relative, content) {
      const file = path(relative);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, content);
      return file;
    },
    mkdir(relative) {
      const dir = path(relative);
      mkdirSync(dir, { recursive: true });
      return dir;
    },
    link(dependency) {
      const target = realpathSync(join(KERNEL_NODE_MODULES, dependency));
      const link = path("node_modules", dependency);
      mkdirSync(dirname(link), { recursive: true });
      symlinkSync(target, link, "dir");
    },
  };
}

function renameNodeModules(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const full = join(dir, entry.name);
    if (entry.name === "_node_modules") {
      const renamed = join(dir, "node_modules");
      renameSync(full, renamed);
      renameNodeModules(renamed);
    } else {
      renameNodeModules(full);
    }
  }
}

/** A log sink that keeps every record, so warnings never reach stderr and tests can read them. */
export interface CapturedLog {
  readonly sink: LogSink;
  readonly records: LogRecord[];
  /** Records at `warn` or `error`. */
  problems(): LogRecord[];
}

export function captureLog(): CapturedLog {
  const records: LogRecord[] = [];
  return {
    sink: (record) => void records.push(record),
    records,
    problems: () => records.filter((r) => r.level === "warn" || r.level === "error"),
  };
}

/** A minimal valid plugin. */
export function plugin(
  name: string,
  setup: (ctx: PluginContext) => ReturnType<PluginDefinition["setup"]> = () => {},
  extra: Partial<Omit<PluginDefinition, "name" | "setup">> = {},
): PluginDefinition {
  return definePlugin({ name, version: "1.0.0", kernel: "^1.0.0", ...extra, setup: (ctx) => setup(ctx) });
}

export interface TestKernel {
  readonly kernel: Kernel;
  readonly log: CapturedLog;
  readonly project: Project;
}

/**
 * A kernel over an empty temporary project with the given plugins and no discovery; disposed after
 * the test.
 */
export async function kernelWith(
  plugins: KernelOptions["plugins"],
  options: Partial<Omit<KernelOptions, "plugins">> = {},
): Promise<TestKernel> {
  const p = project();
  const log = captureLog();
  const kernel = await createKernel({ directory: p.root, env: p.env, discover: false, log: log.sink, plugins, ...options });
  onTestFinished(() => kernel.dispose());
  return { kernel, log, project: p };
}

/** A kernel over a temporary copy of a fixture project; disposed after the test. */
export async function kernelFor(
  p: Project,
  options: Partial<KernelOptions> = {},
): Promise<{ kernel: Kernel; log: CapturedLog }> {
  const log = captureLog();
  const kernel = await createKernel({ directory: p.root, env: p.env, log: log.sink, ...options });
  onTestFinished(() => kernel.dispose());
  return { kernel, log };
}

/** Lets queued promise callbacks and timers at 0 ms run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** A promise that never settles: a hung tap. */
export function never(): Promise<void> {
  return new Promise<void>(() => {});
}

/** Rejection of `promise`, or a failure when it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the promise to reject, but it resolved");
}
