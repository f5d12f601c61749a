import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { StringDecoder } from "node:string_decoder";

let onPath: string | null | undefined;

/** The `rg` executable on PATH, looked up once per process; undefined when there is none. */
export function ripgrepOnPath(): string | undefined {
  if (onPath === undefined) {
    onPath = null;
    for (const dir of (process.env.PATH ?? "").split(delimiter)) {
      if (!dir) continue;
      const candidate = join(dir, process.platform === "win32" ? "rg.exe" : "rg");
      try {
        accessSync(candidate, constants.X_OK);
        onPath = candidate;
        break;
      } catch {
        // not here
      }
    }
  }
  return onPath ?? undefined;
}

/** Which ripgrep to use for a setting: `auto` (rg on PATH, if any), `never`, or a path to the executable. */
export function resolveRipgrep(setting: string): string | undefined {
  if (setting === "never") return undefined;
  if (setting === "auto") return ripgrepOnPath();
  return setting;
}

export interface RipgrepRun {
  readonly code: number | null;
  readonly stderr: string;
}

/**
 * Runs ripgrep and hands each output line to `onLine` as it arrives; `onLine` returning false
 * stops ripgrep. Never throws for ripgrep's exit status (1 means "no match"); the caller decides.
 */
export function runRipgrep(rg: string, args: readonly string[], options: { cwd: string; signal?: AbortSignal; onLine: (line: string) => boolean | void }): Promise<RipgrepRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(rg, args, { cwd: options.cwd, stdio: ["ignore", "pipe", "pipe"], signal: options.signal });
    let stderr = "";
    let stopped = false;
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      if (stderr.length < 10_000) stderr += chunk;
    });
    // Split on \n only (readline would also split on a lone \r inside a matched line).
    const decoder = new StringDecoder("utf8");
    let pending = "";
    child.stdout.on("data", (chunk: Buffer) => {
      if (stopped) return;
      pending += decoder.write(chunk);
      let start = 0;
      for (let newline = pending.indexOf("\n"); newline !== -1; newline = pending.indexOf("\n", start)) {
        const line = pending.slice(start, newline);
        start = newline + 1;
        if (options.onLine(line) === false) {
          stopped = true;
          child.kill();
          return;
        }
      }
      pending = pending.slice(start);
    });
    child.stdout.on("end", () => {
      if (!stopped && pending !== "") options.onLine(pending);
    });
    child.on("error", (error) => reject(error));
    child.on("close", (code) => resolve({ code: stopped ? 0 : code, stderr }));
  });
}
