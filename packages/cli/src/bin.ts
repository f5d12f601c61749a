#!/usr/bin/env node
// Kept tiny: `--version` and `--help` must not pay for loading the kernel.
import { main } from "./main.js";

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`tessera: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
