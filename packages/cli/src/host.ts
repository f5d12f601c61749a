import { resolve } from "node:path";
import { createKernel, loadConfig, tesseraPaths, type Kernel, type LogLevel, type ResolvedConfig } from "@tessera/kernel";
import { z } from "zod";
import type { CliIO } from "./io.js";
import { createLogSink } from "./logging.js";
import type { GlobalFlags } from "./main.js";
import { standardPlugins } from "./standard-plugins.js";

// A CLI process is short-lived: zod's JIT (it compiles each schema's parser with `new Function`
// on first use) costs more at start than it saves here, ~28 ms of a two-step run (measured).
z.config({ jitless: true });

/** The project directory a command works in: `--dir`, else the current directory. */
export function projectDir(flags: GlobalFlags, io: CliIO): string {
  return resolve(io.cwd, flags.dir ?? ".");
}

export async function resolveConfig(flags: GlobalFlags, io: CliIO): Promise<ResolvedConfig> {
  return loadConfig({ cwd: projectDir(flags, io), env: io.env });
}

export interface StartOptions {
  /** Load the standard plugins (providers, tools, permissions); default true. */
  readonly standard?: boolean;
  /** `--auto`: approve asks no rule denies. */
  readonly auto?: boolean;
}

/** Starts the kernel the way every command does: config from the project, the standard plugins, logs to the log file. */
export async function startKernel(flags: GlobalFlags, io: CliIO, options: StartOptions = {}): Promise<Kernel> {
  const config = await resolveConfig(flags, io);
  const level = (flags["log-level"] ?? config.config.log_level ?? "info") as LogLevel;
  const { sink } = createLogSink({
    stateDir: tesseraPaths(io.env).state,
    level,
    print: flags["print-logs"] === true,
    err: io.err,
  });
  const plugins = options.standard === false ? [] : await standardPlugins({ auto: options.auto === true });
  return createKernel({ directory: config.directory, config, env: io.env, log: sink, logLevel: level, plugins });
}
