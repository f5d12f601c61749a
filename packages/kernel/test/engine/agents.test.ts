/**
 * Agents: the built-in presets, user agents from config and `.tessera/agents/*.md`, their
 * precedence, and which tools an agent is offered.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, onTestFinished, test } from "vitest";
import type { Config } from "../../src/config/schema.js";
import type { AgentDefinition } from "../../src/definitions.js";
import {
  BUILTIN_AGENTS,
  DEFAULT_AGENT,
  isToolEnabled,
  resolveAgents,
  type ResolvedAgents,
} from "../../src/engine/agents.js";

/** A repository at `root` with the project directory two levels down, and a global config folder beside it. */
function workspace() {
  const base = mkdtempSync(join(tmpdir(), "tessera-agents-"));
  onTestFinished(() => rmSync(base, { recursive: true, force: true }));
  const root = join(base, "repo");
  const directory = join(root, "packages", "app");
  const configDir = join(base, "xdg", "tessera");
  mkdirSync(join(root, ".git"), { recursive: true });
  mkdirSync(directory, { recursive: true });
  mkdirSync(configDir, { recursive: true });
  return {
    root,
    directory,
    configDir,
    /** Writes `relative` under `dir`, creating folders. */
    write(dir: string, relative: string, text: string): string {
      const file = join(dir, relative);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
      return file;
    },
    resolve(config: Config = {}): Promise<ResolvedAgents> {
      return resolveAgents({ config, directory, root, configDir });
    },
  };
}

function byId(result: ResolvedAgents, id: string): AgentDefinition {
  const agent = result.agents.find((a) => a.id === id);
  if (!agent) throw new Error(`no agent "${id}" in ${result.agents.map((a) => a.id).join(", ")}`);
  return agent;
}

const tools = ["read", "grep", "glob", "list", "edit", "write", "patch", "bash", "todowrite", "todoread", "task"];
const enabledTools = (agent: AgentDefinition) => tools.filter((tool) => isToolEnabled(agent, tool));

describe("built-in agents", () => {
  test("a project with no agent settings gets the six built-ins, build being the default", async () => {
    const result = await workspace().resolve();
    expect(result.agents.map((a) => a.id)).toEqual(["build", "plan", "explore", "general", "title", "compaction"]);
    expect(result.errors).toEqual([]);
    expect(DEFAULT_AGENT).toBe("build");
    expect(byId(result, DEFAULT_AGENT).mode).toBe("primary");
  });

  test("each built-in is offered the tools its job needs", async () => {
    const result = await workspace().resolve();
    expect(enabledTools(byId(result, "build"))).toEqual(tools);
    expect(enabledTools(byId(result, "explore"))).toEqual(["read", "grep", "glob", "list"]);
    expect(enabledTools(byId(result, "general"))).toEqual(tools.filter((t) => !t.startsWith("todo")));
    expect(enabledTools(byId(result, "title"))).toEqual([]);
    expect(enabledTools(byId(result, "compaction"))).toEqual([]);
  });

  test("the plan agent cannot edit files; bash keeps the global rules (read-only commands stay allowed)", async () => {
    const plan = byId(await workspace().resolve(), "plan");
    expect(plan.mode).toBe("primary");
    for (const tool of ["edit", "write", "patch"]) expect(isToolEnabled(plan, tool)).toBe(false);
    expect(isToolEnabled(plan, "read")).toBe(true);
    expect(plan.permission).toEqual({ edit: "deny" });
  });

  test("subagents say when to use them; internal agents are hidden and have their own prompts", async () => {
    const result = await workspace().resolve();
    expect(byId(result, "explore")).toMatchObject({ mode: "subagent", description: expect.stringMatching(/search/i) });
    expect(byId(result, "general").mode).toBe("subagent");
    expect(byId(result, "title")).toMatchObject({ hidden: true, prompt: expect.stringContaining("50 characters") });
    expect(byId(result, "compaction")).toMatchObject({ hidden: true, prompt: expect.stringMatching(/next/i) });
    expect(result.agents.filter((a) => a.hidden).map((a) => a.id)).toEqual(["title", "compaction"]);
  });

  test("resolving never changes the shared built-in definitions", async () => {
    const before = JSON.stringify(BUILTIN_AGENTS);
    await workspace().resolve({ agent: { plan: { tools: { bash: false }, permission: { edit: "allow" } } } });
    expect(JSON.stringify(BUILTIN_AGENTS)).toBe(before);
    expect(Object.isFrozen(BUILTIN_AGENTS[1]!.tools)).toBe(true);
  });
});

