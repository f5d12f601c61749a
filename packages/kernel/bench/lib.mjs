// Small helpers shared by the benchmarks: statistics, formatting, temp folders, child processes.
import { spawnSync } from "node:child_process";
import { mkdtempSync, mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const benchDir = dirname(fileURLToPath(import.meta.url));
export const kernelDir = dirname(benchDir);
export const kernelEntry = join(kernelDir, "dist", "index.js");

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function summary(values) {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values), runs: values.length };
}

export const round = (value, digits = 1) => (value === undefined || value === null ? value : Number(value.toFixed(digits)));

/** Renders rows (arrays of cells) as an aligned text table; numbers are right-aligned. */
export function table(headers, rows) {
  const cells = [headers, ...rows].map((row) => row.map((c) => (c === undefined || c === null ? "" : String(c))));
  const widths = headers.map((_, i) => Math.max(...cells.map((row) => row[i].length)));
  const numeric = headers.map((_, i) => rows.every((row) => typeof row[i] === "number" || row[i] === "" || row[i] == null));
  const line = (row) =>
    row.map((c, i) => (numeric[i] && i > 0 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join("  ").trimEnd();
  return [line(cells[0]), widths.map((w) => "-".repeat(w)).join("  "), ...cells.slice(1).map(line)].join("\n");
}

/** A fresh temp folder; removed by `cleanup()` (also on exit). */
const tempDirs = new Set();
// One exit listener for all temp folders (one per folder would trip MaxListenersExceededWarning).
process.once("exit", () => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

export function tempRoot(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.add(dir);
  const cleanup = () => {
    tempDirs.delete(dir);
    rmSync(dir, { recursive: true, force: true });
  };
  return { dir, cleanup };
}

/** A project folder that holds `.git`, so config lookup stops there. */
export function makeProject(dir) {
  mkdirSync(join(dir, ".git"), { recursive: true });
  return dir;
}

/** The parent environment without variables that would change what a child measures. */
export function cleanEnv(extra = {}) {
  const env = { ...process.env };
  for (const key of Object.keys(env)) {
    if (key.startsWith("JITI_") || key === "NODE_COMPILE_CACHE" || key === "NODE_OPTIONS") delete env[key];
  }
  return { ...env, ...extra };
}

/**
 * Runs `node args…` to completion and returns the wall time (spawn to exit, in ms) and the last
 * stdout line parsed as JSON (or null).
 */
export function runNode(args, { env, cwd } = {}) {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { env, cwd, encoding: "utf8", maxBuffer: 16 << 20 });
  const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) {
    throw new Error(`node ${args.join(" ")} exited with ${result.status}:\n${result.stderr}`);
  }
  const last = result.stdout.trim().split("\n").pop() ?? "";
  let data = null;
  try {
    data = JSON.parse(last);
  } catch {
    // not every child prints JSON
  }
  return { wallMs, data, stderr: result.stderr };
}
