import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll } from "vitest";
import type { ToolContext, ToolDefinition, ToolResult } from "@tessera/kernel";

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A fresh directory under the OS temp dir (real path), removed after the test file. */
export function tempDir(prefix = "tessera-tools-"): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  made.push(dir);
  return dir;
}

/** Writes files given as `{ "a/b.txt": "text" }` under `root`. */
export function writeTree(root: string, files: Record<string, string | Buffer>): void {
  for (const [rel, content] of Object.entries(files)) {
    const path = join(root, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
  }
}

export interface TestContext extends ToolContext {
  readonly controller: AbortController;
  readonly progress: Array<{ title?: string; metadata?: Record<string, unknown> }>;
}

/** A tool context for `directory`, as the kernel would give it (session `ses_test` unless told). */
export function toolContext(directory: string, overrides: Partial<ToolContext> = {}): TestContext {
  const controller = new AbortController();
  const progress: TestContext["progress"] = [];
  return {
    sessionID: "ses_test",
    messageID: "msg_test",
    callID: "call_test",
    agent: "build",
    directory,
    abort: controller.signal,
    ask: async () => undefined,
    metadata: (update) => progress.push(update),
    subtask: async () => {
      throw new Error("no subtask in this test");
    },
    ...overrides,
    controller,
    progress,
  };
}

/** Validates `args` with the tool's schema (as the kernel does) and runs it. */
export async function run(tool: ToolDefinition<any>, args: unknown, ctx: ToolContext): Promise<ToolResult> {
  const parsed = tool.parameters.parse(args);
  return tool.execute(parsed, ctx);
}

/** The error message a tool call fails with; fails the test if it succeeds. */
export async function failure(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("expected the tool call to fail, but it succeeded");
}
