import { explain } from "@tessera/plugin-permissions";
import { ExitCode, UsageError } from "../exit-codes.js";
import { resolveConfig } from "../host.js";
import { parseGlobal, type CommandContext, type GlobalFlags } from "../main.js";

/** `tessera permissions explain <permission> <input> [--agent <name>] [--json]`. */
export async function runPermissions({ argv, io }: CommandContext): Promise<number> {
  const { values, positionals } = parseGlobal(argv, { agent: { type: "string" } });
  const flags = values as GlobalFlags & { agent?: string };
  const [action, permission, ...rest] = positionals;
  if (action !== "explain") throw new UsageError(`unknown action "${action ?? ""}"; use: tessera permissions explain <permission> <input>`);
  if (!permission || rest.length === 0) throw new UsageError("explain needs a permission and an input, e.g. explain bash \"git push\"");
  const config = await resolveConfig(flags, io);
  const result = await explain(permission, rest.join(" "), {
    config,
    directory: config.directory,
    env: io.env,
    ...(flags.agent ? { agent: flags.agent } : {}),
  });
  if (flags.json) {
    io.out(`${JSON.stringify(result, null, 2)}\n`);
    return ExitCode.ok;
  }
  const { bold, green, red, yellow, dim } = io.style;
  const paint = result.decision === "allow" ? green : result.decision === "deny" ? red : yellow;
  io.out(`${bold(paint(result.decision))}  ${permission} ${rest.join(" ")}\n`);
  if (result.rule === "default") io.out(dim("  decided by the built-in defaults\n"));
  else io.out(dim(`  rule ${result.rule.key} = "${result.rule.action}" in ${result.rule.source}\n`));
  io.out(`  ${result.reason}\n`);
  for (const detail of result.details) {
    const rule = detail.rule ? `${detail.rule.key}` : "default";
    io.out(dim(`  · ${detail.permission} ${detail.subject}: ${detail.action} (${rule})${detail.note ? ` — ${detail.note}` : ""}\n`));
  }
  return ExitCode.ok;
}
