import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { accessSync, constants, createWriteStream, type WriteStream } from "node:fs";
import { mkdir, readdir, stat, unlink, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { defineTool, tesseraPaths, type ShellEnvInput } from "@tessera/kernel";
import { z } from "zod";
import { toolDeps, type ToolDepsInput } from "../shared.js";
import { truncateOutput } from "../util/truncate.js";

export const BashParameters = z.object({
  command: z.string().describe("Shell command"),
  timeout: z.number().int().positive().optional().describe("Timeout in ms (default 120000, max 600000)"),
  description: z.string().optional().describe("What it does, in 5-10 words"),
});

/**
 * Supplies the `shell.env` hook's environment for a command. The plugin wires it to the kernel's
 * hook through `ctx.trigger` (see plugin.ts); tests and other hosts can pass their own.
 */
export type ShellEnvProvider = (input: ShellEnvInput) => Record<string, string> | undefined | Promise<Record<string, string> | undefined>;

/** Shells whose `-c` does not take POSIX syntax; commands written for sh would misbehave. */
const UNSUITABLE_SHELLS = new Set(["fish", "nu", "xonsh", "elvish"]);

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The shell to run commands with: the configured one, `$SHELL`, then /bin/bash, then /bin/sh. */
export function pickShell(configured?: string, env: Readonly<NodeJS.ProcessEnv> = process.env): string {
  for (const candidate of [configured, env.SHELL, "/bin/bash", "/bin/sh"]) {
    if (!candidate || !candidate.startsWith("/")) continue;
    if (UNSUITABLE_SHELLS.has(basename(candidate))) continue;
    if (executable(candidate)) return candidate;
  }
  return "/bin/sh";
}

/** Bytes of output kept in memory before the rest goes to a file; beyond it, only the head and the tail stay in memory. */
const SPILL_BYTES = 2 * 1024 * 1024;
const KEEP_BYTES = 256 * 1024;

/**
 * Collects a command's output (stdout and stderr interleaved, as a terminal shows them) without
 * holding more than a few megabytes: past SPILL_BYTES everything goes to the output file and only
 * the first and last KEEP_BYTES stay in memory.
 */
class OutputCollector {
  private chunks: Buffer[] = [];
  private head: Buffer | undefined;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private file: WriteStream | undefined;
  bytes = 0;
  newlines = 0;
  private lastByte = -1;

  constructor(private readonly outputPath: () => string) {}

  write(chunk: Buffer): void {
    this.bytes += chunk.length;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) this.newlines++;
    if (chunk.length > 0) this.lastByte = chunk[chunk.length - 1]!;
    if (!this.file) {
      this.chunks.push(chunk);
      if (this.bytes <= SPILL_BYTES) return;
      const all = Buffer.concat(this.chunks);
      this.chunks = [];
      this.head = all.subarray(0, KEEP_BYTES);
      this.file = createWriteStream(this.outputPath());
      this.file.on("error", () => undefined);
      this.file.write(all);
      this.pushTail(all.subarray(all.length - KEEP_BYTES));
      return;
    }
    this.file.write(chunk);
    this.pushTail(chunk);
  }

  private pushTail(chunk: Buffer): void {
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    if (this.tailBytes > 2 * KEEP_BYTES) {
      const joined = Buffer.concat(this.tail);
      const kept = joined.subarray(joined.length - KEEP_BYTES);
      this.tail = [kept];
      this.tailBytes = kept.length;
    }
  }

  /** The last bytes written, for progress updates. */
  preview(max = 2048): string {
    const source = this.file ? Buffer.concat(this.tail) : Buffer.concat(this.chunks);
    return source.subarray(Math.max(0, source.length - max)).toString("utf8");
  }

  get lines(): number {
    return this.bytes === 0 ? 0 : this.newlines + (this.lastByte === 10 ? 0 : 1);
  }

  get spilled(): boolean {
    return this.file !== undefined;
  }

  /** The whole output (small) or its head and tail (spilled). */
  text(): string {
    if (!this.file) return Buffer.concat(this.chunks).toString("utf8");
    const tail = Buffer.concat(this.tail);
    return `${this.head!.toString("utf8")}\n${tail.subarray(Math.max(0, tail.length - KEEP_BYTES)).toString("utf8")}`;
  }

  async close(): Promise<void> {
    const file = this.file;
    if (file) await new Promise<void>((resolve) => file.end(resolve));
  }
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007]*\u0007/g;

/** Output files older than this are removed when the plugin starts. */
const OUTPUT_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;

/** Removes saved outputs older than a week from `dir`. */
export async function pruneOutputDir(dir: string, now = Date.now()): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const path = join(dir, name);
    try {
      if (now - (await stat(path)).mtimeMs > OUTPUT_MAX_AGE_MS) await unlink(path);
    } catch {
      // raced with another process
    }
  }
}

export interface BashToolInput extends ToolDepsInput {
  /** Where full outputs are saved; default `$XDG_STATE_HOME/tessera/tool-output`. */
  readonly outputDir?: string;
  /** The `shell.env` hook (or any provider of extra environment variables). */
  readonly shellEnv?: ShellEnvProvider;
  /** The environment commands start from; default `process.env`. */
  readonly env?: Readonly<NodeJS.ProcessEnv>;
}

/**
 * The `bash` tool: runs a command with the user's shell in the project directory, in its own
 * process group, so a timeout or an abort stops everything it started (SIGTERM, then SIGKILL).
 * The call returns when the shell exits — a background child holding the pipes open does not keep
 * it waiting. Long output is cut to its head and tail and saved whole to a file.
 */
