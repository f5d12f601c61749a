import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const BIN = fileURLToPath(new URL("../dist/bundle/tessera.mjs", import.meta.url));
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

/** Where `runCli` keeps the isolated XDG folders of a test home. */
export function xdgEnv(home: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local/share"),
    XDG_STATE_HOME: join(home, ".local/state"),
  };
}

/** A model the `mock` provider lists in `configureMock` (name, limit and cost as `tessera models` shows them). */
export const MOCK_MODEL = { name: "Mock", limit: { context: 128000, output: 8192 }, cost: { input: 1, output: 2 } };

/**
 * Writes `<dir>/tessera.config.json` with `model: "mock/mock-model"` and an OpenAI-compatible
 * provider `mock` at `url` (a scripted server from `@tessera/testing`), listing `mock-model` and
 * any `extraModels`; `extra` is merged into the top level (e.g. `{ permission: … }`).
 */
export function configureMock(
  dir: string,
  url: string,
  options: { extraModels?: string[]; extra?: Record<string, unknown> } = {},
): string {
  const file = join(dir, "tessera.config.json");
  const models: Record<string, unknown> = { "mock-model": MOCK_MODEL };
  for (const id of options.extraModels ?? []) models[id] = { name: id, limit: { context: 32000, output: 4096 } };
  write(
    file,
    JSON.stringify({
      model: "mock/mock-model",
      provider: { mock: { npm: "@ai-sdk/openai-compatible", options: { baseURL: url, apiKey: "test-key" }, models } },
      ...options.extra,
    }),
  );
  return file;
}

/** A scripted-server request body, as the OpenAI-compatible provider sends it. */
export interface ChatBody {
  model: string;
  stream?: boolean;
  messages: Array<{ role: string; content: unknown }>;
}

/** The streamed completion requests (the model's steps), without non-streaming background title calls. */
export function streamedBodies(requests: readonly { body: unknown }[]): ChatBody[] {
  return requests.map((r) => r.body as ChatBody).filter((b) => b.stream === true);
}

/** The text of every user message of a request, in order. */
export function userTexts(body: ChatBody): string[] {
  return body.messages
    .filter((m) => m.role === "user")
    .map((m) =>
      typeof m.content === "string"
        ? m.content
        : (m.content as Array<{ type: string; text?: string }>)
            .filter((c) => c.type === "text")
            .map((c) => c.text ?? "")
            .join(""),
    );
}

/** Parses the JSON a command printed on stdout, failing with the output when it is not JSON. */
export function parseJson<T = any>(run: Run): T {
  try {
    return JSON.parse(run.stdout) as T;
  } catch {
    throw new Error(`not JSON (exit ${run.code}):\n${run.stdout}\n--- stderr ---\n${run.stderr}`);
  }
}
