import { ExitCode } from "./exit-codes.js";
import { createStyle, colorEnabled, type Style } from "./style.js";

/** Where a command writes and what it knows of its environment; tests pass their own. */
export interface CliIO {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  readonly style: Style;
}

export function processIO(): CliIO {
  // A reader that stops early (`tessera sessions list | head -1`) closes the pipe: end quietly, as
  // a SIGPIPE would, instead of crashing on an unhandled EPIPE.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(ExitCode.ok);
    throw error;
  });
  return {
    cwd: process.cwd(),
    env: process.env,
    out: (text) => void process.stdout.write(text),
    err: (text) => void process.stderr.write(text),
    style: createStyle(colorEnabled(process.stdout)),
  };
}
