/**
 * The system prompt: the agent's or the model family's default prompt, the environment block,
 * instruction files (AGENTS.md, CLAUDE.md fallback, global) and the message's own system text.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, onTestFinished, test } from "vitest";
import type { AgentDefinition } from "../../src/definitions.js";
import { BUILTIN_AGENTS } from "../../src/engine/builtin-agents.js";
import {
  ANTHROPIC_PROMPT,
  DEFAULT_PROMPT,
  GEMINI_PROMPT,
  OPENAI_PROMPT,
} from "../../src/engine/prompts/coding.js";
import { buildSystemPrompt, modelFamily, type SystemPromptInput } from "../../src/engine/system-prompt.js";

const build: AgentDefinition = { id: "build", mode: "primary" };
// Local noon, so the date is the same in every time zone the suite runs in.
const NOW = new Date(2026, 10, 21, 12, 0, 0);

function workspace() {
  const base = mkdtempSync(join(tmpdir(), "tessera-system-"));
  onTestFinished(() => rmSync(base, { recursive: true, force: true }));
  const root = join(base, "repo");
  const directory = join(root, "packages", "app");
  const configDir = join(base, "xdg", "tessera");
  mkdirSync(directory, { recursive: true });
  mkdirSync(configDir, { recursive: true });
  return {
    base,
    root,
    directory,
    configDir,
    write(file: string, text: string): string {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
      return file;
    },
    build(overrides: Partial<SystemPromptInput> = {}): Promise<string[]> {
      return buildSystemPrompt({
        agent: build,
        providerID: "anthropic",
        modelID: "claude-sonnet-4",
        directory,
        root,
        isGitRepo: true,
        configDir,
        platform: "linux",
        now: NOW,
        ...overrides,
      });
    },
  };
}

describe("sections", () => {
  test("the prompt, the environment, the instructions and the message's system text come in that order", async () => {
    const w = workspace();
    w.write(join(w.root, "AGENTS.md"), "Use pnpm.");
    const system = await w.build({ userSystem: "Answer in French." });
    expect(system).toHaveLength(4);
    expect(system[0]).toBe(ANTHROPIC_PROMPT);
    expect(system[1]).toMatch(/^<env>/);
    expect(system[2]).toBe(`Instructions from: ${join(w.root, "AGENTS.md")}\nUse pnpm.`);
    expect(system[3]).toBe("Answer in French.");
  });

  test("the message's system text comes after every instruction file", async () => {
    const w = workspace();
    w.write(join(w.root, "AGENTS.md"), "root rules");
    w.write(join(w.directory, "AGENTS.md"), "app rules");
    w.write(join(w.configDir, "AGENTS.md"), "global rules");
    const system = await w.build({ userSystem: "Last word." });
    expect(system.at(-1)).toBe("Last word.");
    expect(system.slice(2, -1)).toHaveLength(3);
  });

  test("with no instructions and no message system text there are just two sections", async () => {
    const system = await workspace().build({ userSystem: "  " });
    expect(system).toHaveLength(2);
  });

  test("the environment block names the directory, git status, platform and today's date", async () => {
    const w = workspace();
    const [, env] = await w.build({ isGitRepo: false, platform: "darwin" });
    expect(env).toBe(
      [
        "<env>",
        `Working directory: ${w.directory}`,
        "Is directory a git repo: no",
        "Platform: darwin",
        "Today's date: 2026-11-21",
        "</env>",
      ].join("\n"),
    );
    const [, gitEnv] = await w.build();
    expect(gitEnv).toContain("Is directory a git repo: yes");
  });
});

describe("default prompt", () => {
  test.each([
    ["anthropic", "claude-sonnet-4", ANTHROPIC_PROMPT],
    ["openrouter", "anthropic/claude-opus-4", ANTHROPIC_PROMPT],
    ["openai", "gpt-5", OPENAI_PROMPT],
    ["azure", "gpt-4.1", OPENAI_PROMPT],
    ["openai", "o3-mini", OPENAI_PROMPT],
    ["google", "gemini-2.5-pro", GEMINI_PROMPT],
    ["openrouter", "google/gemini-2.5-flash", GEMINI_PROMPT],
    ["ollama", "qwen3-coder", DEFAULT_PROMPT],
    ["ollama", "llama3", DEFAULT_PROMPT],
  ])("%s/%s gets the default prompt for its family", async (providerID, modelID, expected) => {
    const [prompt] = await workspace().build({ providerID, modelID });
    expect(prompt).toBe(expected);
  });

  test("the model id decides before the provider id", () => {
    expect(modelFamily("openai", "claude-proxy")).toBe("anthropic");
    expect(modelFamily("anthropic", "some-model")).toBe("anthropic");
    expect(modelFamily("mistral", "opus-like")).toBe("default");
  });

  test("every default prompt is distinct, covers the core rules and stays under 2,500 characters", () => {
    const prompts = [DEFAULT_PROMPT, ANTHROPIC_PROMPT, OPENAI_PROMPT, GEMINI_PROMPT];
    expect(new Set(prompts).size).toBe(4);
    for (const prompt of prompts) {
      expect(prompt.length).toBeLessThan(2500);
      expect(prompt).toMatch(/concise/i);
      expect(prompt).toMatch(/read a file before changing it/i);
      expect(prompt).toMatch(/never revert/i);
      expect(prompt).toMatch(/tests/i);
    }
  });

  test("an agent's own prompt replaces the default prompt", async () => {
    const w = workspace();
    const [prompt, env] = await w.build({ agent: { id: "poet", mode: "all", prompt: "Answer in verse." } });
    expect(prompt).toBe("Answer in verse.");
    expect(env).toMatch(/^<env>/);
  });

  test("built-in agents with prompts use them; build uses the default", async () => {
    const w = workspace();
    const explore = BUILTIN_AGENTS.find((a) => a.id === "explore")!;
    expect((await w.build({ agent: explore }))[0]).toBe(explore.prompt);
    expect((await w.build({ agent: BUILTIN_AGENTS[0]! }))[0]).toBe(ANTHROPIC_PROMPT);
  });
});

describe("instruction files", () => {
  test("AGENTS.md from the project directory up to the root, nearest first, then the global one", async () => {
    const w = workspace();
    const inner = w.write(join(w.directory, "AGENTS.md"), "app rules\n");
    const middle = w.write(join(w.root, "packages", "AGENTS.md"), "packages rules");
    const outer = w.write(join(w.root, "AGENTS.md"), "root rules");
    const global = w.write(join(w.configDir, "AGENTS.md"), "global rules");
    w.write(join(w.base, "AGENTS.md"), "above the root: ignored");
    const system = await w.build();
    expect(system.slice(2)).toEqual([
      `Instructions from: ${inner}\napp rules`,
      `Instructions from: ${middle}\npackages rules`,
      `Instructions from: ${outer}\nroot rules`,
      `Instructions from: ${global}\nglobal rules`,
    ]);
  });

  test("CLAUDE.md is used in a directory that has no AGENTS.md, and ignored where one exists", async () => {
    const w = workspace();
    const claude = w.write(join(w.directory, "CLAUDE.md"), "claude rules for app");
    const agents = w.write(join(w.root, "AGENTS.md"), "root rules");
    w.write(join(w.root, "CLAUDE.md"), "claude rules for root");
    const system = await w.build();
    expect(system.slice(2)).toEqual([
      `Instructions from: ${claude}\nclaude rules for app`,
      `Instructions from: ${agents}\nroot rules`,
    ]);
  });

  test("an empty AGENTS.md adds no section and keeps CLAUDE.md out", async () => {
    const w = workspace();
    w.write(join(w.root, "AGENTS.md"), "\n");
    w.write(join(w.root, "CLAUDE.md"), "claude rules");
    expect(await w.build()).toHaveLength(2);
  });

  test("an unreadable instruction file is skipped without failing the prompt", async () => {
    const w = workspace();
    mkdirSync(join(w.directory, "AGENTS.md")); // a folder: reading it fails with EISDIR
    mkdirSync(join(w.configDir, "AGENTS.md"));
    const outer = w.write(join(w.root, "AGENTS.md"), "root rules");
    expect((await w.build()).slice(2)).toEqual([`Instructions from: ${outer}\nroot rules`]);
  });

  test("a project outside any repository reads only its own directory and the global file", async () => {
    const w = workspace();
    w.write(join(w.root, "AGENTS.md"), "not an ancestor here");
    const own = w.write(join(w.directory, "AGENTS.md"), "own rules");
    const system = await w.build({ root: w.directory, isGitRepo: false });
    expect(system.slice(2)).toEqual([`Instructions from: ${own}\nown rules`]);
  });
});
