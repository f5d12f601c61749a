import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createBashTool, pickShell, type BashToolInput } from "../src/index.js";
import { run, tempDir, toolContext } from "./helpers.js";

/** Whether a process is running (a zombie waiting to be reaped counts as gone). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return true;
  }
}

async function until(condition: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return condition();
}

function setup(input: Omit<BashToolInput, "outputDir"> = {}) {
  const dir = tempDir();
  const outputDir = join(tempDir(), "tool-output");
  const tool = createBashTool({ outputDir, ...input });
  const ctx = toolContext(dir);
  return { dir, outputDir, ctx, bash: (args: Record<string, unknown>, c = ctx) => run(tool, args, c) };
}

describe("bash", () => {
  it("runs the command in the project directory and returns its output", async () => {
    const t = setup();
    const result = await t.bash({ command: "pwd; echo to-stderr >&2" });
    expect(result.output).toBe(`${t.dir}\nto-stderr\n`);
    expect(result.metadata).toMatchObject({ exit: 0, timedOut: false });
  });

  it("reports a failing command's exit code in the output and metadata", async () => {
    const t = setup();
    const result = await t.bash({ command: "echo oops; exit 3" });
    expect(result.output).toBe("oops\n\n(Exit code 3.)");
    expect(result.metadata?.exit).toBe(3);
  });

  it("uses $SHELL, then /bin/bash, then /bin/sh, skipping shells without POSIX -c", () => {
    expect(pickShell(undefined, { SHELL: "/bin/sh" })).toBe("/bin/sh");
    expect(pickShell(undefined, { SHELL: "/usr/bin/fish" })).toBe(existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh");
    expect(pickShell(undefined, { SHELL: "/nonexistent/zsh" })).toBe(existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh");
    expect(pickShell(undefined, {})).toBe(existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh");
  });

  it("merges the shell.env hook's variables into the environment", async () => {
    const seen: unknown[] = [];
    const t = setup({
      shellEnv: (input) => {
        seen.push(input);
        return { TESSERA_GREETING: "hello from a plugin" };
      },
    });
    const result = await t.bash({ command: 'printf "%s" "$TESSERA_GREETING"' });
    expect(result.output).toBe("hello from a plugin");
    expect(seen).toEqual([{ cwd: t.dir, sessionID: "ses_test" }]);
  });

  it("returns within 3 s when a background child keeps the output pipe open", async () => {
    const t = setup();
    const started = Date.now();
    const result = await t.bash({ command: "sleep 30 & echo done" });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(result.output).toBe("done\n");
  });

  it("on timeout kills the whole process group, grandchildren included", async () => {
    const t = setup({ options: { bash: { killGraceMs: 200 } } });
    const started = Date.now();
    const result = await t.bash({ command: "sh -c 'sleep 60 & echo $!; wait'", timeout: 500 });
    expect(Date.now() - started).toBeLessThan(3_000);
    const grandchild = Number(result.output.split("\n")[0]);
    expect(grandchild).toBeGreaterThan(0);
    expect(await until(() => !alive(grandchild), 2_000)).toBe(true);
    expect(result.output).toContain("(Command timed out after 500 ms; it and its child processes were stopped.)");
    expect(result.metadata?.timedOut).toBe(true);
  });

  it("kills with SIGKILL what ignores SIGTERM, after the grace period", async () => {
    const t = setup({ options: { bash: { killGraceMs: 300 } } });
    const result = await t.bash({ command: "sh -c 'trap \"\" TERM; sleep 60 & echo $!; wait'", timeout: 300 });
    const pid = Number(result.output.split("\n")[0]);
    expect(await until(() => !alive(pid), 2_000)).toBe(true);
  });

  it("stops the process group when the call is aborted", async () => {
    const t = setup({ options: { bash: { killGraceMs: 200 } } });
    const pending = t.bash({ command: "sleep 60 & echo $! ; wait" });
    setTimeout(() => t.ctx.controller.abort(), 300);
    const result = await pending;
    const pid = Number(result.output.split("\n")[0]);
    expect(result.output).toContain("(Command aborted by the user.)");
    expect(await until(() => !alive(pid), 2_000)).toBe(true);
  });

  it("cuts 1 MB of output to its head and tail and saves the full text to a file", async () => {
    const t = setup();
    const result = await t.bash({ command: "seq 0 19999 | awk '{ printf \"line %d %040d\\n\", $1, $1 }'" });
    const full = Array.from({ length: 20000 }, (_, i) => `line ${i} ${String(i).padStart(40, "0")}`).join("\n") + "\n";
    expect(Buffer.byteLength(full)).toBeGreaterThan(1_000_000);
    expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(31 * 1024);
    expect(result.output.startsWith("line 0 ")).toBe(true);
    expect(result.output.trimEnd().endsWith(`line 19999 ${"19999".padStart(40, "0")}`)).toBe(true);
    const path = result.metadata?.outputPath as string;
    expect(path.startsWith(t.outputDir)).toBe(true);
    expect(result.output).toContain(`Full output: ${path}`);
    expect(readFileSync(path, "utf8")).toBe(full);
  }, 30_000);

  it("keeps memory bounded for output past the spill size and still saves all of it", async () => {
    const t = setup();
    const result = await t.bash({ command: "yes 0123456789 | head -n 600000" });
    const path = result.metadata?.outputPath as string;
    expect(readFileSync(path).length).toBe(600000 * 11);
    expect(result.output).toMatch(/… \d+ lines \(6\.\d MB\) omitted …/);
  });

  it("holds a timeout over the maximum to the maximum", async () => {
    const t = setup({ options: { bash: { maxTimeoutMs: 1_000 } } });
    const result = await t.bash({ command: "echo ok", timeout: 5_000 });
    expect(result.output).toContain("(The timeout was capped at 1000 ms.)");
  });
});
