// Sums vitest's per-package "Tests  N failed | N passed (N)" lines from a test log into one
// closing line, "N passed, N failed", so a reader (or CI) sees the whole suite at once.
import { readFileSync } from "node:fs";

const [file, status] = process.argv.slice(2);
const text = readFileSync(file, "utf8").replace(/\x1b\[[0-9;]*m/g, "");
let passed = 0;
let failed = 0;
let skipped = 0;
let packages = 0;
for (const line of text.split("\n")) {
  const m = /^(?:\S+:\s+)?\s*Tests\s+(.*)\(\d+\)\s*$/.exec(line);
  if (!m) continue;
  packages++;
  for (const [, n, kind] of m[1].matchAll(/(\d+) (passed|failed|skipped|todo)/g)) {
    if (kind === "passed") passed += Number(n);
    else if (kind === "failed") failed += Number(n);
    else skipped += Number(n);
  }
}
// A run that failed before any test ran (a build error) still counts as a failure.
if (Number(status) !== 0 && failed === 0) failed = 1;
console.log(`\n${packages} packages tested`);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
