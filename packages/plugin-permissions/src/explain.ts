import { join, resolve } from "node:path";
import { findRepoRoot, resolveAgents, tesseraPaths, type AgentDefinition, type Config, type ResolvedConfig } from "@tessera/kernel";
import { ApprovalStore, approvalsFile } from "./approvals.js";
import { Policy } from "./policy.js";
import type { PermissionConfig } from "./rules.js";
import type { Action, Check, RuleRef } from "./types.js";

export interface ExplainOptions {
  /** The config: a `ResolvedConfig` (its `sources` name the files rules come from) or a plain `Config`. */
  readonly config?: ResolvedConfig | Config | undefined;
  /** The project directory. */
  readonly directory: string;
  /** The repository root; found from the directory when omitted. */
  readonly root?: string | undefined;
  /** Explain for this agent: its rules are layered over the global ones. */
  readonly agent?: string | undefined;
  /** The agents to look `agent` up in; resolved from the config (built-ins, agent files, config) when omitted. */
  readonly agents?: readonly AgentDefinition[] | undefined;
  /** Include the project's "always" approvals from this data directory (default: Tessera's; `false`: none). */
  readonly dataDir?: string | false | undefined;
  /** For bash: the working directory (default: the project directory). */
  readonly cwd?: string | undefined;
  readonly env?: NodeJS.ProcessEnv | undefined;
}

/** A rule as `explain` prints it. */
export type ExplainRule = Pick<RuleRef, "source" | "key" | "permission" | "pattern" | "action" | "layer">;

export interface ExplainDetail {
  readonly permission: string;
  readonly subject: string;
  readonly action: Action;
  /** The rule that matched (defaults included, with source "default"), or null when the plugin's own analysis decided. */
  readonly rule: ExplainRule | null;
  readonly note?: string;
  /** The rule an "always" answer would store: `{ permission, pattern }`. */
  readonly suggestion?: { readonly permission: string; readonly pattern: string };
  /** For bash: the command (as written) the check belongs to. */
  readonly command?: string;
}

/** The JSON `tessera permissions explain <permission> <input> --json` prints. */
export interface ExplainResult {
  readonly permission: string;
  readonly input: string;
  readonly agent?: string;
  readonly decision: Action;
  /** What decided: a config, agent or approval rule, or "default" (the built-in defaults or the plugin's analysis). */
  readonly rule: ExplainRule | "default";
  /** The same one-line explanation tool errors and `permission.decided` carry. */
  readonly reason: string;
  /** Every check, in order; the decision is the most restrictive. */
  readonly details: readonly ExplainDetail[];
}

const toRule = (r: RuleRef): ExplainRule => ({ source: r.source, key: r.key, permission: r.permission, pattern: r.pattern, action: r.action, layer: r.layer });

export function toDetail(check: Check): ExplainDetail {
  return {
    permission: check.permission,
    subject: check.subject,
    action: check.action,
    rule: check.rule ? toRule(check.rule) : null,
    ...(check.note ? { note: check.note } : {}),
    ...(check.approval ? { suggestion: { ...check.approval } } : {}),
    ...(check.command !== undefined ? { command: check.command } : {}),
  };
}

/**
 * Explains what the plugin would decide for `permission` and `input` (a command for bash, a path
 * for read/edit, a URL, an agent name …) in a project, and why. Same rules, defaults, approvals
 * and analysis as the running plugin.
 *
 * ```ts
 * const result = await explain("bash", "git push --force", { config: await loadConfig({ cwd }), directory: cwd });
 * result.decision  // "ask"
 * result.rule      // "default"
 * ```
 */
export async function explain(permission: string, input: string, options: ExplainOptions): Promise<ExplainResult> {
  const env = options.env ?? process.env;
  const resolved = options.config && "sources" in options.config && "config" in options.config ? (options.config as ResolvedConfig) : undefined;
  const config: Config = resolved ? resolved.config : ((options.config as Config | undefined) ?? {});
  const directory = resolve(options.directory);
  const root = options.root ?? resolved?.root ?? findRepoRoot(directory) ?? directory;
  const paths = tesseraPaths(env);

  let agentDef: Pick<AgentDefinition, "id" | "permission"> | undefined;
  if (options.agent) {
    const agents = options.agents ?? (await resolveAgents({ config, directory, root, configDir: paths.config })).agents;
    agentDef = agents.find((a) => a.id === options.agent);
    if (!agentDef) throw new Error(`unknown agent "${options.agent}"; agents: ${agents.map((a) => a.id).join(", ")}`);
  }
  const store = options.dataDir === false ? undefined : new ApprovalStore(approvalsFile(options.dataDir ?? paths.data, root), root).load();
  const policy = new Policy({
    directory,
    root,
    home: env.HOME || undefined,
    permission: config.permission as PermissionConfig | undefined,
    agent: (id) => (agentDef?.id === id ? agentDef : undefined),
    sources: resolved?.sources,
    approvals: store ? () => store.rules() : undefined,
    protectedDirs: [paths.config, join(options.dataDir || paths.data, "permissions")],
  });

  const request = toRequest(permission, input, directory, options.cwd);
  const decision = await policy.decide(request, options.agent);
  const decisive = decision.decisive;
  const rule: ExplainRule | "default" = decisive.rule && decisive.rule.layer !== "default" ? toRule(decisive.rule) : "default";
  return {
    permission,
    input,
    ...(options.agent ? { agent: options.agent } : {}),
    decision: decision.status,
    rule,
    reason: decision.reason,
    details: decision.checks.map(toDetail),
  };
}

/** The request a tool would make for `input`: the contracts of @tessera/plugin-tools. */
function toRequest(permission: string, input: string, directory: string, cwd?: string) {
  if (permission === "bash") return { permission, patterns: [input], metadata: { command: input, cwd: cwd ?? directory } };
  if (permission === "read" || permission === "edit") {
    const filepath = input.startsWith("/") ? input : join(directory, input);
    return { permission, patterns: [input], metadata: { filepath } };
  }
  return { permission, patterns: [input], metadata: {} };
}
