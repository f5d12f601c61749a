// Session-engine benchmarks (not tests: nothing is asserted). Mock models from "ai/test"
// (MockLanguageModelV4 + convertArrayToReadableStream), file-backed stores in temp folders.
//   1. streaming: 20,000 text deltas through prompt → loop → processor → PartWriter → store, with
//      10 plugins tapping all 14 hooks; a fresh child process per run for its peak RSS.
//   2. history: the cost of one step (a short text answer) with 10, 1,000 and 2,000 stored messages.
//   3. overhead: one kernel step vs a bare `streamText` on the same mock model and answer.
// Standalone: `node bench/engine.mjs [--quick]` (prints the tables, merges `engine` into
// results.json); `node bench/run.mjs --only=engine` does the same inside the full runner.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { streamText } from "ai";
import {
  benchKernel,
  deltasOf,
  forget,
  mockModel,
  providerPlugin,
  SHORT_ANSWER,
  textStream,
  timedPrompt,
} from "./engine-lib.mjs";
import { benchDir, cleanEnv, kernelEntry, median, round, runNode, summary, table, tempRoot } from "./lib.mjs";

export const engineChild = join(benchDir, "engine-child.mjs");

const DELTAS = 20_000;
const TAPPING_PLUGINS = 10;
/** Stream parts between two event-loop turns of the mock stream (≈ one socket read of SSE events). */
const YIELD_EVERY = 32;
const HISTORY_SIZES = [10, 1_000, 2_000];

// 1. Streaming throughput --------------------------------------------------------------------------

