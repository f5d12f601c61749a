import { relative } from "node:path";
import type { KernelDescription } from "@tessera/kernel";
import { ExitCode } from "../exit-codes.js";
import { startKernel } from "../host.js";
import type { CliIO } from "../io.js";
import { parseGlobal, type CommandContext, type GlobalFlags } from "../main.js";

/** The stable `--json` shape of `tessera plugins`. */
export interface PluginsJson {
  plugins: Array<{ name: string; version: string; source: string; hooks: string[] }>;
  errors: Array<{ plugin: string; stage: string; message: string }>;
}

export function pluginsJson(description: KernelDescription): PluginsJson {
  return {
    plugins: description.plugins.map((p) => ({ name: p.name, version: p.version, source: p.source, hooks: p.hooks })),
    errors: description.errors.map((e) => ({ plugin: e.plugin, stage: e.stage, message: e.message })),
  };
}

export async function runPlugins({ argv, io }: CommandContext): Promise<number> {
  const flags = parseGlobal(argv).values as GlobalFlags;
  const kernel = await startKernel(flags, io);
  try {
    const description = kernel.describe();
    if (flags.json) {
      io.out(`${JSON.stringify(pluginsJson(description), null, 2)}\n`);
      return ExitCode.ok;
    }
    io.out(renderPlugins(description, kernel.directory, io));
    return ExitCode.ok;
  } finally {
    await kernel.dispose();
  }
}

function renderPlugins(d: KernelDescription, dir: string, io: CliIO): string {
  const { bold, dim, red, cyan } = io.style;
  const show = (path: string) => (path.startsWith("/") ? relative(dir, path) || "." : path);
  const lines: string[] = [];
  lines.push(bold(`Plugins (${d.plugins.length})`) + dim(`  kernel API ${d.kernel}`));
  if (d.plugins.length === 0) lines.push(dim("  none: list plugins in tessera.config.* or add .tessera/plugins/*.ts"));
  for (const p of d.plugins) {
    lines.push(`  ${cyan(p.name)} ${p.version}  ${dim(`from ${show(p.file ?? p.source)}`)}`);
    if (p.hooks.length > 0) lines.push(`    hooks: ${p.hooks.join(", ")}`);
    for (const [kind, entries] of Object.entries(d.registries)) {
      const mine = entries.filter((e) => e.plugin === p.name).map((e) => e.id);
      if (mine.length > 0) lines.push(`    ${kind}: ${mine.join(", ")}`);
    }
  }
  if (d.errors.length > 0) {
    lines.push("", bold(red(`Failed to load (${d.errors.length})`)));
    for (const e of d.errors) lines.push(`  ${red(e.plugin)}  ${e.stage}  ${dim(`from ${show(e.source)}`)}`, `    ${e.message}`);
  }
  return `${lines.join("\n")}\n`;
}
