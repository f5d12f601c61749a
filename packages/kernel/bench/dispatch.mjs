// Hook dispatch cost: `kernel.trigger("chat.params", input, output)` with 0, 1 and 10 taps, each tap
// from its own plugin, async (the host arms a timeout timer per call) and sync (no timer).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { makeProject, median, tempRoot } from "./lib.mjs";

const HOOK = "chat.params";

const SCENARIOS = [
  { id: "baseline", label: "0 taps (baseline)", taps: 0, kind: "none" },
  { id: "async-1", label: "1 async tap", taps: 1, kind: "async" },
  { id: "async-10", label: "10 async taps", taps: 10, kind: "async" },
  { id: "sync-1", label: "1 sync tap", taps: 1, kind: "sync" },
  { id: "sync-10", label: "10 sync taps", taps: 10, kind: "sync" },
];

function tapFn(kind, i) {
  // A trivial mutation of the output, as a real chat.params tap would do.
  return kind === "async"
    ? async (_input, output) => {
        output.options[`p${i}`] = i;
      }
    : (_input, output) => {
        output.options[`p${i}`] = i;
      };
}

async function makeKernel(api, scenario, directory, env) {
  const plugins = [];
  for (let i = 0; i < scenario.taps; i++) {
    plugins.push(
      api.definePlugin({
        name: `bench-${scenario.id}-${i}`,
        version: "1.0.0",
        kernel: "^1.0.0",
        setup(ctx) {
          ctx.tap(HOOK, tapFn(scenario.kind, i));
        },
      }),
    );
  }
  const kernel = await api.createKernel({ directory, plugins, discover: false, env, log: () => {} });
  const errors = kernel.describe().errors;
  if (errors.length > 0) throw new Error(`bench kernel failed to load: ${errors.map((e) => e.message).join("; ")}`);
  if (kernel.describe().hooks[HOOK].length !== scenario.taps) throw new Error(`expected ${scenario.taps} taps on ${HOOK}`);
  return kernel;
}

async function loop(kernel, input, output, iterations) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) await kernel.trigger(HOOK, input, output);
  return Number(process.hrtime.bigint() - start) / iterations; // ns per call
}

/**
 * Each scenario gets its own kernel. After a warm-up, the scenarios are measured round-robin for
 * `rounds` rounds of `iterations` calls, so drift (other load, GC, JIT) spreads over all of them;
 * the median round is reported.
 */
export async function runDispatch(api, { iterations = 200_000, rounds = 5, warmup = 50_000 } = {}) {
  const root = tempRoot("tessera-bench-dispatch-");
  const directory = makeProject(join(root.dir, "project"));
  const xdg = join(root.dir, "xdg");
  mkdirSync(xdg);
  const env = { ...process.env, XDG_CONFIG_HOME: xdg };

  const input = {
    sessionID: "ses_bench",
    agent: "build",
    model: { providerID: "bench", modelID: "bench-1" },
    provider: { id: "bench", options: {} },
  };
  const runs = [];
  for (const scenario of SCENARIOS) {
    const kernel = await makeKernel(api, scenario, directory, env);
    const output = { temperature: 0.2, options: {} };
    runs.push({ scenario, kernel, output, samples: [] });
  }
  for (const run of runs) await loop(run.kernel, input, run.output, warmup);
  for (let r = 0; r < rounds; r++) {
    for (const run of runs) run.samples.push(await loop(run.kernel, input, run.output, iterations));
  }
  for (const run of runs) await run.kernel.dispose();
  root.cleanup();

  const nsPerCall = Object.fromEntries(runs.map((run) => [run.scenario.id, median(run.samples)]));
  const baseline = nsPerCall.baseline;
  const results = runs.map(({ scenario, samples }) => {
    const ns = nsPerCall[scenario.id];
    return {
      id: scenario.id,
      label: scenario.label,
      kind: scenario.kind,
      taps: scenario.taps,
      nsPerCall: ns,
      nsPerCallMin: Math.min(...samples),
      nsPerCallMax: Math.max(...samples),
      // (ns/call − baseline) / taps: includes the fixed cost of running any taps at all (tapable's promise chain).
      nsPerTap: scenario.taps > 0 ? (ns - baseline) / scenario.taps : null,
      samples,
    };
  });
  // The cost of each further tap, without the fixed cost: (10 taps − 1 tap) / 9.
  const marginal = {};
  for (const kind of ["async", "sync"]) marginal[kind] = (nsPerCall[`${kind}-10`] - nsPerCall[`${kind}-1`]) / 9;
  return { hook: HOOK, iterations, rounds, warmup, results, marginalNsPerTap: marginal };
}
