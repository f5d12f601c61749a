/** What a rule or a decision says: run it, ask the user first, or refuse. */
export type Action = "allow" | "ask" | "deny";

const RANK: Record<Action, number> = { allow: 0, ask: 1, deny: 2 };

/** The most restrictive of two actions: deny > ask > allow. */
export function stricter(a: Action, b: Action): Action {
  return RANK[a] >= RANK[b] ? a : b;
}

export function rank(action: Action): number {
  return RANK[action];
}

/** Where a rule came from. */
export type RuleLayer = "default" | "config" | "agent" | "approval";

/**
 * Names a rule, for explanations: `source` is the config file (or "default", `agent:<name>`, the
 * approvals file), `key` the key path in it, `pattern` what the rule matches and `action` what it says.
 */
export interface RuleRef {
  readonly source: string;
  readonly key: string;
  readonly permission: string;
  readonly pattern: string;
  readonly action: Action;
  readonly layer: RuleLayer;
}

/** One thing that was checked for a request, and what decided it. */
export interface Check {
  /** The permission checked: `bash`, `read`, `edit`, `external_directory`, … */
  readonly permission: string;
  /** What the rules were matched against: a command, a path, a URL, a pattern. */
  readonly subject: string;
  readonly action: Action;
  /** The rule that decided, when one did (see `note` for the plugin's own checks). */
  readonly rule?: RuleRef;
  /** Why, when the plugin itself decided or changed the rule's answer (parse error, protected path, …). */
  readonly note?: string;
  /** What an "always" answer would store for this check. */
  readonly approval?: { readonly permission: string; readonly pattern: string };
  /** For bash: the command (as written) this check belongs to. */
  readonly command?: string;
}

/** The decision for one permission request. */
export interface Decision {
  readonly status: Action;
  /** Every check made, in order. The status is the most restrictive of their actions. */
  readonly checks: readonly Check[];
  /** The check that made the status (the first one with the most restrictive action). */
  readonly decisive: Check;
  /** A one-line human explanation, used as the hook's `reason`. */
  readonly reason: string;
}
