/**
 * The decision engine: turns one permission request into checks against the rules (defaults,
 * config, agent), the "always" approvals, protected paths and the project boundary, and returns
 * the most restrictive answer with what made it.
 */
import { posix } from "node:path";
import type { Parser } from "web-tree-sitter";
import { analyzeBash, type BashItem, type CommandItem, type PathItem } from "./bash/analyze.js";
import { ARGS_SAFE, arityPattern } from "./bash/commands.js";
import { namesProtected, type ProjectPaths, type ResolvedPath } from "./paths.js";
import { lastMatch, ref, type Rule, type Subject } from "./rules.js";
import { rank, type Action, type Check, type Decision, type RuleRef } from "./types.js";

/** What a request looks like to the engine (the kernel's PermissionRequest without session fields). */
export interface RequestLike {
  readonly permission: string;
  readonly patterns: readonly string[];
  readonly metadata?: Readonly<Record<string, unknown>>;
}

export interface EngineContext {
  readonly paths: ProjectPaths;
  /** Defaults, then config, then the agent's rules: the last match wins. */
  readonly rules: readonly Rule[];
  /** "Always" approvals: they turn a rule's "ask" into "allow", never a "deny". */
  readonly approvals: readonly Rule[];
  /** The bash parser; without it every bash request asks. */
  readonly parser: Parser | undefined;
  /** The agent whose rules are in `rules`, for suggestions that must go into the agent's config. */
  readonly agent?: string | undefined;
}

interface CheckInput {
  permission: string;
  subject: string;
  action: Action;
  rule?: Rule | undefined;
  note?: string | undefined;
  approval?: { permission: string; pattern: string } | undefined;
  command?: string | undefined;
}

function makeCheck(input: CheckInput): Check {
  return {
    permission: input.permission,
    subject: input.subject,
    action: input.action,
    ...(input.rule ? { rule: ref(input.rule) } : {}),
    ...(input.note ? { note: input.note } : {}),
    ...(input.approval && input.action === "ask" ? { approval: input.approval } : {}),
    ...(input.command !== undefined ? { command: input.command } : {}),
  };
}

/** Decides a request. Synchronous: the bash parser must be loaded already (see `loadBashParser`). */
export function decide(request: RequestLike, ctx: EngineContext): Decision {
  return ctx.paths.fresh(() => decideNow(request, ctx));
}

function decideNow(request: RequestLike, ctx: EngineContext): Decision {
  const checks: Check[] = [];
  const { permission } = request;
  const metadata = request.metadata ?? {};
  const patterns = request.patterns.length > 0 ? request.patterns : ["*"];

  if (permission === "bash") {
    const command = typeof metadata.command === "string" ? metadata.command : undefined;
    const cwd = typeof metadata.cwd === "string" && metadata.cwd.startsWith("/") ? metadata.cwd : ctx.paths.directory;
    const scripts = command !== undefined ? [command, ...request.patterns.filter((p) => p !== command)] : [...request.patterns];
    if (scripts.length === 0) scripts.push("");
    for (const script of scripts) checks.push(...bashChecks(script, cwd, ctx));
  } else if (permission === "read" || permission === "edit") {
    const seen = new Set<string>();
    const targets: ResolvedPath[] = [];
    const add = (value: string) => {
      const resolved = ctx.paths.resolve(value, ctx.paths.directory, value === "~" || value.startsWith("~/"));
      const key = `${resolved.lexical}\0${resolved.real}`;
      if (!seen.has(key)) {
        seen.add(key);
        targets.push(resolved);
      }
    };
    for (const p of patterns) if (p !== "*") add(p);
    if (typeof metadata.filepath === "string" && metadata.filepath.startsWith("/")) add(metadata.filepath);
    if (targets.length === 0) {
      checks.push(textCheck(permission, "*", ctx));
    }
    for (const target of targets) checks.push(...pathChecks(permission, target, ctx, { broad: false }));
  } else if (permission === "external_directory") {
    for (const p of patterns) {
      const resolved = ctx.paths.resolve(p, ctx.paths.directory, p.startsWith("~"));
      checks.push(externalCheck(resolved, ctx, p));
    }
  } else {
    for (const p of patterns) checks.push(textCheck(permission, p, ctx));
  }
  return summarize(checks, ctx.agent);
}

/** Folds checks into a decision: the most restrictive action; the first check with it explains it. */
export function summarize(checks: readonly Check[], agent?: string): Decision {
  let decisive = checks[0]!;
  for (const check of checks) if (rank(check.action) > rank(decisive.action)) decisive = check;
  return { status: decisive.action, checks, decisive, reason: formatReason(decisive, checks, agent) };
}

