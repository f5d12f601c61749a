import type { AgentDefinition } from "../definitions.js";
import { COMPACTION_PROMPT, EXPLORE_PROMPT, TITLE_PROMPT } from "./prompts/agents.js";

/** The agent a session uses when none is named. */
export const DEFAULT_AGENT = "build";

/** The plugin-style owner reported for the agents defined here. */
export const BUILTIN_AGENT_OWNER = "kernel";

/**
 * The agents every kernel has. Users override them field by field (config, `.tessera/agents/*.md`)
 * or remove them with `disable: true`.
 *
 * Tool switches are keyed by tool id; `"*"` stands for every tool not named (see `isToolEnabled`).
 * `build` and `general` have no prompt, so they get the provider's default coding prompt.
 */
export const BUILTIN_AGENTS: readonly AgentDefinition[] = deepFreeze<AgentDefinition[]>([
  {
    id: "build",
    description: "The default agent: reads, edits and runs code with every tool.",
    mode: "primary",
  },
  {
    id: "plan",
    description: "Analyses and plans without changing files: edits are off and shell commands ask first.",
    mode: "primary",
    // The switches hide the edit tools; the permission also stops edits through any other tool
    // that asks for `edit` (a plugin's refactoring tool, say).
    tools: { edit: false, write: false, patch: false },
    permission: { edit: "deny" },
  },
  {
    id: "explore",
    description:
      "Fast read-only agent for searching the codebase: finds files by pattern, searches code for keywords and answers questions about how the code works. Say how thorough it should be: quick, medium or very thorough.",
    mode: "subagent",
    prompt: EXPLORE_PROMPT,
    tools: { "*": false, read: true, grep: true, glob: true, list: true },
  },
  {
    id: "general",
    description:
      "General-purpose agent for researching complex questions and carrying out multi-step tasks. Use it to search when you are not confident the first few tries will find the right match, or to run several steps on its own.",
    mode: "subagent",
    // The todo list belongs to the session's primary agent; a subagent writing it would clobber it.
    tools: { todowrite: false, todoread: false },
  },
  {
    id: "title",
    description: "Writes a short session title from the first user message.",
    mode: "primary",
    prompt: TITLE_PROMPT,
    tools: { "*": false },
    hidden: true,
  },
  {
    id: "compaction",
    description: "Summarises a long session so it can continue in a fresh context.",
    mode: "primary",
    prompt: COMPACTION_PROMPT,
    tools: { "*": false },
    hidden: true,
  },
]);

// Shared by every kernel in the process: freezing turns an accidental in-place edit into an error
// instead of a change that leaks into other sessions.
function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
