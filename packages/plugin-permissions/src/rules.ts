import { pathMatch, wildcardMatch, type PathSubject } from "./match.js";
import type { Action, RuleLayer, RuleRef } from "./types.js";

/** The config form: `{ <permission>: action | { <pattern>: action } }`, in insertion order. */
export type PermissionConfig = Readonly<Record<string, Action | Readonly<Record<string, Action>>>>;

/**
 * A default rule's exception: given the command's words, returns why its "allow" must become
 * "ask" (for example `find -delete`), or nothing. Only applies while the default rule decides.
 */
export type Guard = (argv: readonly string[]) => string | undefined;

export interface Rule extends RuleRef {
  readonly guard?: Guard;
}

/** Permissions whose patterns are paths (minimatch); the others use the command-style wildcard. */
export const PATH_PERMISSIONS: ReadonlySet<string> = new Set(["read", "edit", "external_directory"]);

export type Subject = { readonly kind: "path"; readonly path: PathSubject } | { readonly kind: "text"; readonly text: string };

export function subjectText(subject: Subject): string {
  return subject.kind === "text" ? subject.text : subject.path.rel;
}

/** `permission.bash["git push *"]`, as the kernel's config sources name keys. */
export function joinKey(parent: string, key: string): string {
  if (parent === "") return key;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
}

export interface FlattenOptions {
  /** Key path of the permission object, e.g. `permission` or `agent.plan.permission`. */
  readonly prefix: string;
  readonly layer: RuleLayer;
  /** The file a key came from, or undefined. */
  readonly sourceOf: (key: string) => string | undefined;
  /** Used when `sourceOf` does not know a key. */
  readonly fallbackSource: string;
}

/** Flattens the config form into rules, keeping insertion order. Unknown actions are skipped. */
export function flattenRules(config: PermissionConfig | undefined, options: FlattenOptions): Rule[] {
  const rules: Rule[] = [];
  if (!config) return rules;
  for (const [permission, value] of Object.entries(config)) {
    const permKey = joinKey(options.prefix, permission);
    if (typeof value === "string") {
      if (!isAction(value)) continue;
      rules.push({
        permission,
        pattern: "*",
        action: value,
        layer: options.layer,
        key: permKey,
        source: options.sourceOf(permKey) ?? options.fallbackSource,
      });
      continue;
    }
    if (typeof value !== "object" || value === null) continue;
    for (const [pattern, action] of Object.entries(value)) {
      if (!isAction(action)) continue;
      const key = joinKey(permKey, pattern);
      rules.push({
        permission,
        pattern,
        action,
        layer: options.layer,
        key,
        source: options.sourceOf(key) ?? options.sourceOf(permKey) ?? options.fallbackSource,
      });
    }
  }
  return rules;
}

export function isAction(value: unknown): value is Action {
  return value === "allow" || value === "ask" || value === "deny";
}

export function ruleMatches(rule: Rule, permission: string, subject: Subject, home?: string): boolean {
  if (rule.permission !== permission && !wildcardMatch(rule.permission, permission)) return false;
  if (subject.kind === "path") return pathMatch(rule.pattern, subject.path, home);
  return wildcardMatch(rule.pattern, subject.text);
}

/** The last rule that matches (OpenCode's semantics: later rules override earlier ones). */
export function lastMatch(
  rules: readonly Rule[],
  permission: string,
  subject: Subject,
  filter?: (rule: Rule) => boolean,
  home?: string,
): Rule | undefined {
  const list = candidates(rules, permission, subject);
  for (let i = list.length - 1; i >= 0; i--) {
    const rule = list[i]!;
    if (filter && !filter(rule)) continue;
    if (subject.kind === "path" ? pathMatch(rule.pattern, subject.path, home) : wildcardMatch(rule.pattern, subject.text)) return rule;
  }
  return undefined;
}

// Rules that can match a permission (and, for text, a first word), in order; built once per list.
const index = new WeakMap<readonly Rule[], Map<string, readonly Rule[]>>();

const firstWord = (s: string) => {
  const space = s.indexOf(" ");
  return space === -1 ? s : s.slice(0, space);
};

function candidates(rules: readonly Rule[], permission: string, subject: Subject): readonly Rule[] {
  let byKey = index.get(rules);
  if (!byKey) index.set(rules, (byKey = new Map()));
  const word = subject.kind === "text" ? firstWord(subject.text) : "";
  const key = subject.kind === "text" ? `${permission}\0${word}` : `${permission}\0\0path`;
  let list = byKey.get(key);
  if (!list) {
    list = rules.filter((r) => {
      if (r.permission !== permission && !wildcardMatch(r.permission, permission)) return false;
      if (subject.kind !== "text") return true;
      // A pattern whose first word is literal only matches subjects with that first word.
      const head = firstWord(r.pattern);
      return /[*?]/.test(head) || head === word;
    });
    if (byKey.size < 10_000) byKey.set(key, list);
  }
  return list;
}

/** A rule as explanations show it (without the guard function). */
export function ref(rule: Rule): RuleRef {
  return { source: rule.source, key: rule.key, permission: rule.permission, pattern: rule.pattern, action: rule.action, layer: rule.layer };
}
