// Benchmarks for @tessera/plugin-tools (figures only, nothing asserted). Needs a build: `pnpm build`.
//   node bench/run.mjs [--files=20000] [--runs=5]
// Generates a tree of 20,000 files and times grep and glob three ways: raw ripgrep, the tool
// through ripgrep, and the tool's built-in JS search; prints the ratios. Then prints the size of
// the JSON the default tool set costs in every request.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const args = process.argv.slice(2);
const arg = (name, fallback) => Number(args.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback);
const FILES = arg("files", 20_000);
const RUNS = arg("runs", 5);

const entry = fileURLToPath(new URL("../dist/index.js", import.meta.url));
if (!existsSync(entry)) {
  console.error(`${entry} is missing; build first: pnpm --filter @tessera/plugin-tools build`);
  process.exit(1);
}
const tools = await import(pathToFileURL(entry).href);

const rgProbe = spawnSync("rg", ["--version"], { encoding: "utf8" });
const rg = rgProbe.status === 0 ? "rg" : undefined;
const rgVersion = rg ? rgProbe.stdout.split("\n")[0] : "not installed";

// ---------------------------------------------------------------------------------------------
// The tree: FILES files in FILES/100 directories (two levels), a .gitignore leaving out one
// directory in ten, 1 file in 100 holding "needle", every file holding "function".

const WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "theta", "kappa", "lambda", "sigma"];
function makeTree() {
  const root = mkdtempSync(join(tmpdir(), "tessera-tools-bench-"));
  mkdirSync(join(root, ".git"));
  writeFileSync(join(root, ".gitignore"), "generated-*/\n*.log\n");
  const perDir = 100;
  for (let i = 0; i < FILES; i++) {
    const d = Math.floor(i / perDir);
    const top = d % 10 === 9 ? `generated-${d}` : `pkg${Math.floor(d / 10)}`;
    const dir = join(root, top, `mod${d}`);
    if (i % perDir === 0) mkdirSync(dir, { recursive: true });
    const lines = [];
    for (let l = 0; l < 40; l++) lines.push(`${WORDS[(i + l) % 10]} ${WORDS[(i * 7 + l) % 10]} value_${i}_${l} = ${i * l};`);
    lines.push(`export function f${i}() { return ${i}; }`);
    if (i % 100 === 42) lines.push(`// needle ${i}`);
    writeFileSync(join(dir, `file${i}.${i % 3 === 0 ? "ts" : i % 3 === 1 ? "js" : "md"}`), `${lines.join("\n")}\n`);
  }
  return root;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
/** Median times of `fns` (undefined entries skipped), measured in interleaved rounds after a warm-up, so drift hits all alike. */
async function timeAll(fns) {
  for (const fn of fns) if (fn) await fn();
  const samples = fns.map(() => []);
  for (let round = 0; round < RUNS; round++) {
    for (const [i, fn] of fns.entries()) {
      if (!fn) continue;
      const started = performance.now();
      await fn();
      samples[i].push(performance.now() - started);
    }
  }
  return samples.map((xs) => (xs.length ? median(xs) : undefined));
}

const ctx = (directory) => ({
  sessionID: "ses_bench",
  messageID: "msg_bench",
  callID: "call_bench",
  agent: "build",
  directory,
  abort: new AbortController().signal,
  ask: async () => undefined,
  metadata: () => undefined,
  subtask: async () => ({ sessionID: "", text: "" }),
});

const fmt = (ms) => `${ms.toFixed(1)} ms`;
const ratio = (a, b) => (b ? `${(a / b).toFixed(2)}×` : "n/a");
function table(header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => cells.map((c, i) => String(c).padEnd(widths[i])).join("  ");
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

console.log(`@tessera/plugin-tools bench — node ${process.version}, ${process.platform}-${process.arch}, ripgrep: ${rgVersion}`);
const started = performance.now();
const root = makeTree();
spawnSync("sync"); // the new files written back first, so writeback does not land in a measurement
console.log(`Generated ${FILES} files in ${fmt(performance.now() - started)} under ${root} (median of ${RUNS} interleaved runs after a warm-up)\n`);

try {
  const grepRg = rg ? tools.createGrepTool({ ripgrep: rg }) : undefined;
  const grepJs = tools.createGrepTool({ ripgrep: false });
  const globRg = rg ? tools.createGlobTool({ ripgrep: rg }) : undefined;
  const globJs = tools.createGlobTool({ ripgrep: false });
  const c = ctx(root);
  const rows = [];

  const searches = [
    { label: 'grep "needle" (1 file in 100)', raw: ["--no-config", "-n", "needle", root], tool: "grep", args: { pattern: "needle" } },
    { label: 'grep "function f\\d+" (every file)', raw: ["--no-config", "-n", "function f\\d+", root], tool: "grep", args: { pattern: "function f\\d+" } },
    { label: 'grep "needle" include "*.ts"', raw: ["--no-config", "-n", "--type-add", "x:*.ts", "-t", "x", "needle", root], tool: "grep", args: { pattern: "needle", include: "*.ts" } },
    { label: 'glob "**/*.ts"', raw: ["--no-config", "--files", "--glob", "**/*.ts", root], tool: "glob", args: { pattern: "**/*.ts" } },
    { label: 'glob "pkg3/**/file3*.md"', raw: ["--no-config", "--files", "--glob", "pkg3/**/file3*.md", root], tool: "glob", args: { pattern: "pkg3/**/file3*.md" } },
  ];
  const figures = [];
  for (const s of searches) {
    const viaRgTool = s.tool === "grep" ? grepRg : globRg;
    const viaJsTool = s.tool === "grep" ? grepJs : globJs;
    const [raw, viaRg, viaJs] = await timeAll([
      rg ? () => spawnSync(rg, s.raw, { cwd: root, stdio: ["ignore", "pipe", "pipe"], maxBuffer: 1 << 30 }) : undefined,
      viaRgTool ? () => viaRgTool.execute(s.args, c) : undefined,
      () => viaJsTool.execute(s.args, c),
    ]);
    figures.push({ search: s.label, rawRgMs: raw, toolRgMs: viaRg, toolJsMs: viaJs });
    rows.push([s.label, raw ? fmt(raw) : "n/a", viaRg ? fmt(viaRg) : "n/a", fmt(viaJs), ratio(viaRg, raw), ratio(viaJs, raw)]);
  }
  console.log(`Search over ${FILES} files`);
  console.log(table(["search", "raw rg", "tool via rg", "tool, JS", "tool rg / raw rg", "JS / raw rg"], rows));

  const schemas = tools.toolSchemas(
    tools.createTools({
      agents: () => [
        { id: "explore", mode: "subagent", description: "Fast read-only agent for searching the codebase: finds files by pattern, searches code for keywords and answers questions about how the code works. Say how thorough it should be: quick, medium or very thorough." },
        { id: "general", mode: "subagent", description: "General-purpose agent for researching complex questions and carrying out multi-step tasks. Use it to search when you are not confident the first few tries will find the right match, or to run several steps on its own." },
      ],
    }),
  );
  const json = JSON.stringify(schemas);
  console.log(`\nPrompt weight: the default tools' JSON ({ name, description, parameters }) is ${json.length} characters (budget 12,000; OpenCode ~21,000 for 10 tools)`);
  console.log(table(["tool", "chars"], schemas.map((s) => [s.name, JSON.stringify(s).length])));
} finally {
  rmSync(root, { recursive: true, force: true });
}