function textCheck(permission: string, subject: string, ctx: EngineContext): Check {
  const s: Subject = { kind: "text", text: subject };
  const rule = lastMatch(ctx.rules, permission, s);
  let action: Action = rule?.action ?? "ask";
  let decided = rule;
  if (action === "ask") {
    const approval = lastMatch(ctx.approvals, permission, s);
    if (approval) {
      action = "allow";
      decided = approval;
    }
  }
  return makeCheck({
    permission,
    subject,
    action,
    rule: decided,
    note: rule ? undefined : "no rule matches",
    approval: { permission, pattern: approvalPatternFor(permission, subject) },
  });
}

function approvalPatternFor(permission: string, subject: string): string {
  if (permission === "webfetch") {
    try {
      const url = new URL(subject);
      if (url.protocol === "http:" || url.protocol === "https:") return `${url.origin}/*`;
    } catch {
      // not a URL: the subject itself
    }
  }
  return subject;
}

/** The read or edit checks for one path (plus `external_directory` when it is outside). */
function pathChecks(permission: "read" | "edit", path: ResolvedPath, ctx: EngineContext, opts: { broad: boolean; command?: string }): Check[] {
  const checks: Check[] = [];
  const { paths } = ctx;
  const subjects: Subject[] = [{ kind: "path", path: { rel: path.rel, abs: path.real } }];
  if (path.logicalRel !== path.rel || path.lexical !== path.real) subjects.push({ kind: "path", path: { rel: path.logicalRel, abs: path.lexical } });
  const shown = path.inside ? path.rel : path.real;

  // The permission's own rules, against the real and the written path: the stricter wins.
  let decided: Rule | undefined;
  let action: Action = "allow";
  let first = true;
  for (const s of subjects) {
    const rule = lastMatch(ctx.rules, permission, s, undefined, paths.home);
    const a = rule?.action ?? "ask";
    if (first || rank(a) > rank(action)) {
      first = false;
      decided = rule;
      action = a;
    }
  }
  let note: string | undefined;
  const approvalPattern = shown;

  const isProtected = permission === "edit" && paths.isProtected(path, opts.broad);
  if (isProtected && action !== "deny") {
    // Only a rule that names the protected path decides here; "*" or "edit: allow" do not.
    const named = (r: Rule) => r.layer !== "default" && namesProtected(r.pattern, paths.protectedDirs, paths.home);
    let explicit: Rule | undefined;
    for (const s of subjects) {
      const r = lastMatch(ctx.rules, permission, s, named, paths.home) ?? lastMatch(ctx.approvals, permission, s, named, paths.home);
      if (r && (!explicit || rank(r.action) > rank(explicit.action))) explicit = r;
    }
    if (explicit) {
      action = explicit.action;
      decided = explicit;
    } else {
      action = "ask";
      note = opts.broad
        ? `${shown} is or holds a protected path (.git, .tessera, Tessera config); only a rule that names it allows this`
        : `${shown} is a protected path (.git, .tessera, Tessera config); only a rule that names it allows this`;
    }
  } else if (action === "ask") {
    for (const s of subjects) {
      const approval = lastMatch(ctx.approvals, permission, s, undefined, paths.home);
      if (approval) {
        action = "allow";
        decided = approval;
        break;
      }
    }
  }
  checks.push(
    makeCheck({
      permission,
      subject: shown,
      action,
      rule: note ? undefined : decided,
      note: note ?? (decided ? undefined : "no rule matches"),
      approval: { permission, pattern: approvalPattern },
      command: opts.command,
    }),
  );
  if (!path.inside) checks.push(externalCheck(path, ctx, opts.command));
  return checks;
}

function externalCheck(path: ResolvedPath, ctx: EngineContext, command?: string): Check {
  const { paths } = ctx;
  const subjects: Subject[] = [{ kind: "path", path: { rel: path.rel, abs: path.real } }];
  if (path.lexical !== path.real) subjects.push({ kind: "path", path: { rel: path.logicalRel, abs: path.lexical } });
  let decided: Rule | undefined;
  let action: Action = "allow";
  let first = true;
  for (const s of subjects) {
    const rule = lastMatch(ctx.rules, "external_directory", s, undefined, paths.home);
    const a = rule?.action ?? "ask";
    if (first || rank(a) > rank(action)) {
      first = false;
      decided = rule;
      action = a;
    }
  }
  if (action === "ask") {
    const approval = lastMatch(ctx.approvals, "external_directory", subjects[0]!, undefined, paths.home);
    if (approval) {
      action = "allow";
      decided = approval;
    }
  }
  return makeCheck({
    permission: "external_directory",
    subject: path.real,
    action,
    rule: decided,
    note: decided ? `outside the project (${paths.directory})` : "no rule matches",
    approval: action === "ask" ? { permission: "external_directory", pattern: `${paths.approvalDir(path).replace(/\/$/, "")}/**` } : undefined,
    command,
  });
}

