// One streaming run in a fresh process (so its peak RSS is its own): a kernel with a file-backed
// store (default flush interval) and `plugins` plugins tapping all 14 hooks, one prompt whose answer
// is `deltas` text deltas of 4 characters; the event loop gets a turn every `yieldEvery` stream
// parts, as between socket reads. Prints one JSON line with the figures.
//   node engine-child.mjs '{"root":"/tmp/…","deltas":20000,"plugins":10,"warmup":1000,"yieldEvery":32}'
import { pathToFileURL } from "node:url";
import { benchKernel, mockModel, providerPlugin, tappingPlugins, textStream } from "./engine-lib.mjs";
import { kernelEntry } from "./lib.mjs";

const { root, deltas, plugins, warmup, yieldEvery } = JSON.parse(process.argv[2]);
const api = await import(pathToFileURL(kernelEntry).href);

const DELTA = "tok ";
let parts = textStream(Array.from({ length: warmup }, () => DELTA));
const model = mockModel(() => parts, { yieldEvery });
const kernel = await benchKernel(api, root, [providerPlugin(api, model), ...tappingPlugins(api, plugins)]);
const store = kernel.sessions.store;

// Count the store writes of streamed text (one per part per flush).
let appends = 0;
const append = store.appendPartText.bind(store);
store.appendPartText = (id, text) => {
  appends++;
  append(id, text);
};
let published = 0;
kernel.bus.subscribe(api.MessagePartUpdated, (event) => {
  if (event.properties.delta !== undefined) published++;
});

const session = kernel.sessions.createSession({ title: "bench deltas" });
// Warm-up turn: JIT, SQLite statements, the system prompt path.
await kernel.sessions.prompt({ sessionID: session.id, text: "warm up" });

parts = textStream(Array.from({ length: deltas }, () => DELTA));
appends = 0;
published = 0;
const rssBeforeMB = process.memoryUsage().rss / 2 ** 20;
const start = performance.now();
const result = await kernel.sessions.prompt({ sessionID: session.id, text: "stream a lot" });
const ms = performance.now() - start;
const maxRssMB = process.resourceUsage().maxRSS / 1024;

const text = result.assistant?.parts.find((p) => p.type === "text")?.text ?? "";
const stored = store.getMessage(result.assistant.info.id).parts.find((p) => p.type === "text")?.text ?? "";
if (result.assistant.info.error || text.length !== deltas * DELTA.length || stored !== text) {
  throw new Error(`the streamed answer is incomplete: ${text.length} chars, stored ${stored.length}`);
}
await kernel.dispose();
console.log(
  JSON.stringify({
    deltas,
    plugins,
    yieldEvery,
    taps: plugins * api.hookNames.length,
    ms,
    deltasPerSecond: (deltas / ms) * 1000,
    usPerDelta: (ms * 1000) / deltas,
    published,
    storeAppends: appends,
    rssBeforeMB,
    maxRssMB,
  }),
);
