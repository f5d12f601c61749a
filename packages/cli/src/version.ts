import { readFileSync } from "node:fs";

/** The CLI's own version, from its package.json (read lazily: only `--version` and `--help` need it). */
export function cliVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
  return pkg.version;
}
