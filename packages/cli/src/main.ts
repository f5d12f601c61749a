import { parseArgs, type ParseArgsConfig } from "node:util";
import { ExitCode, UsageError } from "./exit-codes.js";
import { commandHelp, globalHelp } from "./help.js";
import { processIO, type CliIO } from "./io.js";
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

/** What a command gets: its own arguments (after the command name) and the process around it. */
export interface CommandContext {
  readonly argv: string[];
  readonly io: CliIO;
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  readonly stdoutIsTTY: boolean;
  readonly interrupts: { on(listener: () => void): () => void };
}

type CommandRunner = (ctx: CommandContext) => Promise<number>;

/** The chat's own flags (`tessera` with no command). */
export const chatOptions = {
  model: { type: "string", short: "m" },
  agent: { type: "string" },
  auto: { type: "boolean" },
} as const satisfies ParseArgsConfig["options"];

/** Commands load their module only when called, so `--version` stays fast. */
const commands: Record<string, () => Promise<CommandRunner>> = {
  run: async () => (await import("./commands/run.js")).runRun,
  plugins: async () => (await import("./commands/plugins.js")).runPlugins,
  config: async () => (await import("./commands/config.js")).runConfig,
  sessions: async () => (await import("./commands/sessions.js")).runSessions,
  models: async () => (await import("./commands/models.js")).runModels,
  permissions: async () => (await import("./commands/permissions.js")).runPermissions,
};

/** Parses the global flags of a command's argv (strict: unknown flags are usage errors). */
export function parseGlobal(argv: string[], extra: ParseArgsConfig["options"] = {}) {
  return parseArgs({ args: argv, options: { ...globalOptions, ...extra }, allowPositionals: true, strict: true });
}

export async function main(argv: string[], context: Partial<CommandContext> = {}): Promise<number> {
  const io = context.io ?? processIO();
  const ctx: Omit<CommandContext, "argv"> = {
    io,
    stdin: context.stdin ?? process.stdin,
    stdoutIsTTY: context.stdoutIsTTY ?? process.stdout.isTTY === true,
    interrupts: context.interrupts ?? processInterrupts(),
  };
  const name = argv[0] !== undefined && !argv[0].startsWith("-") ? argv[0] : undefined;
  const rest = name ? argv.slice(1) : argv;

  if (!name) {
    let flags: GlobalFlags;
    let positionals: string[];
    try {
      ({ values: flags, positionals } = parseGlobal(rest, chatOptions));
    } catch (error) {
      return usage(io, (error as Error).message);
    }
    if (flags.version) {
      io.out(`tessera ${cliVersion()}\n`);
      return ExitCode.ok;
    }
    if (flags.help || positionals.length > 0) {
      io.out(globalHelp(cliVersion()));
      return ExitCode.ok;
    }
    // No command: the interactive chat.
    return guarded(io, "tessera", async () => (await import("./commands/chat.js")).runChat({ ...ctx, argv: rest }));
  }
  const load = commands[name];
  if (!load) return usage(io, `unknown command "${name}"`);
  if (rest.includes("--help") || rest.includes("-h")) {
    io.out(commandHelp(name));
    return ExitCode.ok;
  }
  return guarded(io, `tessera ${name}`, async () => (await load())({ ...ctx, argv: rest }));
}

/** Runs a command; a usage error exits 2 with a hint, any other error 1 with its message (no stack). */
async function guarded(io: CliIO, label: string, run: () => Promise<number>): Promise<number> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      io.err(`${label}: ${(error as Error).message}\nRun "${label} --help" for usage.\n`);
      return ExitCode.usage;
    }
    io.err(`${label}: ${(error as Error)?.message ?? String(error)}\n`);
    return ExitCode.error;
  }
}

function usage(io: CliIO, message: string): number {
  io.err(`tessera: ${message}\nRun "tessera --help" for usage.\n`);
  return ExitCode.usage;
}

/**
 * SIGINT and SIGTERM interrupt the running step instead of killing the process, so the session
 * store is left consistent; a second signal exits at once.
 */
function processInterrupts(): CommandContext["interrupts"] {
  return {
    on(listener) {
      let count = 0;
      const handler = (signal: NodeJS.Signals) => {
        count++;
        if (count > 1) process.exit(signal === "SIGINT" ? ExitCode.interrupted : 143);
        listener();
      };
      process.on("SIGINT", handler);
      process.on("SIGTERM", handler);
      return () => {
        process.off("SIGINT", handler);
        process.off("SIGTERM", handler);
      };
    },
  };
}
