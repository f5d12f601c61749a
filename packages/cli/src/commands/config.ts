import { ExitCode } from "../exit-codes.js";
import { resolveConfig } from "../host.js";
import { parseGlobal, type CommandContext, type GlobalFlags } from "../main.js";

const SECRET_KEY = /(api[-_]?key|token|secret|password|authorization)$/i;

/** Config as JSON, with secrets masked and inline plugin objects shown by name. */
export function printableConfig(value: unknown, key = ""): unknown {
  if (typeof value === "function") return "[function]";
  if (Array.isArray(value)) return value.map((v) => printableConfig(v, key));
  if (typeof value === "object" && value !== null) {
    if (typeof (value as { setup?: unknown }).setup === "function") {
      return { inline: String((value as { name?: unknown }).name ?? "plugin") };
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, printableConfig(v, k)]));
  }
  if (typeof value === "string" && SECRET_KEY.test(key) && value !== "") return "********";
  return value;
}

export async function runConfig({ argv, io }: CommandContext): Promise<number> {
  const flags = parseGlobal(argv).values as GlobalFlags;
  const resolved = await resolveConfig(flags, io);
  const config = printableConfig(resolved.config) as Record<string, unknown>;
  if (flags.json) {
    io.out(`${JSON.stringify({ files: resolved.files, config, sources: resolved.sources }, null, 2)}\n`);
    return ExitCode.ok;
  }
  const { bold, dim } = io.style;
  const lines = [bold("Config files") + dim(" (lowest precedence first)")];
  if (resolved.files.length === 0) lines.push(dim("  none found; defaults apply"));
  for (const file of resolved.files) lines.push(`  ${file}`);
  const entries = Object.entries(resolved.sources);
  if (entries.length > 0) lines.push("", bold("Keys"));
  for (const [key, file] of entries) {
    lines.push(`  ${key} = ${JSON.stringify(valueAt(config, key))}  ${dim(`# ${file}`)}`);
  }
  io.out(`${lines.join("\n")}\n`);
  return ExitCode.ok;
}

/** Reads `a.b["c.d"][0]` from an object. */
function valueAt(root: unknown, path: string): unknown {
  const parts = [...path.matchAll(/([^.[\]]+)|\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]/g)].map((m) =>
    m[2] !== undefined ? Number(m[2]) : m[3] !== undefined ? JSON.parse(`"${m[3]}"`) : m[1],
  );
  let value: unknown = root;
  for (const part of parts) value = (value as Record<string | number, unknown> | undefined)?.[part];
  return value;
}