/** Every check for one bash command line. */
export function bashChecks(script: string, cwd: string, ctx: EngineContext): Check[] {
  const checks: Check[] = [];
  const { paths } = ctx;
  if (!ctx.parser) {
    return [makeCheck({ permission: "bash", subject: script, action: "ask", note: "the bash parser is not available, so the command cannot be analysed" })];
  }
  // The working directory itself may be outside the project.
  const start = paths.resolve(cwd, paths.directory);
  if (!start.inside) checks.push(externalCheck(start, ctx, script));

  const items: BashItem[] = analyzeBash(ctx.parser, script, { cwd: start.lexical, home: paths.home });
  // A deny rule written for the whole line (e.g. "*rm -rf*") applies whatever the parts are.
  const whole = lastMatch(ctx.rules, "bash", { kind: "text", text: script });
  if (whole?.action === "deny") checks.push(makeCheck({ permission: "bash", subject: script, action: "deny", rule: whole, command: script }));

  for (const item of items) {
    if (item.kind === "command") checks.push(...commandChecks(item, ctx));
    else if (item.kind === "path") checks.push(...bashPathChecks(item, ctx));
    else {
      checks.push(
        makeCheck({
          permission: "bash",
          subject: item.source,
          action: "ask",
          note: `cannot be analysed: ${item.note}`,
          command: item.source,
        }),
      );
    }
  }
  if (checks.length === 0) {
    // Nothing runs: empty, only comments, only harmless assignments (`x=1`), `[[ … ]]`, `(( … ))`.
    checks.push(makeCheck({ permission: "bash", subject: script, action: "allow", note: "nothing runs" }));
  }
  return checks;
}

function commandChecks(item: CommandItem, ctx: EngineContext): Check[] {
  const values = item.argv.map((w) => w.value);
  const text = values.join(" ");
  const name = values[0]!;
  const base = posix.basename(name);
  const forms = [text];
  // `/bin/rm x` must meet the rules for `rm`; `./ls` must not pass as `ls`: the stricter wins.
  if (base !== name) forms.push([base, ...values.slice(1)].join(" "));

  let action: Action = "allow";
  let decided: Rule | undefined;
  let note: string | undefined;
  let hard = false; // asks that an "always" approval cannot lift
  let guarded = false;
  let first = true;
  for (const form of forms) {
    const rule = lastMatch(ctx.rules, "bash", { kind: "text", text: form });
    let a: Action = rule?.action ?? "ask";
    let n: string | undefined = rule ? undefined : "no rule matches";
    let g = false;
    if (a === "allow" && rule?.layer === "default" && rule.guard) {
      const why = rule.guard(values);
      if (why) {
        a = "ask";
        n = why;
        g = true;
      }
    }
    if (first || rank(a) > rank(action)) {
      first = false;
      action = a;
      decided = rule;
      note = n;
      guarded = g;
    }
  }
  if (action === "allow" && item.unknownArgs.length > 0 && !ARGS_SAFE.has(base)) {
    action = "ask";
    note = `${item.unknownArgs.join(" ")} is only known at run time`;
    hard = true;
  }
  if (item.elevated && action === "allow") {
    action = "ask";
    note = "runs as another user (sudo)";
    hard = true;
  }
  // Approvals lift a rule's or a guard's "ask" (guards only by an approval of the exact command).
  const approval = guarded ? text : arityPattern(item.argv);
  if (action === "ask" && !hard) {
    const found = lastMatch(ctx.approvals, "bash", { kind: "text", text }, guarded ? (r) => r.pattern === text : undefined);
    if (found) {
      action = "allow";
      decided = found;
      note = undefined;
    }
  }
  const checks: Check[] = [
    makeCheck({
      permission: "bash",
      subject: text,
      action,
      rule: decided,
      note: note ?? (item.wrappers.length > 0 ? `run by ${item.wrappers.join(" → ")}` : undefined),
      approval: hard ? undefined : { permission: "bash", pattern: approval },
      command: item.source,
    }),
  ];
  // Deny rules also apply to the wrapped forms (`sudo rm x` against "sudo *": "deny").
  for (const form of item.forms) {
    const rule = lastMatch(ctx.rules, "bash", { kind: "text", text: form });
    if (rule?.action === "deny") checks.push(makeCheck({ permission: "bash", subject: form, action: "deny", rule, command: item.source }));
  }
  return checks;
}

