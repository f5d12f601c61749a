import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const BIN = fileURLToPath(new URL("../dist/bin.js", import.meta.url));
const FIXTURES = fileURLToPath(new URL("./fixtures/", import.meta.url));

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built `tessera` binary in a child process, isolated from the user's XDG folders. */
export function runCli(
  args: string[],
  options: { cwd: string; home: string; env?: NodeJS.ProcessEnv; stdin?: string },
): Promise<Run> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: options.home,
    XDG_CONFIG_HOME: join(options.home, ".config"),
    XDG_DATA_HOME: join(options.home, ".local/share"),
    XDG_STATE_HOME: join(options.home, ".local/state"),
    ...options.env,
  };
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [BIN, ...args], { cwd: options.cwd, env }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
    // A closed stdin (end of input) unless the test gives one: a run never waits on a terminal.
    child.stdin?.end(options.stdin ?? "");
  });
}

/** A temp git project made from `fixtures/<name>`, plus an empty home folder. */
export function project(name: string): { dir: string; home: string } {
  const root = mkdtempSync(join(tmpdir(), "tessera-cli-"));
  const dir = join(root, "project");
  cpSync(join(FIXTURES, name), dir, { recursive: true });
  mkdirSync(join(dir, ".git"));
  const home = join(root, "home");
  mkdirSync(home);
  return { dir, home };
}

export function write(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}
