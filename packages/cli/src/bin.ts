#!/usr/bin/env node
// Kept tiny: `--version` and `--help` must not pay for loading the kernel.
import module from "node:module";

// V8's code cache on disk makes every later start faster.
module.enableCompileCache?.();

// In the bundle, the kernel is a chunk next to this file; plugins loaded from files must import
// that same instance (see @tessera/kernel's plugin import).
if (import.meta.url.endsWith("/bundle/tessera.mjs")) {
  (globalThis as Record<symbol, unknown>)[Symbol.for("tessera.kernel.entry")] = new URL("./kernel.mjs", import.meta.url).pathname;
}

const { main } = await import("./main.js");
main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    // A safety net, not the normal path: if some handle (a socket, a plugin's timer) outlives the
    // command, exit anyway once output has had time to flush.
    setTimeout(() => process.exit(code), 1000).unref();
  },
  (error: unknown) => {
    process.stderr.write(`tessera: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
