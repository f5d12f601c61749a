import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Jiti } from "jiti";
import { tesseraPaths } from "../paths.js";

let jiti: Jiti | undefined;

/**
 * Imports a config or plugin file: TypeScript with no build step, ESM or CommonJS. Files importing
 * `@tessera/kernel` get this very kernel, so a plugin in `.tessera/plugins` needs no install and
 * shares the kernel's classes and event definitions.
 */
export async function importModule(file: string): Promise<unknown> {
  jiti ??= await createLoader();
  return jiti.import(file, { default: true });
}

async function createLoader(): Promise<Jiti> {
  const { createJiti } = await import("jiti");
  // A host that bundles the kernel (the CLI does) says where its entry is, so plugins share the
  // bundled instance instead of loading a second copy.
  const hosted = (globalThis as Record<symbol, unknown>)[Symbol.for("tessera.kernel.entry")];
  const self = typeof hosted === "string" ? hosted : fileURLToPath(new URL("../index.js", import.meta.url));
  return createJiti(import.meta.url, {
    alias: { "@tessera/kernel": self },
    // Transpiled files are cached on disk (keyed by content), which makes warm starts fast. The
    // default (a shared folder in /tmp) is wiped on reboot; Tessera's own cache folder is not.
    fsCache: join(tesseraPaths().cache, "jiti"),
    moduleCache: false,
    interopDefault: false,
  });
}