function runStreaming({ runs }) {
  const { dir: parent, cleanup: cleanupAll } = tempRoot("tessera-bench-engine-");
  const scenarios = [
    { id: "tapped", label: `${TAPPING_PLUGINS} plugins × 14 hooks`, plugins: TAPPING_PLUGINS },
    { id: "bare", label: "no plugins (reference)", plugins: 0 },
  ];
  const samples = scenarios.map(() => []);
  // Alternating runs, so drift (other load) spreads over both scenarios.
  for (let i = 0; i < runs; i++) {
    scenarios.forEach((scenario, s) => {
      const dir = mkdtempSync(join(parent, "run-"));
      try {
        const config = { root: dir, deltas: DELTAS, plugins: scenario.plugins, warmup: 1_000, yieldEvery: YIELD_EVERY };
        const { data } = runNode([engineChild, JSON.stringify(config)], { env: cleanEnv() });
        if (!data) throw new Error("engine-child printed no result");
        samples[s].push(data);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
  cleanupAll();
  const results = scenarios.map((scenario, s) => {
    const pick = (key) => summary(samples[s].map((run) => run[key]));
    return {
      ...scenario,
      runs,
      taps: samples[s][0].taps,
      deltasPerSecond: pick("deltasPerSecond"),
      usPerDelta: pick("usPerDelta"),
      ms: pick("ms"),
      storeAppends: pick("storeAppends"),
      rssBeforeMB: pick("rssBeforeMB"),
      maxRssMB: pick("maxRssMB"),
    };
  });
  return { deltas: DELTAS, deltaChars: 4, yieldEvery: YIELD_EVERY, flushIntervalMs: 200, results };
}

// 2. Step cost against history size ----------------------------------------------------------------

/** Stores `count` messages (alternating user / finished assistant, ~100 and ~400 characters of text). */
function populate(api, store, sessionID, count) {
  const model = { providerID: "bench", modelID: "bench-model" };
  const tokens = { input: 100, output: 50, reasoning: 0, cache: { read: 0, write: 0 } };
  const now = Date.now();
  store.transaction(() => {
    let userID = "";
    for (let i = 0; i < count; i++) {
      const id = api.newId("message");
      const part = (fields) => store.updatePart({ id: api.newId("part"), sessionID, messageID: id, ...fields });
      if (i % 2 === 0) {
        userID = id;
        store.updateMessage({ id, sessionID, role: "user", time: { created: now }, agent: "build", model });
        part({ type: "text", text: `Question ${i}: ${"please look at this file and tell me what it does. ".repeat(2)}` });
      } else {
        store.updateMessage({
          id, sessionID, role: "assistant", parentID: userID, providerID: "bench", modelID: "bench-model", agent: "build",
          time: { created: now, completed: now }, cost: 0.0002, tokens, finish: "stop",
        });
        part({ type: "step-start" });
        part({ type: "text", text: `Answer ${i}: ${"The file defines a small plugin and registers one tool with it. ".repeat(6)}` });
        part({ type: "step-finish", reason: "stop", tokens, cost: 0.0002 });
      }
    }
  });
}

async function runHistory(api, { iterations }) {
  const model = mockModel(textStream(deltasOf(SHORT_ANSWER)));
  // One kernel per size, measured round-robin so drift (GC, JIT, other load) spreads over all sizes.
  const cases = [];
  try {
    for (const size of HISTORY_SIZES) {
      const root = tempRoot("tessera-bench-engine-");
      const kernel = await benchKernel(api, root.dir, [providerPlugin(api, model)]);
      const c = { size, root, kernel, samples: [], cpu: [], listCalls: 0 };
      cases.push(c);
      const store = kernel.sessions.store;
      c.session = kernel.sessions.createSession({ title: `bench history ${size}` });
      populate(api, store, c.session.id, size);
      // How often a step reads the whole history back.
      c.list = store.listMessages.bind(store);
      store.listMessages = (...args) => {
        c.listCalls++;
        return c.list(...args);
      };
      for (let i = 0; i < 5; i++) forget(kernel, (await timedPrompt(kernel, c.session.id, "warm up")).result);
      c.listCalls = 0;
    }
    for (let i = 0; i < iterations; i++) {
      for (const c of cases) {
        const { ms, cpuMs, result } = await timedPrompt(c.kernel, c.session.id, "what changed?");
        c.samples.push(ms);
        c.cpu.push(cpuMs);
        forget(c.kernel, result);
      }
    }

    const results = [];
    for (const c of cases) {
      const store = c.kernel.sessions.store;
      const listPerStep = c.listCalls / iterations;
      // The linear pieces, timed on their own over the same history (CPU time: they are synchronous).
      store.listMessages = c.list;
      const reads = [];
      const converts = [];
      const cpuMs = (since) => {
        const used = process.cpuUsage(since);
        return (used.user + used.system) / 1000;
      };
      for (let i = 0; i < Math.max(5, iterations >> 1); i++) {
        let t = process.cpuUsage();
        const history = store.listMessages(c.session.id);
        reads.push(cpuMs(t));
        t = process.cpuUsage();
        api.toModelMessages(history);
        converts.push(cpuMs(t));
      }
      const stored = store.listMessages(c.session.id).length;
      if (stored !== c.size) throw new Error(`history drifted: ${stored} messages instead of ${c.size}`);
      results.push({
        messages: c.size,
        iterations,
        msPerStep: summary(c.samples),
        cpuMsPerStep: summary(c.cpu),
        listMessagesPerStep: listPerStep,
        listMessagesMs: median(reads),
        toModelMessagesMs: median(converts),
      });
    }
    return summarizeHistory(results);
  } finally {
    for (const c of cases) {
      await c.kernel.dispose();
      c.root.cleanup();
    }
  }
}

function summarizeHistory(results) {
  const first = results[0];
  const last = results.at(-1);
  const mid = results[1];
  // µs per stored message between two sizes, from the median wall and CPU times of a step.
  const slope = (a, b, metric) => ((b[metric].median - a[metric].median) / (b.messages - a.messages)) * 1000;
  const slopes = (metric) => ({
    [`${first.messages}→${mid.messages}`]: slope(first, mid, metric),
    [`${mid.messages}→${last.messages}`]: slope(mid, last, metric),
  });
  return {
    results,
    ratio: last.msPerStep.median / first.msPerStep.median,
    cpuRatio: last.cpuMsPerStep.median / first.cpuMsPerStep.median,
    usPerMessage: slopes("msPerStep"),
    cpuUsPerMessage: slopes("cpuMsPerStep"),
  };
}

// 3. Kernel overhead per step ----------------------------------------------------------------------

async function runOverhead(api, { rounds, perRound }) {
  const model = mockModel(textStream(deltasOf(SHORT_ANSWER)));
  const bare = async () => {
    const start = performance.now();
    const result = streamText({ model, prompt: "what changed?", maxRetries: 0 });
    let text = "";
    for await (const event of result.stream) if (event.type === "text-delta") text += event.text;
    if (text !== SHORT_ANSWER) throw new Error(`bare streamText answered ${JSON.stringify(text)}`);
    return performance.now() - start;
  };
  const { dir, cleanup } = tempRoot("tessera-bench-engine-");
  const kernel = await benchKernel(api, dir, [providerPlugin(api, model)]);
  try {
    const session = kernel.sessions.createSession({ title: "bench overhead" });
    const viaKernel = async () => {
      const { ms, result } = await timedPrompt(kernel, session.id, "what changed?");
      forget(kernel, result);
      return ms;
    };
    for (let i = 0; i < 30; i++) {
      await bare();
      await viaKernel();
    }
    // Alternating rounds, so drift (GC, JIT, other load) spreads over both; median of round means.
    const bareRounds = [];
    const kernelRounds = [];
    for (let r = 0; r < rounds; r++) {
      let sum = 0;
      for (let i = 0; i < perRound; i++) sum += await bare();
      bareRounds.push(sum / perRound);
      sum = 0;
      for (let i = 0; i < perRound; i++) sum += await viaKernel();
      kernelRounds.push(sum / perRound);
    }
    const bareMs = summary(bareRounds);
    const kernelMs = summary(kernelRounds);
    return {
      rounds,
      perRound,
      answerDeltas: deltasOf(SHORT_ANSWER).length,
      bareStreamTextMs: bareMs,
      kernelStepMs: kernelMs,
      overheadMs: kernelMs.median - bareMs.median,
    };
  } finally {
    await kernel.dispose();
    cleanup();
  }
}

// --------------------------------------------------------------------------------------------------

export async function runEngine(api, { quick = false } = {}) {
  const started = performance.now();
  const streaming = runStreaming({ runs: quick ? 1 : 5 });
  const history = await runHistory(api, { iterations: quick ? 8 : 25 });
  const overhead = await runOverhead(api, quick ? { rounds: 3, perRound: 20 } : { rounds: 5, perRound: 60 });
  return { date: new Date().toISOString(), streaming, history, overhead, seconds: round((performance.now() - started) / 1000, 1) };
}

export function printEngine(e) {
  const s = e.streaming;
  console.log(
    `\nSession engine, streaming: ${s.deltas} text deltas of ${s.deltaChars} chars in one prompt, file-backed store ` +
      `(default flush interval, ${s.flushIntervalMs} ms), event loop turn every ${s.yieldEvery} parts; fresh process per run, median of ${s.results[0].runs}`,
  );
  console.log(
    table(
      ["scenario", "taps", "deltas/s", "µs/delta", "prompt ms", "store appends", "RSS before MB", "peak RSS MB"],
      s.results.map((r) => [
        r.label,
        r.taps,
        round(r.deltasPerSecond.median, 0),
        round(r.usPerDelta.median, 1),
        round(r.ms.median, 0),
        r.storeAppends.median,
        round(r.rssBeforeMB.median, 0),
        round(r.maxRssMB.median, 0),
      ]),
    ),
  );
  const [tapped, bare] = s.results;
  console.log(
    `${tapped.taps} taps cost ${round(tapped.usPerDelta.median - bare.usPerDelta.median, 1)} µs per delta ` +
      `(each delta is a bus event, forwarded to the "event" hook: ${TAPPING_PLUGINS} async taps).`,
  );

  const h = e.history;
  console.log(`\nSession engine, one step (short text answer) against stored history, file-backed store, median of ${h.results[0].iterations}`);
  console.log(
    table(
      ["stored messages", "ms/step", "min", "max", "CPU ms/step", "history reads/step", "listMessages CPU ms", "toModelMessages CPU ms"],
      h.results.map((r) => [
        r.messages,
        round(r.msPerStep.median, 2),
        round(r.msPerStep.min, 2),
        round(r.msPerStep.max, 2),
        round(r.cpuMsPerStep.median, 2),
        round(r.listMessagesPerStep, 1),
        round(r.listMessagesMs, 2),
        round(r.toModelMessagesMs, 2),
      ]),
    ),
  );
  const slopes = (s) => Object.entries(s).map(([k, v]) => `${k} ${round(v, 1)} µs`).join(", ");
  console.log(
    `ratio ${h.results.at(-1).messages} / ${h.results[0].messages} messages: ${round(h.ratio, 1)}× wall, ${round(h.cpuRatio, 1)}× CPU. ` +
      `Marginal cost per stored message, wall: ${slopes(h.usPerMessage)}; CPU: ${slopes(h.cpuUsPerMessage)} ` +
      `(equal slopes = linear; quadratic growth would make the second ≈ 3× the first).`,
  );
  const big = h.results.at(-1);
  console.log(
    `What grows linearly: every step reads the whole history back ${round(big.listMessagesPerStep, 0)} times ` +
      `(engine.prompt's last-user lookup, each loop iteration's turn state, the answer lookup; SQLite rows → JSON.parse → zod), ` +
      `≈ ${round(big.listMessagesPerStep * big.listMessagesMs, 1)} ms at ${big.messages} messages; then converts it once to model ` +
      `messages (${round(big.toModelMessagesMs, 2)} ms) and the AI SDK maps the prompt it is sent.`,
  );

  const o = e.overhead;
  console.log(`\nSession engine overhead: one step vs a bare streamText on the same mock model (${o.answerDeltas} deltas), median of ${o.rounds} rounds × ${o.perRound}`);
  console.log(
    table(
      ["path", "ms/step", "min", "max"],
      [
        ["bare streamText", round(o.bareStreamTextMs.median, 3), round(o.bareStreamTextMs.min, 3), round(o.bareStreamTextMs.max, 3)],
        ["kernel prompt (1 step)", round(o.kernelStepMs.median, 3), round(o.kernelStepMs.min, 3), round(o.kernelStepMs.max, 3)],
        ["difference (kernel overhead)", round(o.overheadMs, 3), "", ""],
      ],
    ),
  );
}

/** Merges `{ engine }` into results.json, keeping the other benchmarks' figures. */
export function mergeResults(engine) {
  const file = join(benchDir, "results.json");
  let previous = {};
  if (existsSync(file)) {
    try {
      previous = JSON.parse(readFileSync(file, "utf8"));
    } catch {
      previous = {};
    }
  }
  writeFileSync(file, JSON.stringify({ ...previous, engine }, null, 2) + "\n");
  return file;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  if (!existsSync(kernelEntry)) {
    console.error(`${kernelEntry} is missing; build first: pnpm --filter @tessera/kernel build`);
    process.exit(1);
  }
  const api = await import(pathToFileURL(kernelEntry).href);
  const engine = await runEngine(api, { quick: process.argv.includes("--quick") });
  printEngine(engine);
  console.log(`\nmerged "engine" into ${mergeResults(engine)} (${engine.seconds} s)`);
}
