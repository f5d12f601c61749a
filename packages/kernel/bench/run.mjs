// Benchmarks for @tessera/kernel (not tests: nothing is asserted). Needs a build: `pnpm build`.
//   node bench/run.mjs [--only=dispatch,start,imports,engine] [--quick]
// Prints tables to stdout and merges the same figures into bench/results.json (sections not run
// keep their previous figures).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { runDispatch } from "./dispatch.mjs";
import { runImports } from "./imports.mjs";
import { benchDir, kernelEntry, round, table } from "./lib.mjs";
import { runStart } from "./start.mjs";

const TARGET_NS_PER_TAP = 2_000;
const TARGET_WARM_START_MS = 100;

const args = process.argv.slice(2);
const quick = args.includes("--quick");
const onlyArg = args.find((a) => a.startsWith("--only="));
const only = new Set(onlyArg ? onlyArg.slice("--only=".length).split(",") : ["dispatch", "start", "imports", "engine"]);

if (!existsSync(kernelEntry)) {
  console.error(`${kernelEntry} is missing; build first: pnpm --filter @tessera/kernel build`);
  process.exit(1);
}

const verdict = (value, target) => (value <= target ? "ok" : "MISSED");
const started = performance.now();
const results = {
  date: new Date().toISOString(),
  node: process.version,
  platform: `${process.platform}-${process.arch}`,
  targets: { nsPerTap: TARGET_NS_PER_TAP, warmStartMs: TARGET_WARM_START_MS },
};

if (only.has("dispatch")) {
  const api = await import(pathToFileURL(kernelEntry).href);
  const d = await runDispatch(api, quick ? { iterations: 50_000, rounds: 3, warmup: 20_000 } : {});
  results.dispatch = d;
  console.log(`\nHook dispatch: kernel.trigger("${d.hook}") — ${d.iterations} calls × ${d.rounds} rounds, median round`);
  console.log(
    table(
      ["scenario", "ns/call", "min", "max", "ns/tap", "target"],
      d.results.map((r) => [
        r.label,
        round(r.nsPerCall, 0),
        round(r.nsPerCallMin, 0),
        round(r.nsPerCallMax, 0),
        r.nsPerTap === null ? "" : round(r.nsPerTap, 0),
        r.nsPerTap === null ? "" : `${verdict(r.nsPerTap, TARGET_NS_PER_TAP)} (≤ ${TARGET_NS_PER_TAP})`,
      ]),
    ),
  );
  console.log(
    `ns/tap = (ns/call − baseline) / taps. Each further tap (10 taps − 1 tap) / 9: ` +
      `async ${round(d.marginalNsPerTap.async, 0)} ns, sync ${round(d.marginalNsPerTap.sync, 0)} ns`,
  );
}

if (only.has("start")) {
  const s = runStart(quick ? { runs: 7 } : {});
  results.start = s;
  console.log(
    `\nKernel start: ${s.plugins} TypeScript plugins from .tessera/plugins via jiti` +
      `${s.pluginsUseZod ? " (each imports zod)" : " (zod not resolvable: plugins without zod)"}, fresh process per run, median of ${s.runs}`,
  );
  const row = (name, key, target) => {
    const c = s.cold[key];
    const w = s.warm[key];
    return [name, round(c.median), round(w.median), `${round(w.min)}–${round(w.max)}`, target ?? ""];
  };
  console.log(
    table(
      ["ms", "cold", "warm", "warm min–max", "target"],
      [
        row("node boot (process start → main)", "bootMs"),
        row("import @tessera/kernel", "importMs"),
        row("createKernel (10 plugins)", "createKernelMs", `${verdict(s.warm.createKernelMs.median, TARGET_WARM_START_MS)} (warm ≤ ${TARGET_WARM_START_MS})`),
        row("first trigger", "firstTriggerMs"),
        row("process start → ready", "readyMs"),
        row("ready → event loop empty", "readyToExitMs"),
        row("process wall time", "wallMs", `${verdict(s.warm.wallMs.median, TARGET_WARM_START_MS)} (warm ≤ ${TARGET_WARM_START_MS})`),
      ],
    ),
  );
  console.log(
    `node alone (node -e ""): ${round(s.nodeStartupWallMs.median)} ms wall. ` +
      `jiti cache files after one cold start: ${s.jitiCacheFiles.cold}.`,
  );
}

if (only.has("imports")) {
  const imports = runImports(quick ? { runs: 5 } : {});
  results.imports = imports;
  console.log(`\nImport cost of each dependency on its own (fresh process, median of ${imports[0].importMs.runs})`);
  console.log(
    table(
      ["module", "import ms", "min", "on createKernel's path"],
      imports.map((m) => [m.id, round(m.importMs.median), round(m.importMs.min), m.onStartPath]),
    ),
  );
}

if (only.has("engine")) {
  // Imported only when run: it loads the AI SDK, which the other benchmarks do not need.
  const { printEngine, runEngine } = await import("./engine.mjs");
  const api = await import(pathToFileURL(kernelEntry).href);
  results.engine = await runEngine(api, { quick });
  printEngine(results.engine);
}

const file = join(benchDir, "results.json");
results.totalSeconds = round((performance.now() - started) / 1000, 1);
let previous = {};
try {
  previous = JSON.parse(readFileSync(file, "utf8"));
} catch {
  // no previous results (or unreadable): write these alone
}
writeFileSync(file, JSON.stringify({ ...previous, ...results }, null, 2) + "\n");
console.log(`\nwrote ${file} (${results.totalSeconds} s)`);
