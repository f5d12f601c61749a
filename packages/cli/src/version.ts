import { readFileSync } from "node:fs";

// Set by the bundler (scripts/bundle.mjs); unset when running the tsc output directly.
declare const __TESSERA_CLI_VERSION__: string | undefined;

/** The CLI's own version. */
export function cliVersion(): string {
  if (typeof __TESSERA_CLI_VERSION__ === "string") return __TESSERA_CLI_VERSION__;
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
  return pkg.version;
}
