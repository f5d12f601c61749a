// Subpath imports: the whole semver package costs ~13 ms to load, these three ~5 ms.
import satisfies from "semver/functions/satisfies.js";
import valid from "semver/functions/valid.js";
import validRange from "semver/ranges/valid.js";
import { z } from "zod";
import { KERNEL_API_VERSION } from "../version.js";
import type { PluginDefinition } from "./define.js";

const NAME = /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/i;

const isZodSchema = (value: unknown) =>
  typeof value === "object" && value !== null && typeof (value as { safeParse?: unknown }).safeParse === "function";

const PluginShape = z.object({
  name: z.string().regex(NAME, "must be an npm-style name such as my-plugin or @scope/my-plugin"),
  version: z.string().refine((v) => valid(v) !== null, "must be a semver version such as 1.0.0"),
  kernel: z.string().refine((v) => validRange(v) !== null, "must be a semver range such as ^1.0.0"),
  dependencies: z.array(z.string().min(1)).optional(),
  options: z.custom((v) => v === undefined || isZodSchema(v), "must be a zod schema").optional(),
  setup: z.custom((v) => typeof v === "function", "must be a function"),
});

/** Picks the plugin out of a module: the default export, or a named `plugin` export. */
export function pluginFromModule(mod: unknown): unknown {
  if (typeof mod !== "object" || mod === null) return mod;
  const m = mod as { default?: unknown; plugin?: unknown; setup?: unknown };
  if (typeof m.setup === "function") return m;
  if (m.default !== undefined) return pluginFromModule(m.default);
  return m.plugin;
}

/** Checks a plugin's shape and its kernel range; returns the problem as a sentence, or the plugin. */
export function checkPluginShape(value: unknown): { plugin: PluginDefinition } | { problem: string } {
  if (typeof value !== "object" || value === null) {
    return { problem: "the module does not export a plugin (expected a default export made with definePlugin)" };
  }
  const parsed = PluginShape.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { problem: `"${issue.path.join(".") || "plugin"}" ${issue.message}` };
  }
  const plugin = value as PluginDefinition;
  if (!satisfies(KERNEL_API_VERSION, plugin.kernel, { includePrerelease: true })) {
    return {
      problem: `supports kernel API ${plugin.kernel}, but this kernel's API is ${KERNEL_API_VERSION}; upgrade the plugin or Tessera`,
    };
  }
  return { plugin };
}

/** Validates config options against the plugin's schema; the message names the key path inside the options. */
export function parsePluginOptions(
  plugin: PluginDefinition,
  options: Record<string, unknown> | undefined,
): { options: unknown } | { problem: string; path: string } {
  if (!plugin.options) {
    if (options && Object.keys(options).length > 0) return { problem: "this plugin takes no options", path: "" };
    return { options: {} };
  }
  const parsed = plugin.options.safeParse(options ?? {});
  if (parsed.success) return { options: parsed.data };
  const issue = (parsed.error as z.ZodError).issues[0]!;
  return { problem: issue.message, path: issue.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("") };
}
