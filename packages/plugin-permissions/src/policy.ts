import { homedir } from "node:os";
import type { AgentDefinition } from "@tessera/kernel";
import { defaultRules } from "./defaults.js";
import { decide, type RequestLike } from "./engine.js";
import { loadBashParser, loadedBashParser } from "./bash/parser.js";
import { ProjectPaths } from "./paths.js";
import { flattenRules, joinKey, type PermissionConfig, type Rule } from "./rules.js";
import type { Decision } from "./types.js";

export interface PolicyOptions {
  /** The project directory. */
  readonly directory: string;
  /** The repository root (the directory itself outside a repository). */
  readonly root?: string;
  readonly home?: string;
  /** The global rules: config `permission`. */
  readonly permission?: PermissionConfig | undefined;
  /** Finds an agent's definition (its `permission` rules are layered over the global ones). */
  readonly agent?: ((id: string) => Pick<AgentDefinition, "id" | "permission"> | undefined) | undefined;
  /** Config key path → file, to name the file a rule came from (the kernel's `ResolvedConfig.sources`). */
  readonly sources?: Readonly<Record<string, string>> | undefined;
  /** "Always" approvals, as rules (read on every decision, so new approvals apply at once). */
  readonly approvals?: (() => readonly Rule[]) | undefined;
  /** Absolute directories that are protected wherever they are. */
  readonly protectedDirs?: readonly string[] | undefined;
}

/**
 * The rules of one project: defaults, config and agents, with the approvals. Decides requests;
 * the per-agent rule lists are built once.
 */
export class Policy {
  readonly paths: ProjectPaths;
  private sources: Readonly<Record<string, string>>;
  private base: Rule[] | undefined;
  private readonly byAgent = new Map<string, Rule[]>();

  constructor(private readonly options: PolicyOptions) {
    this.paths = new ProjectPaths(options.directory, options.root ?? options.directory, options.home ?? homedir(), options.protectedDirs ?? []);
    this.sources = options.sources ?? {};
  }

  /** Replaces the key → file map (rules are rebuilt on next use). */
  setSources(sources: Readonly<Record<string, string>>): void {
    this.sources = sources;
    this.base = undefined;
    this.byAgent.clear();
  }

  get hasSources(): boolean {
    return Object.keys(this.sources).length > 0;
  }

  /** Defaults, then config `permission`, then the agent's `permission`: the last match wins. */
  rulesFor(agentID?: string): readonly Rule[] {
    const sourceOf = (key: string) => this.sources[key];
    this.base ??= [
      ...defaultRules(),
      ...flattenRules(this.options.permission, { prefix: "permission", layer: "config", sourceOf, fallbackSource: "config" }),
    ];
    if (!agentID) return this.base;
    let rules = this.byAgent.get(agentID);
    if (!rules) {
      const agent = this.options.agent?.(agentID);
      rules = agent?.permission
        ? [
            ...this.base,
            ...flattenRules(agent.permission, {
              prefix: joinKey(joinKey("agent", agentID), "permission"),
              layer: "agent",
              sourceOf,
              fallbackSource: `agent:${agentID}`,
            }),
          ]
        : this.base;
      this.byAgent.set(agentID, rules);
    }
    return rules;
  }

  /** Decides a request (loads the bash parser first when needed). */
  async decide(request: RequestLike, agentID?: string): Promise<Decision> {
    if (request.permission === "bash" && !loadedBashParser()) {
      try {
        await loadBashParser();
      } catch {
        // decided without a parser: every bash request asks
      }
    }
    return this.decideSync(request, agentID);
  }

  /** Decides with whatever parser is loaded (without one, bash requests ask). */
  decideSync(request: RequestLike, agentID?: string): Decision {
    return decide(request, {
      paths: this.paths,
      rules: this.rulesFor(agentID),
      approvals: this.options.approvals?.() ?? [],
      parser: loadedBashParser(),
      agent: agentID,
    });
  }
}

/**
 * Keeps only the sources whose permission rule has the same action in `loaded` and `current`,
 * so a config that changed on disk since the kernel read it never names the wrong file.
 */
export function verifiedSources(
  loaded: { config: { permission?: PermissionConfig | undefined; agent?: Record<string, { permission?: PermissionConfig | undefined }> | undefined }; sources: Readonly<Record<string, string>> },
  current: { permission?: PermissionConfig | undefined; agent?: Record<string, { permission?: PermissionConfig | undefined }> | undefined },
): Record<string, string> {
  const actions = (config: typeof current) => {
    const map = new Map<string, string>();
    const none = () => undefined;
    for (const r of flattenRules(config.permission, { prefix: "permission", layer: "config", sourceOf: none, fallbackSource: "" })) map.set(r.key, r.action);
    for (const [id, agent] of Object.entries(config.agent ?? {})) {
      const prefix = joinKey(joinKey("agent", id), "permission");
      for (const r of flattenRules(agent?.permission, { prefix, layer: "agent", sourceOf: none, fallbackSource: "" })) map.set(r.key, r.action);
    }
    return map;
  };
  const before = actions(loaded.config);
  const now = actions(current);
  const out: Record<string, string> = {};
  for (const [key, file] of Object.entries(loaded.sources)) {
    if (before.has(key) && before.get(key) === now.get(key)) out[key] = file;
  }
  return out;
}