describe("user agents", () => {
  test("config overrides a built-in field by field and maps snake_case keys", async () => {
    const result = await workspace().resolve({
      agent: {
        plan: { model: "openai/gpt-5", temperature: 0.2, top_p: 0.9, max_steps: 12, tools: { bash: false } },
      },
    });
    const plan = byId(result, "plan");
    expect(plan).toMatchObject({ model: "openai/gpt-5", temperature: 0.2, topP: 0.9, maxSteps: 12, mode: "primary" });
    expect(plan).not.toHaveProperty("top_p");
    expect(plan.description).toBe(BUILTIN_AGENTS[1]!.description);
    // The new switch joins the built-in ones instead of replacing them.
    expect(plan.tools).toEqual({ edit: false, write: false, patch: false, bash: false });
  });

  test("an agent added in config can be used as primary agent and as subagent", async () => {
    const docs = { description: "Writes docs", prompt: "Write docs." };
    const result = await workspace().resolve({ agent: { docs } });
    expect(byId(result, "docs")).toEqual({ id: "docs", ...docs, mode: "all" });
  });

  test("a markdown agent takes its settings from the frontmatter and its prompt from the body", async () => {
    const w = workspace();
    w.write(
      w.root,
      ".tessera/agents/reviewer.md",
      [
        "---",
        "description: Reviews changes",
        "mode: subagent",
        "model: anthropic/claude-sonnet-4",
        "temperature: 0.1",
        "top_p: 0.5",
        "max_steps: 5",
        "hidden: true",
        "tools:",
        '  "*": false',
        "  read: true",
        "permission:",
        "  bash:",
        '    "git diff*": allow',
        "---",
        "",
        "You review code.",
        "",
        "Be strict.",
        "",
      ].join("\n"),
    );
    const result = await w.resolve();
    expect(result.errors).toEqual([]);
    expect(byId(result, "reviewer")).toEqual({
      id: "reviewer",
      description: "Reviews changes",
      mode: "subagent",
      model: "anthropic/claude-sonnet-4",
      temperature: 0.1,
      topP: 0.5,
      maxSteps: 5,
      hidden: true,
      tools: { "*": false, read: true },
      permission: { bash: { "git diff*": "allow" } },
      prompt: "You review code.\n\nBe strict.",
    });
  });

  test("a markdown file without frontmatter is all prompt, with mode all", async () => {
    const w = workspace();
    w.write(w.configDir, "agents/poet.md", "Answer in verse.\n");
    expect(byId(await w.resolve(), "poet")).toEqual({ id: "poet", mode: "all", prompt: "Answer in verse." });
  });

  test("a markdown file with only frontmatter keeps the built-in's prompt", async () => {
    const w = workspace();
    w.write(w.root, ".tessera/agents/explore.md", "---\nmodel: openai/gpt-5-mini\n---\n");
    const explore = byId(await w.resolve(), "explore");
    expect(explore.model).toBe("openai/gpt-5-mini");
    expect(explore.prompt).toBe(BUILTIN_AGENTS.find((a) => a.id === "explore")!.prompt);
  });

  test("an agent file with bad frontmatter is reported with its path and key, and the others still load", async () => {
    const w = workspace();
    const dir = join(w.root, ".tessera/agents");
    const wrongType = w.write(dir, "hot.md", "---\ntemperature: very\n---\nHi");
    const badYaml = w.write(dir, "broken.md", "---\ndescription: ok\ntools: [read\n---\nHi");
    const typo = w.write(dir, "typo.md", "---\ntemprature: 0.3\n---\nHi");
    const unclosed = w.write(dir, "open.md", "---\nmodel: a/b\nHi");
    const notMapping = w.write(dir, "list.md", "---\n- a\n- b\n---\nHi");
    w.write(dir, "fine.md", "---\ndescription: Fine\n---\nHi");

    const result = await w.resolve();
    const ids = result.agents.map((a) => a.id);
    expect(ids).toContain("fine");
    for (const id of ["hot", "broken", "typo", "open", "list"]) expect(ids).not.toContain(id);

    const errorFor = (file: string) => result.errors.find((e) => e.file === file)?.message;
    expect(errorFor(wrongType)).toMatch(/"temperature".*number/);
    expect(errorFor(badYaml)).toMatch(/YAML.*line \d/);
    expect(errorFor(typo)).toMatch(/unknown key "temprature"; did you mean "temperature"\?/);
    expect(errorFor(unclosed)).toMatch(/not closed/);
    expect(errorFor(notMapping)).toMatch(/mapping/);
    expect(result.errors).toHaveLength(5);
  });

  test("a bad agent file does not wipe the built-in of the same name", async () => {
    const w = workspace();
    w.write(w.root, ".tessera/agents/plan.md", "---\nmode: sometimes\n---\nPlan things.");
    const result = await w.resolve();
    expect(result.errors[0]?.message).toMatch(/"mode"/);
    expect(byId(result, "plan").prompt).toBeUndefined();
    expect(byId(result, "plan").mode).toBe("primary");
  });

  test("disable: true removes an agent, in config or in a file", async () => {
    const w = workspace();
    w.write(w.configDir, "agents/explore.md", "---\ndisable: true\n---\n");
    const result = await w.resolve({ agent: { general: { disable: true } } });
    const ids = result.agents.map((a) => a.id);
    expect(ids).not.toContain("explore");
    expect(ids).not.toContain("general");
    expect(ids).toContain("build");
  });

  test("a later layer can bring back an agent an earlier one disabled", async () => {
    const w = workspace();
    w.write(w.configDir, "agents/explore.md", "---\ndisable: true\n---\n");
    const result = await w.resolve({ agent: { explore: { disable: false } } });
    expect(result.agents.map((a) => a.id)).toContain("explore");
  });

  test("precedence: built-in < global file < outer project file < inner project file < config", async () => {
    const w = workspace();
    const global = "---\ndescription: global\nmodel: g/m\ntemperature: 0.1\ntop_p: 0.1\n---\nglobal prompt";
    w.write(w.configDir, "agents/build.md", global);
    w.write(w.root, ".tessera/agents/build.md", "---\nmodel: outer/m\ntemperature: 0.2\ntop_p: 0.2\n---\nouter prompt");
    w.write(w.directory, ".tessera/agents/build.md", "---\ntemperature: 0.3\ntop_p: 0.3\n---\n");
    const result = await w.resolve({ agent: { build: { top_p: 0.4 } } });
    expect(byId(result, "build")).toMatchObject({
      mode: "primary", // built-in
      description: "global", // global file
      model: "outer/m", // outer project file
      prompt: "outer prompt", // outer project file (the inner one has no body)
      temperature: 0.3, // inner project file
      topP: 0.4, // config
    });
  });

  test("agent folders above the repository root are not read", async () => {
    const w = workspace();
    w.write(dirname(w.root), ".tessera/agents/outside.md", "Should not load.");
    expect((await w.resolve()).agents.map((a) => a.id)).not.toContain("outside");
  });
});

