// Run in a fresh process by start.mjs: imports the kernel and starts it on a project whose
// `.tessera/plugins/*.ts` are loaded through jiti. Prints one JSON line with in-process timings.
// Usage: node start-child.mjs <kernel dist/index.js> <project dir> <empty XDG_CONFIG_HOME>
import { writeSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [entry, directory, xdg] = process.argv.slice(2);

const t0 = performance.now(); // ms since the process started (performance.timeOrigin)
const { createKernel } = await import(pathToFileURL(entry).href);
const t1 = performance.now();
const kernel = await createKernel({
  directory,
  env: { ...process.env, XDG_CONFIG_HOME: xdg },
  log: () => {},
});
const t2 = performance.now();
const output = { options: {} };
await kernel.trigger("chat.params", { sessionID: "s", agent: "build", model: { providerID: "p", modelID: "m" }, provider: { id: "p", options: {} } }, output);
const t3 = performance.now();

const described = kernel.describe();
await kernel.dispose();
const result = {
  beforeImportMs: t0,
  importMs: t1 - t0,
  createKernelMs: t2 - t1,
  firstTriggerMs: t3 - t2,
  readyMs: t3, // process start → kernel started and first hook run
  plugins: described.plugins.length,
  tools: kernel.tools.list().length,
  taps: described.hooks["chat.params"].length,
  tapsRan: Object.keys(output.options).length,
  errors: described.errors.map((e) => `${e.plugin} (${e.stage}): ${e.message}`),
};
// Printed at exit, so the time between "ready" and the event loop running dry is measured too
// (V8 finishing an incremental GC started during loading keeps the loop busy for a while).
process.on("exit", () => writeSync(1, JSON.stringify({ ...result, exitMs: performance.now() }) + "\n"));
