import { parseArgs, type ParseArgsConfig } from "node:util";
import { ExitCode, UsageError } from "./exit-codes.js";
import { processIO, type CliIO } from "./io.js";
import { commandHelp, globalHelp } from "./help.js";
import { cliVersion } from "./version.js";

/** Flags every command accepts. */
export const globalOptions = {
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "v" },
  json: { type: "boolean" },
  dir: { type: "string" },
  "log-level": { type: "string" },
  "print-logs": { type: "boolean" },
} as const satisfies ParseArgsConfig["options"];

export type GlobalFlags = {
  help?: boolean;
  version?: boolean;
  json?: boolean;
  dir?: string;
  "log-level"?: string;
  "print-logs"?: boolean;
};

type CommandRunner = (args: { positionals: string[]; flags: GlobalFlags; io: CliIO }) => Promise<number>;

/** Commands load their module only when called, so `--version` stays fast. */
const commands: Record<string, () => Promise<CommandRunner>> = {
  plugins: async () => (await import("./commands/plugins.js")).runPlugins,
  config: async () => (await import("./commands/config.js")).runConfig,
};

export async function main(argv: string[], io: CliIO = processIO()): Promise<number> {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof globalOptions; allowPositionals: true; strict: true }>>;
  try {
    parsed = parseArgs({ args: argv, options: globalOptions, allowPositionals: true, strict: true });
  } catch (error) {
    io.err(`tessera: ${(error as Error).message}\nRun "tessera --help" for usage.\n`);
    return ExitCode.usage;
  }
  const flags = parsed.values as GlobalFlags;
  const [name, ...positionals] = parsed.positionals;

  if (flags.version && !name) {
    io.out(`tessera ${cliVersion()}\n`);
    return ExitCode.ok;
  }
  if (!name) {
    io.out(globalHelp(cliVersion()));
    return flags.help ? ExitCode.ok : ExitCode.usage;
  }
  const load = commands[name];
  if (!load) {
    io.err(`tessera: unknown command "${name}"\nRun "tessera --help" to see the commands.\n`);
    return ExitCode.usage;
  }
  if (flags.help) {
    io.out(commandHelp(name));
    return ExitCode.ok;
  }
  if (flags["log-level"] && !["debug", "info", "warn", "error"].includes(flags["log-level"])) {
    io.err(`tessera: --log-level must be one of debug, info, warn, error (got "${flags["log-level"]}")\n`);
    return ExitCode.usage;
  }
  try {
    return await (await load())({ positionals, flags, io });
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`tessera ${name}: ${error.message}\nRun "tessera ${name} --help" for usage.\n`);
      return ExitCode.usage;
    }
    io.err(`tessera ${name}: ${(error as Error)?.message ?? String(error)}\n`);
    return ExitCode.error;
  }
}
