import { z } from "zod";

/** The plugin's options (`["@tessera/plugin-tools", { … }]` in config). Every key has a default. */
export const ToolsOptionsSchema = z.object({
  /** Tool ids not to register, e.g. `["webfetch"]`. */
  disabled: z.array(z.string()).default([]),
  /** Where bash saves the full text of truncated output; default `<state>/tool-output`. */
  outputDir: z.string().optional(),
  read: z
    .object({
      maxLines: z.number().int().positive().default(2000),
      maxLineChars: z.number().int().positive().default(2000),
      maxBytes: z.number().int().positive().default(50 * 1024),
      maxImageBytes: z.number().int().positive().default(10 * 1024 * 1024),
    })
    .prefault({}),
  bash: z
    .object({
      defaultTimeoutMs: z.number().int().positive().default(120_000),
      maxTimeoutMs: z.number().int().positive().default(600_000),
      /** After SIGTERM, how long the process group gets before SIGKILL. */
      killGraceMs: z.number().int().nonnegative().default(2_000),
      /** After the shell exits, how long to keep reading output a background child may still write. */
      exitGraceMs: z.number().int().nonnegative().default(100),
      maxOutputBytes: z.number().int().positive().default(30 * 1024),
      maxOutputLines: z.number().int().positive().default(2000),
      /** The shell; default `$SHELL`, then /bin/bash, then /bin/sh. */
      shell: z.string().optional(),
    })
    .prefault({}),
  grep: z
    .object({
      maxMatches: z.number().int().positive().default(100),
      maxLineChars: z.number().int().positive().default(500),
      /** `auto`: ripgrep when `rg` is on PATH; `never`: the built-in search; or a path to `rg`. */
      ripgrep: z.string().default("auto"),
    })
    .prefault({}),
  glob: z.object({ maxResults: z.number().int().positive().default(100) }).prefault({}),
  list: z
    .object({
      maxEntries: z.number().int().positive().default(200),
      /** Extra directory or file names (globs) never listed. */
      ignore: z.array(z.string()).default([]),
    })
    .prefault({}),
  webfetch: z
    .object({
      maxBytes: z.number().int().positive().default(5 * 1024 * 1024),
      defaultTimeoutSec: z.number().positive().default(30),
      maxTimeoutSec: z.number().positive().default(120),
      /** Most bytes of converted text returned to the model. */
      maxOutputBytes: z.number().int().positive().default(50 * 1024),
    })
    .prefault({}),
});

export type ToolsOptions = z.output<typeof ToolsOptionsSchema>;
export type ToolsOptionsInput = z.input<typeof ToolsOptionsSchema>;

/** The options with every default filled in. */
export function resolveOptions(input: ToolsOptionsInput = {}): ToolsOptions {
  return ToolsOptionsSchema.parse(input);
}
