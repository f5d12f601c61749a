import { listModels } from "@tessera/plugin-providers";
import { ExitCode } from "../exit-codes.js";
import { startKernel } from "../host.js";
import { parseGlobal, type CommandContext, type GlobalFlags } from "../main.js";

/** `tessera models [--json]`: the models of every provider usable right now (a key or config is present). */
export async function runModels({ argv, io }: CommandContext): Promise<number> {
  const { values } = parseGlobal(argv, { all: { type: "boolean" } });
  const flags = values as GlobalFlags & { all?: boolean };
  const kernel = await startKernel(flags, io);
  try {
    const rows = listModels(kernel, { includeUnusable: flags.all === true });
    if (flags.json) {
      io.out(`${JSON.stringify(rows, null, 2)}\n`);
      return ExitCode.ok;
    }
    const { dim, bold, yellow } = io.style;
    if (rows.every((r) => r.providerID === "demo")) {
      io.out(dim('no provider is usable: set an API key (e.g. ANTHROPIC_API_KEY) or configure "provider" in tessera.config.json\n'));
    }
    let current = "";
    for (const row of rows) {
      if (row.providerID !== current) io.out(`${bold(row.providerName ?? row.providerID)}\n`);
      current = row.providerID;
      const limit = row.limit ? `${Math.round(row.limit.context / 1000)}k ctx` : "";
      const cost = row.cost ? `$${row.cost.input}/$${row.cost.output} per Mtok` : "";
      const problem = row.usable ? "" : yellow(` (${row.problem ?? "not usable"})`);
      io.out(`  ${row.ref}  ${dim([row.name, limit, cost].filter(Boolean).join(" · "))}${problem}\n`);
    }
    return ExitCode.ok;
  } finally {
    await kernel.dispose();
  }
}
