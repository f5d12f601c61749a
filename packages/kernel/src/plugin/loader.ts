import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { PluginEntry } from "../config/merge.js";
import { PluginLoadError, type LoadStage } from "../errors.js";
import type { PluginDefinition } from "./define.js";
import { importModule } from "./import.js";
import { resolvePluginFile, type ResolveContext } from "./resolve.js";
import { checkPluginShape, parsePluginOptions, pluginFromModule } from "./validate.js";

/** A plugin that resolved, imported and validated, waiting for setup. */
export interface PluginCandidate {
  readonly name: string;
  readonly index: number;
  readonly dependencies: readonly string[];
  readonly definition: PluginDefinition;
  readonly options: unknown;
  /** The config file that listed it, or the folder it was discovered in. */
  readonly source: string;
  /** What config said: an npm name, a path, or "inline". */
  readonly spec: string;
  /** The file it was imported from, when it came from a file. */
  readonly file?: string;
}

/** One plugin to load: from config, from discovery, or given to the kernel directly. */
export interface PluginRequest {
  readonly spec: PluginEntry["spec"] | PluginDefinition;
  readonly source: string;
  /** Where in the source, e.g. `plugins[2]`; empty for discovered or direct plugins. */
  readonly key: string;
}

export interface PrepareResult {
  readonly candidates: PluginCandidate[];
  readonly errors: PluginLoadError[];
}

/**
 * Resolves, imports and validates each requested plugin in order. A failure is recorded with its
 * stage and source and the rest keep loading; `strict` throws the first failure instead.
 */
export async function preparePlugins(
  requests: readonly PluginRequest[],
  resolveContext: Omit<ResolveContext, "source">,
  strict: boolean,
): Promise<PrepareResult> {
  const candidates: PluginCandidate[] = [];
  const errors: PluginLoadError[] = [];
  const fail = (plugin: string, stage: LoadStage, source: string, message: string, cause?: unknown) => {
    const error = new PluginLoadError(plugin, stage, source, message, cause);
    if (strict) throw error;
    errors.push(error);
  };

  for (const [index, request] of requests.entries()) {
    const [target, rawOptions] = Array.isArray(request.spec)
      ? [request.spec[0], request.spec[1] as Record<string, unknown>]
      : [request.spec, undefined];
    let label = typeof target === "string" ? target : String((target as { name?: unknown }).name ?? "inline plugin");
    let file: string | undefined;
    let exported: unknown = target;

    if (typeof target === "string") {
      try {
        file = resolvePluginFile(target, { ...resolveContext, source: request.source });
      } catch (error) {
        fail(label, "resolve", request.source, (error as Error).message, error);
        continue;
      }
      try {
        exported = pluginFromModule(await importModule(file));
      } catch (error) {
        fail(label, "import", request.source, `importing ${file} threw: ${(error as Error).message}`, error);
        continue;
      }
      // Once imported, a plugin is known by its name, so a validate failure names it and its
      // dependents are told it failed to load (not that it is missing from config).
      const named = typeof exported === "object" && exported !== null ? (exported as { name?: unknown }).name : undefined;
      if (typeof named === "string" && named !== "") label = named;
    }

    const shape = checkPluginShape(exported);
    if ("problem" in shape) {
      fail(label, "validate", request.source, shape.problem);
      continue;
    }
    const plugin = shape.plugin;
    label = plugin.name;
    const clash = candidates.find((c) => c.name === plugin.name);
    if (clash) {
      fail(label, "validate", request.source, `the name "${plugin.name}" is already used by the plugin from ${clash.source} (${clash.spec})`);
      continue;
    }
    const options = parsePluginOptions(plugin, rawOptions);
    if ("problem" in options) {
      const where = request.key ? `${request.key}[1]${options.path}` : `options${options.path}`;
      fail(label, "validate", request.source, `invalid option at "${where}": ${options.problem}`);
      continue;
    }
    candidates.push({
      name: plugin.name,
      index,
      dependencies: plugin.dependencies ?? [],
      definition: plugin,
      options: options.options,
      source: request.source,
      spec: typeof target === "string" ? target : "inline",
      ...(file ? { file } : {}),
    });
  }
  return { candidates, errors };
}

/** Plugin files (`*.ts`, `*.js`, …) in `folder`, sorted by file name, as plugin requests. */
export function discoverPlugins(folder: string): PluginRequest[] {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  return names
    .filter((n) => /\.(m|c)?(t|j)s$/.test(n) && !n.endsWith(".d.ts") && !n.startsWith("."))
    .sort()
    .map((n) => ({ spec: join(folder, n), source: folder, key: "" }));
}
