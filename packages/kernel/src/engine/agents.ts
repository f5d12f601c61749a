/**
 * Agent resolution: the built-in agents with the user's layers applied over them.
 *
 * Layers, lowest precedence first, each applied field by field:
 *   1. built-in agents (or whatever the caller passes as `builtins`)
 *   2. global files: `<configDir>/agents/*.md`
 *   3. project files: `.tessera/agents/*.md` in each directory from the repository root down to
 *      the project directory (inner directories win)
 *   4. config: `agent: { <id>: { … } }`
 *
 * "Field by field" means a layer only changes what it sets: `model` in config leaves a built-in's
 * prompt and tools alone. `tools` and `permission` are merged key by key for the same reason.
 * `disable: true` in any layer removes the agent (a later layer can set `disable: false`).
 */
import { join, resolve } from "node:path";
import type { AgentDefinition } from "../definitions.js";
import { directoriesBetween } from "../config/load.js";
import type { Config } from "../config/schema.js";
import { readAgentFiles, toAgentPatch, type AgentFileError, type AgentPatch } from "./agent-files.js";
import { BUILTIN_AGENTS } from "./builtin-agents.js";

export { BUILTIN_AGENTS, BUILTIN_AGENT_OWNER, DEFAULT_AGENT } from "./builtin-agents.js";
export type { AgentFileError, AgentPatch } from "./agent-files.js";

export interface ResolveAgentsInput {
  readonly config: Config;
  /** The project directory. */
  readonly directory: string;
  /** The repository root (or the project directory when it is not in a repository). */
  readonly root: string;
  /** The global config directory (`tesseraPaths(env).config`). */
  readonly configDir: string;
  /** The agents the user's layers apply over; defaults to `BUILTIN_AGENTS`. The kernel adds plugin agents here. */
  readonly builtins?: readonly AgentDefinition[];
}

export interface ResolvedAgents {
  /** Built-ins first in their order, then user agents in the order they were first defined. */
  readonly agents: AgentDefinition[];
  /** Agent files that could not be read or parsed; those agents are skipped, the others load. */
  readonly errors: AgentFileError[];
}

/** Resolves the agents for a project. Never throws for a bad agent file: see `errors`. */
export async function resolveAgents(input: ResolveAgentsInput): Promise<ResolvedAgents> {
  const drafts = new Map<string, AgentPatch>();
  const apply = (id: string, patch: AgentPatch) => drafts.set(id, mergeAgent(drafts.get(id), patch));

  for (const agent of input.builtins ?? BUILTIN_AGENTS) {
    const { id, ...patch } = agent;
    apply(id, patch);
  }

  const folders = [
    join(input.configDir, "agents"),
    ...directoriesBetween(resolve(input.root), resolve(input.directory)).map((dir) => join(dir, ".tessera", "agents")),
  ];
  // Read in parallel, apply in precedence order.
  const layers = await Promise.all(folders.map(readAgentFiles));
  const errors: AgentFileError[] = [];
  for (const layer of layers) {
    errors.push(...layer.errors);
    for (const file of layer.agents) apply(file.id, file.patch);
  }

  for (const [id, settings] of Object.entries(input.config.agent ?? {})) apply(id, toAgentPatch(settings));

  const agents: AgentDefinition[] = [];
  for (const [id, draft] of drafts) {
    const { disable, ...fields } = draft;
    if (disable) continue;
    // Agents the user adds can be picked as primary agents and called as subagents alike.
    agents.push({ ...fields, id, mode: fields.mode ?? "all" });
  }
  return { agents, errors };
}

/** Layers `patch` over `base`; `undefined` fields in the patch leave the base's value. */
export function mergeAgent(base: AgentPatch | undefined, patch: AgentPatch): AgentPatch {
  const { tools, permission, ...rest } = patch;
  const next: AgentPatch = { ...base };
  for (const [key, value] of Object.entries(rest)) {
    if (value !== undefined) (next as Record<string, unknown>)[key] = value;
  }
  if (tools) next.tools = { ...base?.tools, ...tools };
  if (permission) next.permission = mergePermission(base?.permission, permission);
  return next;
}

type Permission = NonNullable<AgentDefinition["permission"]>;
type PermissionRule = Permission[string];

/**
 * Merges permission rules key by key. Where one side is a pattern map, the maps are merged (a
 * plain status below a map becomes its `"*"` rule, placed first so the map's own patterns, which
 * match later, still decide for what they name). A plain status above anything replaces it.
 */
function mergePermission(base: Permission | undefined, patch: Permission): Permission {
  const next: Record<string, PermissionRule> = { ...base };
  for (const [key, rule] of Object.entries(patch)) {
    const below = base?.[key];
    if (typeof rule === "string" || below === undefined) next[key] = rule;
    else if (typeof below === "string") next[key] = { "*": below, ...rule };
    else next[key] = { ...below, ...rule };
  }
  return next;
}

/**
 * Whether a tool is offered to the model. Switches are keyed by exact tool id (no globs) or by
 * `"*"`, which covers every tool not named. Message-level switches (from the user message) win
 * over the agent's; within one level an exact id beats `"*"`. With no switch at all a tool is on.
 */
export function isToolEnabled(
  agent: Pick<AgentDefinition, "tools">,
  toolID: string,
  messageTools?: Readonly<Record<string, boolean>>,
): boolean {
  for (const switches of [messageTools, agent.tools]) {
    if (!switches) continue;
    const exact = switchValue(switches, toolID);
    if (exact !== undefined) return exact;
    const all = switchValue(switches, "*");
    if (all !== undefined) return all;
  }
  return true;
}

// Own keys only, so a tool called `constructor` is not switched by Object.prototype.
function switchValue(switches: Readonly<Record<string, boolean>>, key: string): boolean | undefined {
  return Object.hasOwn(switches, key) && typeof switches[key] === "boolean" ? switches[key] : undefined;
}