function bashPathChecks(item: PathItem, ctx: EngineContext): Check[] {
  const { paths } = ctx;
  let value = item.value;
  if (item.broad) {
    // A glob: check the directory it starts in (and mind dot-entries it could match).
    const parts = value.split("/");
    const firstGlob = parts.findIndex((p) => /[*?[{]/.test(p));
    if (firstGlob !== -1) value = parts.slice(0, firstGlob).join("/") || (value.startsWith("/") ? "/" : ".");
  }
  const relative = !(value.startsWith("/") || (item.tilde && (value === "~" || value.startsWith("~/"))));
  if (relative && item.cwd === undefined) {
    return [
      makeCheck({
        permission: "bash",
        subject: item.value,
        action: "ask",
        note: `cannot be analysed: ${item.value} is relative to a directory only known at run time (after cd)`,
        command: item.command,
      }),
    ];
  }
  const resolved = paths.resolve(value, item.cwd ?? paths.directory, item.tilde);
  if (item.access === "cwd" || item.access === "external") {
    return resolved.inside ? [] : [externalCheck(resolved, ctx, item.command)];
  }
  return pathChecks(item.access === "write" ? "edit" : "read", resolved, ctx, { broad: item.broad, command: item.command });
}

// ── Reasons ──────────────────────────────────────────────────────────────────────────────────

/** "the default rule bash "*" (ask)", "rule permission.bash["rm *"] = "deny" in /p/tessera.config.json" … */
export function describeRule(rule: RuleRef): string {
  switch (rule.layer) {
    case "default":
      return `the default rule ${rule.permission} ${JSON.stringify(rule.pattern)} → ${rule.action}`;
    case "approval":
      return `an "always" approval of ${rule.permission} ${JSON.stringify(rule.pattern)} (${rule.source})`;
    case "agent":
      return `the agent rule ${rule.key} = "${rule.action}" (${rule.source})`;
    default:
      return `the rule ${rule.key} = "${rule.action}" in ${rule.source}`;
  }
}

export function describeCheck(check: Check): string {
  const what = `${check.permission} ${JSON.stringify(check.subject)}`;
  const why = [check.note, check.rule && !check.note?.startsWith("cannot") ? describeRule(check.rule) : undefined].filter(Boolean).join("; ");
  return `${what}: ${check.action}${why ? ` (${why})` : ""}`;
}

function formatReason(decisive: Check, checks: readonly Check[], agent?: string): string {
  const head = describeCheck(decisive);
  if (decisive.action === "deny") return `Denied: ${head}.`;
  if (decisive.action === "allow") {
    return checks.length === 1 ? `Allowed: ${head}.` : `Allowed: all ${checks.length} checks pass; ${checks.slice(0, 3).map(describeCheck).join("; ")}${checks.length > 3 ? "; …" : ""}.`;
  }
  const asks = checks.filter((c) => c.action === "ask");
  let text = `Needs approval: ${asks.slice(0, 3).map(describeCheck).join("; ")}${asks.length > 3 ? `; and ${asks.length - 3} more` : ""}.`;
  const suggestion = suggestRules(checks);
  // An agent rule comes after the global ones: only a rule in the agent's own config overrides it.
  const byAgent = agent !== undefined && asks.some((c) => c.rule?.layer === "agent");
  if (suggestion) {
    text += byAgent
      ? ` To allow it without asking, add to the config: "agent": { ${JSON.stringify(agent)}: { "permission": ${suggestion} } }.`
      : ` To allow it without asking, add to the config: "permission": ${suggestion}.`;
  }
  const hard = asks.filter((c) => !c.approval);
  if (hard.length > 0) {
    text += ` No rule can allow ${hard.length === 1 ? JSON.stringify(hard[0]!.subject) : "the parts that cannot be analysed"}: approve it when asked, or run with --auto.`;
  }
  return text;
}

/** The config rules that would allow every "ask" of a decision, as JSON, or undefined. */
export function suggestRules(checks: readonly Check[]): string | undefined {
  const asks = checks.filter((c) => c.action === "ask" && c.approval);
  if (asks.length === 0) return undefined;
  const rules: Record<string, Record<string, "allow">> = {};
  for (const c of asks) (rules[c.approval!.permission] ??= {})[c.approval!.pattern] = "allow";
  const body = Object.entries(rules)
    .map(([permission, patterns]) => `${JSON.stringify(permission)}: { ${Object.keys(patterns).map((p) => `${JSON.stringify(p)}: "allow"`).join(", ")} }`)
    .join(", ");
  return `{ ${body} }`;
}
