// Shared pieces of the session-engine benchmarks: a mock model (ai/test) streaming a scripted
// answer, a provider plugin serving it as "bench/bench-model", plugins tapping every hook, and a
// kernel over a temp project with a file-backed store.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import { z } from "zod";
import { makeProject } from "./lib.mjs";

export const MODEL_REF = "bench/bench-model";
export const SHORT_ANSWER = "Hello! The build passed and all tests are green.";

const USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

/** The stream parts of one text answer made of `deltas` (strings). */
export function textStream(deltas) {
  const parts = [{ type: "stream-start", warnings: [] }, { type: "text-start", id: "t1" }];
  for (const delta of deltas) parts.push({ type: "text-delta", id: "t1", delta });
  parts.push({ type: "text-end", id: "t1" });
  parts.push({ type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: USAGE });
  return parts;
}

/** `text` cut in 4-character deltas, as providers stream it. */
export function deltasOf(text) {
  return text.match(/.{1,4}/gs) ?? [];
}

/**
 * Passes `stream` through, giving the event loop a turn (setImmediate) every `every` parts, as a
 * network stream does between socket reads. Without it a mock stream is consumed in microtasks
 * only, timers never fire, and the PartWriter's periodic flush would never run mid-stream.
 */
export function yieldingEvery(stream, every) {
  let count = 0;
  return stream.pipeThrough(
    new TransformStream({
      async transform(chunk, controller) {
        if (++count % every === 0) await new Promise((resolve) => setImmediate(resolve));
        controller.enqueue(chunk);
      },
    }),
  );
}

/**
 * A mock model that answers every call with `parts` (a fresh stream each time). It forgets its
 * calls: MockLanguageModelV4 keeps every call's options (the whole prompt) in `doStreamCalls`, which
 * would grow the heap, and the GC's work, over a run.
 */
export function mockModel(parts, { yieldEvery } = {}) {
  const model = new MockLanguageModelV4({
    provider: "bench",
    modelId: "bench-model",
    doStream: async () => {
      model.doStreamCalls.length = 0;
      const stream = convertArrayToReadableStream(typeof parts === "function" ? parts() : parts);
      return { stream: yieldEvery ? yieldingEvery(stream, yieldEvery) : stream };
    },
  });
  return model;
}

export function providerPlugin(api, model) {
  return api.definePlugin({
    name: "bench-provider",
    version: "1.0.0",
    kernel: "^1.0.0",
    setup(ctx) {
      ctx.providers.register({
        id: "bench",
        languageModel: () => model,
        model: (id) => ({ id, limit: { context: 1_000_000, output: 4_000 }, cost: { input: 1, output: 2 } }),
      });
    },
  });
}

/** `count` plugins, each tapping all 14 hooks with a trivial async tap (the first also registers a tool). */
export function tappingPlugins(api, count) {
  const plugins = [];
  for (let i = 0; i < count; i++) {
    plugins.push(
      api.definePlugin({
        name: `bench-tapper-${i}`,
        version: "1.0.0",
        kernel: "^1.0.0",
        setup(ctx) {
          for (const hook of api.hookNames) ctx.tap(hook, async () => {});
          if (i === 0) {
            ctx.tools.register({
              id: "bench_noop",
              description: "does nothing",
              parameters: z.object({}),
              permission: () => [],
              execute: async () => ({ title: "noop", output: "" }),
            });
          }
        },
      }),
    );
  }
  return plugins;
}

/**
 * A kernel over `root/project` (a git project), with an isolated HOME under `root`, the store at
 * `root/tessera.db` (file-backed unless `storePath` says otherwise) and the default flush interval.
 */
export async function benchKernel(api, root, plugins, { storePath } = {}) {
  const dir = makeProject(join(root, "project"));
  const home = join(root, "home");
  mkdirSync(home, { recursive: true });
  const env = { HOME: home, XDG_CONFIG_HOME: join(home, ".config"), XDG_DATA_HOME: join(home, ".local/share"), PATH: process.env.PATH };
  const kernel = await api.createKernel({
    directory: dir,
    config: { config: { model: MODEL_REF }, files: [], sources: {}, plugins: [], directory: dir, root: dir },
    plugins,
    discover: false,
    env,
    storePath: storePath ?? join(root, "tessera.db"),
    log: () => {},
  });
  const errors = kernel.describe().errors;
  if (errors.length > 0) throw new Error(`bench kernel failed to load: ${errors.map((e) => e.message).join("; ")}`);
  return kernel;
}

/**
 * Prompts and returns the wall time and the process's CPU time (user + system; less disturbed by
 * other load on the machine) in ms; throws when the turn failed.
 */
export async function timedPrompt(kernel, sessionID, text) {
  const cpu = process.cpuUsage();
  const start = performance.now();
  const result = await kernel.sessions.prompt({ sessionID, text });
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  const cpuMs = (used.user + used.system) / 1000;
  const info = result.assistant?.info;
  if (!info || info.error || info.finish !== "stop") {
    throw new Error(`the bench turn failed: ${JSON.stringify(info?.error ?? info ?? "no answer")}`);
  }
  return { ms, cpuMs, result };
}

/** Removes a prompt's user and assistant messages, so the history stays the same size between runs. */
export function forget(kernel, result) {
  kernel.sessions.store.removeMessage(result.user.info.id);
  if (result.assistant) kernel.sessions.store.removeMessage(result.assistant.info.id);
}
