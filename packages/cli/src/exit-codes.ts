/** Process exit codes, documented in the README. */
export const ExitCode = {
  ok: 0,
  error: 1,
  usage: 2,
  interrupted: 130,
} as const;

/** A mistake in how the command was called: printed with a hint, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}
