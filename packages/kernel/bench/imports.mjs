// Where start-up time goes: the cost of importing each of the kernel's dependencies on its own,
// each in a fresh `node` process (resolved from the kernel package, like the kernel does).
import { cleanEnv, kernelDir, kernelEntry, runNode, summary } from "./lib.mjs";

// `onStartPath`: loaded by `createKernel` on a project without a config file (the benchmark's case).
const MODULES = [
  { id: "zod", code: `await import("zod")`, onStartPath: "yes (static import)" },
  { id: "semver", code: `await import("semver")`, onStartPath: "yes (static import)" },
  {
    id: "semver, 3 functions by subpath",
    code: `await Promise.all(["semver/functions/valid.js", "semver/ranges/valid.js", "semver/functions/satisfies.js"].map((m) => import(m)))`,
    onStartPath: "no (what validate.js needs)",
  },
  { id: "tapable", code: `await import("tapable")`, onStartPath: "yes (static import)" },
  {
    id: "jiti + createJiti",
    code: `const { createJiti } = await import("jiti"); createJiti(import.meta.url, { fsCache: true })`,
    onStartPath: "yes (first plugin file)",
  },
  {
    id: "jiti babel transform",
    // Not exported by jiti; loaded by path, the way jiti's lazyTransform does.
    code: `const { createRequire } = await import("node:module"); const req = createRequire(import.meta.url); req(req.resolve("jiti").replace(/lib[\\/]jiti\\.cjs$/, "dist/babel.cjs"))`,
    onStartPath: "cold cache only",
  },
  { id: "cosmiconfig", code: `await import("cosmiconfig")`, onStartPath: "only with a JSON/YAML/rc config file" },
  { id: "ai", code: `await import("ai")`, onStartPath: "no (type imports only)" },
  { id: "@tessera/kernel (dist)", code: `await import(${JSON.stringify(kernelEntry)})`, onStartPath: "yes" },
];

export function runImports({ runs = 7 } = {}) {
  const results = [];
  for (const mod of MODULES) {
    const script = `const t = performance.now(); ${mod.code}; process.stdout.write(JSON.stringify({ ms: performance.now() - t }) + "\\n");`;
    const samples = [];
    for (let i = 0; i < runs; i++) {
      // Run from the kernel package so bare names resolve to its dependencies.
      const { data } = runNode(["--input-type=module", "-e", script], { env: cleanEnv(), cwd: kernelDir });
      samples.push(data.ms);
    }
    results.push({ id: mod.id, onStartPath: mod.onStartPath, importMs: summary(samples) });
  }
  return results;
}
