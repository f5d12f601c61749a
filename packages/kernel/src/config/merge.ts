import { isAbsolute, resolve, dirname } from "node:path";
import { isPlainObject, joinKey } from "./walk.js";
import type { PluginSpec } from "./schema.js";

/** A config file's contents, after substitution and validation. */
export interface ConfigLayer {
  readonly file: string;
  readonly config: Record<string, unknown>;
}

/** A plugin entry with the config file that listed it (relative paths resolve against that file). */
export interface PluginEntry {
  readonly spec: PluginSpec;
  /** The config file that listed it, or "auto" for `.tessera/plugins` discovery. */
  readonly source: string;
  /** Where in that file, e.g. `plugins[1]`. */
  readonly key: string;
}

export interface MergedConfig {
  readonly config: Record<string, unknown>;
  /** Key path → the file that set it (the last layer that did). */
  readonly sources: Record<string, string>;
  readonly plugins: PluginEntry[];
}

/**
 * Merges layers from lowest to highest precedence (global, then project files from the repo root
 * down to the working directory). Objects merge deeply, other values are replaced, and `plugins`
 * lists concatenate, keeping one entry per plugin (the highest layer's, at its place).
 */
export function mergeLayers(layers: readonly ConfigLayer[]): MergedConfig {
  let config: Record<string, unknown> = {};
  const sources: Record<string, string> = {};
  const plugins: PluginEntry[] = [];
  for (const layer of layers) {
    const { plugins: layerPlugins, ...rest } = layer.config;
    config = mergeInto(config, rest, layer.file, "", sources);
    if (Array.isArray(layerPlugins)) {
      layerPlugins.forEach((spec: PluginSpec, i) => {
        const id = pluginIdentity(spec, layer.file);
        const existing = plugins.findIndex((p) => pluginIdentity(p.spec, p.source) === id);
        if (existing !== -1) plugins.splice(existing, 1);
        plugins.push({ spec, source: layer.file, key: `plugins[${i}]` });
      });
    }
  }
  if (plugins.length > 0) {
    config.plugins = plugins.map((p) => p.spec);
    plugins.forEach((p, i) => (sources[`plugins[${i}]`] = p.source));
  }
  return { config, sources, plugins };
}

function mergeInto(
  target: Record<string, unknown>,
  source: Record<string, unknown>,
  file: string,
  prefix: string,
  sources: Record<string, string>,
): Record<string, unknown> {
  const out = { ...target };
  for (const [key, value] of Object.entries(source)) {
    const path = joinKey(prefix, key);
    if (isPlainObject(value) && isPlainObject(out[key])) {
      out[key] = mergeInto(out[key] as Record<string, unknown>, value, file, path, sources);
    } else {
      for (const known of Object.keys(sources)) if (known.startsWith(`${path}.`) || known.startsWith(`${path}[`)) delete sources[known];
      out[key] = value;
      recordSources(value, file, path, sources);
    }
  }
  return out;
}

function recordSources(value: unknown, file: string, path: string, sources: Record<string, string>): void {
  if (isPlainObject(value) && Object.keys(value).length > 0) {
    for (const [key, inner] of Object.entries(value)) recordSources(inner, file, joinKey(path, key), sources);
  } else {
    sources[path] = file;
  }
}

/** Two entries name the same plugin when they resolve to the same npm name, file or inline name. */
export function pluginIdentity(spec: PluginSpec, source: string): string {
  const target = Array.isArray(spec) ? spec[0] : spec;
  if (typeof target !== "string") return `inline:${String((target as { name?: unknown }).name)}`;
  if (isPathSpec(target)) return `file:${isAbsolute(target) ? target : resolve(dirname(source), target)}`;
  return `npm:${target}`;
}

export function isPathSpec(spec: string): boolean {
  return spec.startsWith(".") || spec.startsWith("/") || spec.startsWith("file:") || spec.startsWith("~/");
}
