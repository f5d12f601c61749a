// Whole-process benchmarks of the `tessera` binary (figures, not assertions):
//   1. `tessera --version`
//   2. a two-step scripted task (read a file, then answer) against a local OpenAI-compatible server
// Each: median wall time and median peak RSS over interleaved runs.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startScriptedServer } from "@tessera/testing";

const BIN = fileURLToPath(new URL("../dist/bundle/tessera.mjs", import.meta.url));
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const TIME = existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Runs the binary once; wall ms and peak RSS (MiB, when /usr/bin/time is there). */
async function once(args, cwd, env) {
  const command = TIME ? [TIME, ["-f", "RSS_KB=%M", process.execPath, BIN, ...args]] : [process.execPath, [BIN, ...args]];
  const start = performance.now();
  const child = spawn(command[0], command[1], { cwd, env });
  child.stdin.end();
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  child.stdout.resume();
  const code = await new Promise((resolve) => child.on("exit", resolve));
  const ms = performance.now() - start;
  if (code !== 0) throw new Error(`tessera ${args.join(" ")} exited ${code}: ${stderr}`);
  const kb = /RSS_KB=(\d+)/.exec(stderr)?.[1];
  return { ms, rss: kb ? Number(kb) / 1024 : undefined };
}

const root = mkdtempSync(join(tmpdir(), "tessera-cli-bench-"));
const project = join(root, "project");
const home = join(root, "home");
mkdirSync(join(project, ".git"), { recursive: true });
mkdirSync(home);
writeFileSync(join(project, "notes.txt"), "hello from the notes\n");
const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, ".config"), XDG_DATA_HOME: join(home, ".local/share"), XDG_STATE_HOME: join(home, ".local/state") };

const turns = [];
for (let i = 0; i < RUNS + 2; i++) turns.push({ toolCalls: [{ name: "read", arguments: { filePath: "notes.txt" } }] }, { text: "The notes say hello." });
const server = await startScriptedServer({ script: turns, usageChunk: "always", nonStreaming: { text: "Reading notes" } });
writeFileSync(
  join(project, "tessera.config.json"),
  JSON.stringify({ model: "mock/mock-model", provider: { mock: { npm: "@ai-sdk/openai-compatible", options: { baseURL: server.url, apiKey: "bench" }, models: { "mock-model": {} } } } }),
);

try {
  // One warm-up each: fills V8's compile cache and the OS file cache, as any second start would.
  await once(["--version"], project, env);
  await once(["run", "read notes.txt and tell me what it says"], project, env);
  const version = [];
  const task = [];
  for (let i = 0; i < RUNS; i++) {
    version.push(await once(["--version"], project, env));
    task.push(await once(["run", "read notes.txt and tell me what it says"], project, env));
  }
  const row = (name, xs, target) => {
    const rss = xs.every((x) => x.rss !== undefined) ? `${median(xs.map((x) => x.rss)).toFixed(1)} MiB` : "n/a";
    return `${name.padEnd(34)} ${`${median(xs.map((x) => x.ms)).toFixed(0)} ms`.padStart(8)} ${rss.padStart(11)}   ${target}`;
  };
  console.log(`tessera CLI, median of ${RUNS} interleaved runs (node ${process.version})`);
  console.log(`${"".padEnd(34)} ${"wall".padStart(8)} ${"peak RSS".padStart(11)}   target`);
  console.log(row("tessera --version", version, "<= 80 ms"));
  console.log(row("two-step task (read, then answer)", task, "<= 250 ms, <= 130 MiB"));
  console.log("reference, same task on a machine like this: Codex CLI ~210 ms/136 MiB, pi ~860 ms/171 MiB,");
  console.log("Claude Code ~410 ms/214 MiB, OpenCode ~2.4 s/595 MiB");
  const ms = task.map((x) => x.ms);
  console.log(`task spread: min ${Math.min(...ms).toFixed(0)} ms, max ${Math.max(...ms).toFixed(0)} ms`);
} finally {
  await server.close();
  rmSync(root, { recursive: true, force: true });
}
