// Bundles the CLI, the kernel and the standard plugins into a few ES modules in dist/bundle.
// Why: Node loads hundreds of small files slowly (zod alone is ~95), and start-up time is a
// feature of a CLI. Commands stay separate chunks, so `--version` loads almost nothing.
import { readFileSync } from "node:fs";
import { build } from "esbuild";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));

await build({
  entryPoints: {
    tessera: "src/bin.ts",
    // The kernel's own entry, so plugins loaded from files at run time import this very instance.
    kernel: "@tessera/kernel",
  },
  outdir: "dist/bundle",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node22",
  outExtension: { ".js": ".mjs" },
  chunkNames: "chunks/[name]-[hash]",
  // Loaded only when needed and resolved from this package's node_modules: jiti (TypeScript
  // plugins), the bash grammar (a .wasm file next to its package).
  external: ["jiti", "web-tree-sitter", "tree-sitter-bash"],
  define: { __TESSERA_CLI_VERSION__: JSON.stringify(pkg.version) },
  banner: {
    // Some dependencies are CommonJS and call require(); give them one in the ES module scope.
    js: 'import { createRequire as __tesseraRequire } from "node:module"; const require = __tesseraRequire(import.meta.url);',
  },
  legalComments: "none",
  logLevel: "warning",
});