export function createBashTool(input: BashToolInput = {}) {
  const { options } = toolDeps(input);
  const limits = options.bash;
  const outputDir = input.outputDir ?? options.outputDir ?? join(tesseraPaths().state, "tool-output");
  return defineTool({
    id: "bash",
    description:
      `Run a shell command in the project directory. Timeout ${limits.defaultTimeoutMs / 1000} s by default (max ${limits.maxTimeoutMs / 1000} s); ` +
      "the command and everything it started are killed on timeout. Output is cut to its head and tail (the full text is saved to a file). " +
      "Quote paths with spaces. Prefer read, grep, glob and list over cat, grep, find and ls.",
    parameters: BashParameters,
    permission: (args, { directory }) => [{ permission: "bash", patterns: [args.command], metadata: { command: args.command, cwd: directory } }],
    async execute(args, ctx) {
      const requested = args.timeout ?? limits.defaultTimeoutMs;
      const timeout = Math.min(requested, limits.maxTimeoutMs);
      const extra = (await input.shellEnv?.({ cwd: ctx.directory, sessionID: ctx.sessionID })) ?? {};
      const base = input.env ?? process.env;
      const shell = pickShell(limits.shell, base);
      let outputPath: string | undefined;
      const pathOf = () => (outputPath ??= join(outputDir, `bash-${Date.now()}-${randomBytes(4).toString("hex")}.log`));
      await mkdir(outputDir, { recursive: true }).catch(() => undefined);
      const collector = new OutputCollector(pathOf);
      const started = Date.now();

      const outcome = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; timedOut: boolean; aborted: boolean }>((resolve, reject) => {
        const child = spawn(shell, ["-c", args.command], {
          cwd: ctx.directory,
          env: { ...base, ...extra },
          detached: true,
          stdio: ["ignore", "pipe", "pipe"],
        });
        let timedOut = false;
        let aborted = false;
        let settled = false;
        let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
        let lastProgress = 0;

        const killGroup = (signal: NodeJS.Signals) => {
          if (child.pid === undefined) return;
          try {
            process.kill(-child.pid, signal);
          } catch {
            // The group is gone.
          }
        };
        const stop = () => {
          killGroup("SIGTERM");
          // Whatever ignores SIGTERM is killed after the grace, even once the call has returned.
          setTimeout(() => killGroup("SIGKILL"), limits.killGraceMs).unref();
        };
        const timer = setTimeout(() => {
          timedOut = true;
          stop();
        }, timeout);
        const onAbort = () => {
          aborted = true;
          stop();
        };
        if (ctx.abort.aborted) onAbort();
        else ctx.abort.addEventListener("abort", onAbort, { once: true });

        const finish = () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          ctx.abort.removeEventListener("abort", onAbort);
          // Stop reading: a background child may keep the pipes open for as long as it runs.
          child.stdout?.destroy();
          child.stderr?.destroy();
          resolve({ code: exit?.code ?? null, signal: exit?.signal ?? null, timedOut, aborted });
        };
        const onData = (chunk: Buffer) => {
          if (settled) return;
          collector.write(chunk);
          const now = Date.now();
          if (now - lastProgress > 500) {
            lastProgress = now;
            ctx.metadata({ metadata: { output: collector.preview(), description: args.description } });
          }
        };
        child.stdout!.on("data", onData);
        child.stderr!.on("data", onData);
        child.on("error", (error) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          ctx.abort.removeEventListener("abort", onAbort);
          reject(new Error(`could not start ${shell}: ${error.message}`));
        });
        child.on("exit", (code, signal) => {
          exit = { code, signal };
          setTimeout(finish, limits.exitGraceMs);
        });
        child.on("close", () => {
          exit ??= { code: child.exitCode, signal: child.signalCode };
          finish();
        });
      });
      await collector.close();

      const raw = collector.text().replace(ANSI, "");
      const savedPath = collector.spilled ? pathOf() : undefined;
      const cut = truncateOutput(raw, {
        keep: "head-tail",
        maxBytes: limits.maxOutputBytes,
        maxLines: limits.maxOutputLines,
        hint: `Full output: ${pathOf()} (use read with offset, or grep, to see it).`,
        ...(collector.spilled ? { total: { bytes: collector.bytes, lines: collector.lines } } : {}),
      });
      let fullOutputPath = savedPath;
      if (cut.truncated && !savedPath) {
        await writeFile(pathOf(), raw);
        fullOutputPath = pathOf();
      }
      const notes: string[] = [];
      if (outcome.timedOut) notes.push(`(Command timed out after ${timeout} ms; it and its child processes were stopped.)`);
      if (outcome.aborted) notes.push("(Command aborted by the user.)");
      if (!outcome.timedOut && !outcome.aborted && outcome.code !== 0) {
        notes.push(outcome.code === null ? `(Killed by ${outcome.signal}.)` : `(Exit code ${outcome.code}.)`);
      }
      if (requested > timeout) notes.push(`(The timeout was capped at ${timeout} ms.)`);
      const body = cut.text === "" ? "(no output)" : cut.text;
      return {
        title: args.description ?? args.command,
        output: notes.length > 0 ? `${body.replace(/\n+$/, "")}\n\n${notes.join("\n")}` : body,
        metadata: {
          exit: outcome.code,
          ...(outcome.signal ? { signal: outcome.signal } : {}),
          timedOut: outcome.timedOut,
          aborted: outcome.aborted,
          truncated: cut.truncated,
          ...(fullOutputPath ? { outputPath: fullOutputPath } : {}),
          durationMs: Date.now() - started,
          description: args.description,
        },
      };
    },
  });
}