describe("isToolEnabled", () => {
  test("a tool is on unless something switches it off", () => {
    expect(isToolEnabled({}, "bash")).toBe(true);
    expect(isToolEnabled({ tools: { edit: false } }, "bash")).toBe(true);
    expect(isToolEnabled({ tools: { edit: false } }, "edit")).toBe(false);
  });

  test('"*" covers every tool not named, and an exact id beats it', () => {
    const agent = { tools: { "*": false, read: true } };
    expect(isToolEnabled(agent, "read")).toBe(true);
    expect(isToolEnabled(agent, "bash")).toBe(false);
    expect(isToolEnabled({ tools: { read: false, "*": true } }, "read")).toBe(false);
  });

  test("keys are exact ids, not patterns", () => {
    expect(isToolEnabled({ tools: { "todo*": false } }, "todowrite")).toBe(true);
    expect(isToolEnabled({ tools: {} }, "constructor")).toBe(true);
  });

  test("the message's switches win over the agent's", () => {
    const agent = { tools: { "*": false, read: true } };
    expect(isToolEnabled(agent, "bash", { bash: true })).toBe(true);
    expect(isToolEnabled(agent, "read", { read: false })).toBe(false);
    expect(isToolEnabled(agent, "read", { "*": false })).toBe(false);
    expect(isToolEnabled({ tools: { edit: false } }, "edit", { "*": true })).toBe(true);
    // A message that does not mention the tool leaves the agent's switch in charge.
    expect(isToolEnabled(agent, "bash", { read: true })).toBe(false);
  });
});
