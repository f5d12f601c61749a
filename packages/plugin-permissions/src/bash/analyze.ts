/**
 * Bash analysis: parses a command line with tree-sitter-bash and lists everything that would run
 * or be touched — every command (in chains, pipelines, subshells, substitutions, `bash -c` and
 * `eval` strings, behind wrappers like `env`, `timeout`, `sudo`, `xargs`), every file a known
 * command reads or writes, every redirection target — and everything it could not analyse.
 * It knows nothing of rules: the engine turns these items into checks.
 */
import { posix } from "node:path";
import type { Node, Parser } from "web-tree-sitter";
import { FILE_COMMANDS, isDangerousVariable, NO_FILE_ARGS, SHELLS, type Access } from "./commands.js";
import { literalWord, wordOf, type Word } from "./words.js";

export type { Word } from "./words.js";

/** A command that would run, after unwrapping wrappers. */
export interface CommandItem {
  readonly kind: "command";
  readonly argv: readonly Word[];
  /** The command's source text, as written (for messages). */
  readonly source: string;
  /** Wrappers removed to reach it (`env`, `timeout`, `bash -c`, …). */
  readonly wrappers: readonly string[];
  /** The full command lines of those wrappers; deny rules are checked against them too. */
  readonly forms: readonly string[];
  /** Run as another user (sudo, doas): at least "ask". */
  readonly elevated: boolean;
  /** Arguments whose value is only known at run time (and that were not checked as paths). */
  readonly unknownArgs: readonly string[];
}

/** A file or directory a command touches. `cwd` is undefined once a `cd` made it unknown. */
export interface PathItem {
  readonly kind: "path";
  /** read / write: checked as the read or edit permission; cwd / external: only where it is. */
  readonly access: Access | "cwd" | "external";
  readonly value: string;
  /** The value starts with an unquoted `~`. */
  readonly tilde: boolean;
  readonly cwd: string | undefined;
  /** The command (source text) it belongs to. */
  readonly command: string;
  /** A glob or recursive target: it may cover entries it does not name (for protected paths). */
  readonly broad: boolean;
}

/** Something that cannot be analysed: it makes the request ask, never allow. */
export interface ProblemItem {
  readonly kind: "problem";
  readonly note: string;
  readonly source: string;
}

export type BashItem = CommandItem | PathItem | ProblemItem;

export interface AnalyzeOptions {
  /** The working directory the command starts in (absolute), or undefined when unknown. */
  readonly cwd: string | undefined;
  /** The home directory, for `cd` without arguments. */
  readonly home: string;
}

const MAX_DEPTH = 8;
const DEVICE_PATHS = /^\/dev\/(null|zero|u?random|full|tty|stdin|stdout|stderr|fd\/\d+)$/;

interface Context {
  cwd: string | undefined;
  readonly home: string;
  readonly items: BashItem[];
  readonly parser: Parser;
  depth: number;
  /** Enclosing wrapper command lines, for deny checks. */
  forms: string[];
  wrappers: string[];
}

/** Analyses a command line. Never throws for bad input: a parse error is a problem item. */
export function analyzeBash(parser: Parser, script: string, options: AnalyzeOptions): BashItem[] {
  const ctx: Context = { cwd: options.cwd, home: options.home, items: [], parser, depth: 0, forms: [], wrappers: [] };
  analyzeScript(script, ctx, script);
  return ctx.items;
}

function problem(ctx: Context, note: string, source: string): void {
  ctx.items.push({ kind: "problem", note, source });
}

function analyzeScript(script: string, ctx: Context, source: string): void {
  if (ctx.depth >= MAX_DEPTH) return problem(ctx, `nested more than ${MAX_DEPTH} levels deep`, source);
  if (script.includes("\0")) return problem(ctx, "contains a NUL character", source);
  const tree = ctx.parser.parse(script);
  if (!tree) return problem(ctx, "could not be parsed", source);
  try {
    const root = tree.rootNode;
    if (root.hasError) {
      const where = firstError(root);
      problem(ctx, `does not parse as bash${where ? ` (near ${JSON.stringify(where)})` : ""}`, source);
      return;
    }
    ctx.depth++;
    visit(root, ctx);
    ctx.depth--;
  } finally {
    tree.delete();
  }
}

function firstError(node: Node): string | undefined {
  if (node.isError || node.isMissing) return node.isMissing ? `missing ${node.type}` : node.text.slice(0, 40);
  for (const child of node.children) {
    if (child.hasError || child.isMissing || child.isError) {
      const found = firstError(child);
      if (found) return found;
    }
  }
  return undefined;
}

function visit(node: Node, ctx: Context): void {
  switch (node.type) {
    case "command":
      return visitCommand(node, ctx);
    case "declaration_command":
      return visitDeclaration(node, ctx);
    case "variable_assignment":
      return visitAssignment(node, ctx);
    case "file_redirect":
      return visitRedirect(node, ctx);
    case "comment":
    case "heredoc_start":
    case "heredoc_end":
    case "word":
    case "number":
    case "raw_string":
    case "variable_name":
      return;
    case "ERROR":
      return problem(ctx, "does not parse as bash", node.text);
    default:
      for (const child of node.namedChildren) visit(child, ctx);
  }
}

function visitAssignment(node: Node, ctx: Context): void {
  const name = node.childForFieldName("name")?.text ?? "";
  if (isDangerousVariable(name.replace(/\[.*$/, ""))) {
    problem(ctx, `sets ${name}, which changes what later commands run`, node.text);
  }
  for (const child of node.namedChildren) if (child.type !== "variable_name") visit(child, ctx);
}

function visitDeclaration(node: Node, ctx: Context): void {
  const argv: Word[] = [];
  const unknown: string[] = [];
  for (const child of node.children) {
    if (!child.isNamed) {
      if (argv.length === 0) argv.push(literalWord(child.text)); // export, declare, local, readonly, typeset
      continue;
    }
    if (child.type === "variable_assignment") {
      visitAssignment(child, ctx);
      argv.push(literalWord(child.text));
    } else if (child.type === "variable_name" || child.type === "word") {
      argv.push(wordOf(child));
    } else {
      visit(child, ctx);
      const w = wordOf(child);
      if (w.dynamic) unknown.push(w.text);
      argv.push(w);
    }
  }
  if (argv.length === 0) return;
  ctx.items.push({
    kind: "command",
    argv,
    source: node.text,
    wrappers: [...ctx.wrappers],
    forms: [...ctx.forms],
    elevated: false,
    unknownArgs: unknown,
  });
}

function visitRedirect(node: Node, ctx: Context): void {
  let operator = "";
  let destination: Node | null = null;
  for (let i = 0; i < node.childCount; i++) {
    const child = node.child(i)!;
    const field = node.fieldNameForChild(i);
    if (field === "destination") destination = child;
    else if (!child.isNamed) operator = child.text;
  }
  if (!destination) return;
  visit(destination, ctx); // `> $(cmd)` runs cmd
  const target = wordOf(destination);
  // Duplicating or closing a descriptor: 2>&1, >&2, <&0, >&-.
  if ((operator === ">&" || operator === "<&") && /^(\d+|-)$/.test(target.value) && !target.dynamic) return;
  const access: Access = operator === "<" ? "read" : "write";
  if (target.dynamic || target.suspicious) {
    return problem(ctx, `redirects to ${target.text}, which is only known at run time`, node.text);
  }
  if (DEVICE_PATHS.test(target.value)) return;
  ctx.items.push({ kind: "path", access, value: target.value, tilde: target.tilde, cwd: ctx.cwd, command: node.parent?.text ?? node.text, broad: target.glob });
}

function visitCommand(node: Node, ctx: Context): void {
  const words: Node[] = [];
  const redirects: Node[] = [];
  for (let i = 0; i < node.childCount; i++) {
    const child = node.child(i)!;
    const field = node.fieldNameForChild(i);
    if (child.type === "variable_assignment") visitAssignment(child, ctx);
    else if (field === "name" || field === "argument") words.push(child);
    else if (field === "redirect" || child.type.endsWith("_redirect")) redirects.push(child);
    else if (child.isNamed && child.type !== "comment") visit(child, ctx);
  }
  // Substitutions in the words run before the command.
  for (const w of words) if (w.type !== "word" && w.type !== "number" && w.type !== "raw_string") visit(w, ctx);
  const argv = words.map(wordOf);
  if (argv.length > 0) analyzeArgv(argv, node.text, ctx, { elevated: false, stdinArgs: false });
  for (const r of redirects) visit(r, ctx);
}

interface ArgvFlags {
  elevated: boolean;
  /** xargs appends arguments read from its input. */
  stdinArgs: boolean;
}

const joinValues = (argv: readonly Word[]) => argv.map((w) => w.value).join(" ");

/** Unwraps wrappers and records the command that runs, with its files. */
function analyzeArgv(argv: readonly Word[], source: string, ctx: Context, flags: ArgvFlags): void {
  const name = argv[0];
  if (!name) return;
  if (name.dynamic || name.suspicious || name.glob) {
    return problem(ctx, `the command name ${name.text} is only known at run time`, source);
  }
  const base = posix.basename(name.value);
  const wrapped = (inner: readonly Word[], wrapper: string, next: Partial<ArgvFlags> = {}, cwd?: string | null) => {
    if (inner.length === 0) return emitCommand(argv, source, ctx, flags);
    if (ctx.depth >= MAX_DEPTH) return problem(ctx, `nested more than ${MAX_DEPTH} levels deep`, source);
    const saved = { forms: ctx.forms, wrappers: ctx.wrappers, cwd: ctx.cwd };
    ctx.forms = [...ctx.forms, joinValues(argv)];
    ctx.wrappers = [...ctx.wrappers, wrapper];
    if (cwd !== undefined) ctx.cwd = cwd === null ? undefined : cwd;
    ctx.depth++;
    analyzeArgv(inner, source, ctx, { ...flags, ...next });
    ctx.depth--;
    ctx.forms = saved.forms;
    ctx.wrappers = saved.wrappers;
    if (cwd !== undefined) ctx.cwd = saved.cwd;
  };
  const nestedScript = (script: Word, wrapper: string) => {
    if (script.dynamic || script.suspicious) return problem(ctx, `${wrapper} runs ${script.text}, which is only known at run time`, source);
    const saved = { forms: ctx.forms, wrappers: ctx.wrappers };
    ctx.forms = [...ctx.forms, joinValues(argv)];
    ctx.wrappers = [...ctx.wrappers, wrapper];
    analyzeScript(script.value, ctx, source);
    ctx.forms = saved.forms;
    ctx.wrappers = saved.wrappers;
  };

  if (SHELLS.has(base)) return analyzeShell(argv, base, source, ctx, flags, nestedScript);
  switch (base) {
    case "env": {
      let i = 1;
      let cwd: string | null | undefined;
      for (; i < argv.length; i++) {
        const w = argv[i]!;
        const v = w.value;
        if (w.dynamic) return problem(ctx, `env gets ${w.text}, which is only known at run time`, source);
        if (v === "--") {
          i++;
          break;
        }
        if (v === "-S" || v.startsWith("--split-string") || (v.startsWith("-S") && v.length > 2)) {
          const inline = v.startsWith("--split-string=") ? v.slice(15) : v.startsWith("-S") && v.length > 2 ? v.slice(2) : undefined;
          const rest = argv.slice(inline === undefined ? i + 1 : i + 1);
          const first = inline !== undefined ? literalWord(inline) : rest.shift();
          if (!first) return problem(ctx, "env -S without a command", source);
          const all = [first, ...rest];
          const script = { ...literalWord(joinValues(all)), dynamic: all.some((x) => x.dynamic) };
          return nestedScript(script, "env -S");
        }
        if (v === "-C" || v.startsWith("--chdir")) {
          const dir = v.includes("=") ? literalWord(v.slice(v.indexOf("=") + 1)) : argv[++i];
          if (!dir || dir.dynamic) return problem(ctx, "env -C changes to a directory only known at run time", source);
          ctx.items.push({ kind: "path", access: "cwd", value: dir.value, tilde: dir.tilde, cwd: ctx.cwd, command: source, broad: false });
          cwd = resolveDir(ctx, dir);
          continue;
        }
        if (v === "-u" || v === "--unset") {
          i++;
          continue;
        }
        if (/^-[i0v]+$/.test(v) || v === "-" || v.startsWith("-u") || v.startsWith("--unset=") || ["--ignore-environment", "--null", "--debug"].includes(v)) continue;
        if (v.startsWith("-")) return problem(ctx, `env option ${v} is not understood`, source);
        const assign = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(v);
        if (assign) {
          if (isDangerousVariable(assign[1]!)) problem(ctx, `sets ${assign[1]}, which changes what the command runs`, source);
          continue;
        }
        break;
      }
      return wrapped(argv.slice(i), "env", {}, cwd);
    }
    case "timeout": {
      let i = 1;
      for (; i < argv.length; i++) {
        const v = argv[i]!.value;
        if (v === "--") {
          i++;
          break;
        }
        if (v === "-s" || v === "-k" || v === "--signal" || v === "--kill-after") i++;
        else if (!v.startsWith("-") || /^-\d/.test(v)) break;
      }
      return wrapped(argv.slice(i + 1), "timeout"); // skips the duration
    }
    case "nice": {
      let i = 1;
      for (; i < argv.length; i++) {
        const v = argv[i]!.value;
        if (v === "--") {
          i++;
          break;
        }
        if (v === "-n" || v === "--adjustment") i++;
        else if (!v.startsWith("-")) break;
      }
      return wrapped(argv.slice(i), "nice");
    }
    case "nohup":
      return wrapped(argv.slice(argv[1]?.value === "--" ? 2 : 1), "nohup");
    case "time": {
      let i = 1;
      for (; i < argv.length; i++) {
        const w = argv[i]!;
        const v = w.value;
        if (v === "--") {
          i++;
          break;
        }
        if (v === "-o" || v === "--output") {
          const out = argv[++i];
          if (out) pushPath(ctx, out, "write", source);
        } else if (v === "-f" || v === "--format") i++;
        else if (!v.startsWith("-")) break;
      }
      return wrapped(argv.slice(i), "time");
    }
    case "command": {
      let i = 1;
      for (; i < argv.length; i++) {
        const v = argv[i]!.value;
        if (v === "-v" || v === "-V") return emitCommand(argv, source, ctx, flags); // only looks the name up
        if (v === "--") {
          i++;
          break;
        }
        if (v !== "-p") break;
      }
      return wrapped(argv.slice(i), "command");
    }
    case "builtin":
      return wrapped(argv.slice(1), "builtin");
    case "exec": {
      let i = 1;
      for (; i < argv.length; i++) {
        const v = argv[i]!.value;
        if (v === "-a") i++;
        else if (v === "--") {
          i++;
          break;
        } else if (!/^-[cl]+$/.test(v)) break;
      }
      if (i >= argv.length) return; // `exec 3>file`: only redirections, checked on their own
      return wrapped(argv.slice(i), "exec");
    }
    case "xargs": {
      let i = 1;
      for (; i < argv.length; i++) {
        const w = argv[i]!;
        const v = w.value;
        if (v === "--") {
          i++;
          break;
        }
        if (!v.startsWith("-")) break;
        if (["-I", "-L", "-n", "-P", "-s", "-d", "-E"].includes(v)) i++;
        else if (v === "-a" || v === "--arg-file") pushPath(ctx, argv[++i], "read", source);
        else if (v.startsWith("--arg-file=")) pushPath(ctx, literalWord(v.slice(11)), "read", source);
        else if (/^-[0rtpxo]+$/.test(v) || /^-[IiLlnPsdEe]./.test(v) || /^-[ile]$/.test(v)) continue;
        else if (/^--(null|no-run-if-empty|verbose|interactive|exit|open-tty|show-limits)$/.test(v)) continue;
        else if (/^--(max-args|max-lines|max-procs|max-chars|replace|eof|delimiter|process-slot-var)(=|$)/.test(v)) {
          if (!v.includes("=")) i++;
        } else return problem(ctx, `xargs option ${v} is not understood`, source);
      }
      const inner = argv.slice(i);
      return wrapped(inner.length > 0 ? inner : [literalWord("echo")], "xargs", { stdinArgs: true });
    }
    case "sudo":
    case "doas": {
      let i = 1;
      let shell = false;
      let cwd: string | null | undefined;
      for (; i < argv.length; i++) {
        const w = argv[i]!;
        const v = w.value;
        if (v === "--") {
          i++;
          break;
        }
        if (!v.startsWith("-")) break;
        if (v === "-e" || v === "--edit") return problem(ctx, `${base} -e edits files as root`, source);
        if (v === "-l" || v === "--list" || v === "-v" || v === "--validate" || v === "-V") return emitCommand(argv, source, ctx, { ...flags, elevated: true });
        if (v === "-D" || v === "--chdir") {
          const dir = argv[++i];
          if (!dir || dir.dynamic) return problem(ctx, `${base} -D changes to a directory only known at run time`, source);
          ctx.items.push({ kind: "path", access: "cwd", value: dir.value, tilde: dir.tilde, cwd: ctx.cwd, command: source, broad: false });
          cwd = resolveDir(ctx, dir);
        } else if (["-u", "-g", "-C", "-h", "-p", "-r", "-t", "-T", "-U", "-R", "--user", "--group", "--host", "--prompt", "--role", "--type", "--close-from", "--command-timeout", "--other-user", "--chroot"].includes(v)) i++;
        else if (/^-[AbEHKknPSis]+$/.test(v) || /^--(askpass|background|preserve-env|set-home|remove-timestamp|reset-timestamp|non-interactive|preserve-groups|stdin|shell|login)(=.*)?$/.test(v)) {
          if (/^-[^-]*[is]/.test(v) || v === "--shell" || v === "--login") shell = true;
        } else if (/^-[ugChprtTUR]./.test(v) || /^--[a-z-]+=/.test(v)) continue;
        else return problem(ctx, `${base} option ${v} is not understood`, source);
      }
      const inner = argv.slice(i);
      if (inner.length === 0) {
        return problem(ctx, shell ? `${base} opens a root shell` : `${base} without a command`, source);
      }
      return wrapped(inner, base, { elevated: true }, cwd);
    }
    case "eval": {
      const args = argv.slice(1);
      if (args.length === 0) return;
      const script = { ...literalWord(joinValues(args)), dynamic: args.some((a) => a.dynamic || !!a.suspicious) };
      return nestedScript(script, "eval");
    }
    default:
      return emitCommand(argv, source, ctx, flags);
  }
}

function analyzeShell(
  argv: readonly Word[],
  base: string,
  source: string,
  ctx: Context,
  flags: ArgvFlags,
  nestedScript: (script: Word, wrapper: string) => void,
): void {
  let commandString = false;
  let i = 1;
  for (; i < argv.length; i++) {
    const w = argv[i]!;
    const v = w.value;
    if (w.dynamic) return problem(ctx, `${base} gets ${w.text}, which is only known at run time`, source);
    if (v === "--" || v === "-") {
      i++;
      break;
    }
    if (v === "--version" || v === "--help") return emitCommand(argv, source, ctx, flags);
    if (v === "--rcfile" || v === "--init-file") return problem(ctx, `${base} ${v} runs a startup file that cannot be checked`, source);
    if (v.startsWith("--")) continue;
    if (/^[-+]o$/.test(v) || /^[-+]O$/.test(v)) {
      i++;
      continue;
    }
    if (/^[-+][A-Za-z]+$/.test(v)) {
      if (v.startsWith("-") && v.includes("c")) commandString = true;
      continue;
    }
    break;
  }
  if (commandString) {
    const script = argv[i];
    if (!script) return problem(ctx, `${base} -c without a command`, source);
    return nestedScript(script, `${base} -c`);
  }
  if (flags.stdinArgs) return problem(ctx, `xargs runs ${base} with arguments from its input, which cannot be checked`, source);
  const file = argv[i];
  if (file) {
    pushPath(ctx, file, "read", source);
    return problem(ctx, `${base} runs the script ${file.text}, which cannot be checked`, source);
  }
  return problem(ctx, `${base} runs a script from its input, which cannot be checked`, source);
}

function resolveDir(ctx: Context, dir: Word): string | null {
  let value = dir.value;
  if (dir.tilde) {
    if (value === "~" || value.startsWith("~/")) value = ctx.home + value.slice(1);
    else return null;
  }
  if (value.startsWith("/")) return posix.resolve(value);
  return ctx.cwd === undefined ? null : posix.resolve(ctx.cwd, value);
}

function pushPath(ctx: Context, word: Word | undefined, access: PathItem["access"], source: string): void {
  if (!word) return;
  if (word.procsub) return; // a pipe to a process substitution; its commands are checked on their own
  if (word.dynamic || word.suspicious) {
    if (access === "external") return;
    return problem(ctx, `the path ${word.text} is only known at run time`, source);
  }
  if (DEVICE_PATHS.test(word.value) || word.value === "-" || word.value === "") return;
  if (word.tilde && !(word.value === "~" || word.value.startsWith("~/"))) {
    return problem(ctx, `${word.text} is another user's home directory`, source);
  }
  ctx.items.push({ kind: "path", access, value: word.value, tilde: word.tilde, cwd: ctx.cwd, command: source, broad: word.glob });
}

/** A glob that could expand to a file name starting with "-", i.e. to an option (`*`, `?x`, `{a,-b}`). */
function riskyGlob(word: Word): boolean {
  return word.glob && /^[*?[{]/.test(word.value);
}

/** Looks like a path to something outside: `/x`, `~/x`, `../x`, or an option's `=/x`. */
function pathLike(word: Word): Word | undefined {
  if (word.dynamic || word.procsub) return undefined;
  const v = word.value;
  const looks = (s: string) => s.startsWith("/") || s === ".." || s.startsWith("../") || s.includes("/../") || s.endsWith("/..");
  if (word.tilde || looks(v)) return word;
  const eq = v.indexOf("=");
  if (eq > 0 && !v.includes("://")) {
    const rest = v.slice(eq + 1);
    if (looks(rest) || rest.startsWith("~/") || rest === "~") return { ...literalWord(rest), tilde: rest.startsWith("~") };
  }
  return undefined;
}

function emitCommand(argv: readonly Word[], source: string, ctx: Context, flags: ArgvFlags): void {
  const base = posix.basename(argv[0]!.value);
  const unknownArgs: string[] = [];
  const item: CommandItem = {
    kind: "command",
    argv,
    source,
    wrappers: [...ctx.wrappers],
    forms: [...ctx.forms],
    elevated: flags.elevated,
    unknownArgs,
  };
  ctx.items.push(item);
  const args = argv.slice(1);

  if (base === "cd" || base === "pushd") {
    const target = args.find((w) => !/^-[LPe@]+$/.test(w.value));
    if (!target) {
      ctx.cwd = base === "cd" ? ctx.home : undefined;
      return;
    }
    if (target.value === "-" || target.dynamic || target.suspicious || target.glob) {
      if (target.dynamic || target.glob) unknownArgs.push(target.text);
      ctx.cwd = undefined;
      return;
    }
    pushPath(ctx, target, "cwd", source);
    ctx.cwd = resolveDir(ctx, target) ?? undefined;
    return;
  }
  if (base === "popd") {
    ctx.cwd = undefined;
    return;
  }
  if (base === "find") return findArgs(args, source, ctx, item, flags);
  if (base === "dd") {
    for (const w of args) {
      if (w.dynamic) unknownArgs.push(w.text);
      else if (w.value.startsWith("if=")) pushPath(ctx, { ...literalWord(w.value.slice(3)), tilde: w.value.startsWith("if=~") }, "read", source);
      else if (w.value.startsWith("of=")) pushPath(ctx, { ...literalWord(w.value.slice(3)), tilde: w.value.startsWith("of=~") }, "write", source);
    }
    return;
  }
  if (base === "git") {
    for (let i = 0; i < args.length; i++) {
      const v = args[i]!.value;
      if (v === "-C" || v === "--git-dir" || v === "--work-tree") pushPath(ctx, args[++i], "cwd", source);
      else if (v.startsWith("--git-dir=") || v.startsWith("--work-tree=")) pushPath(ctx, literalWord(v.slice(v.indexOf("=") + 1)), "cwd", source);
      else {
        const w = args[i]!;
        if (w.dynamic || riskyGlob(w)) unknownArgs.push(w.text);
        const p = pathLike(w);
        if (p) pushPath(ctx, p, "external", source);
      }
    }
    return;
  }

  const spec = FILE_COMMANDS[base];
  if (!spec) {
    if (NO_FILE_ARGS.has(base)) {
      for (const w of args) if (w.dynamic || riskyGlob(w)) unknownArgs.push(w.text);
      return;
    }
    // Unknown command: anything that looks like a path outside is checked for where it is.
    for (const w of args) {
      if (w.dynamic || riskyGlob(w)) unknownArgs.push(w.text);
      const p = pathLike(w);
      if (p) pushPath(ctx, p, "external", source);
    }
    return;
  }
  if (flags.stdinArgs && spec.positional !== "none") {
    problem(ctx, `xargs gives ${base} file arguments from its input, which cannot be checked`, source);
  }
  classifyFileArgs(base, spec, args, source, ctx, unknownArgs);
}

function classifyFileArgs(base: string, spec: (typeof FILE_COMMANDS)[string], args: readonly Word[], source: string, ctx: Context, unknownArgs: string[]): void {
  const positional: Word[] = [];
  let supplied = false; // an option supplied what `skip` would skip
  let recursive = false;
  let targetDir = false;
  let endOfOptions = false;
  const optionPath = (name: string, value: Word | undefined) => {
    const access = spec.optionPaths?.[name];
    if (access) {
      if (name === "t" || name === "target-directory") targetDir = true;
      pushPath(ctx, value, access, source);
    } else if (value?.dynamic) unknownArgs.push(value.text);
    if (spec.skipUnless?.includes(name)) supplied = true;
  };
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    const v = w.value;
    // chmod's symbolic mode may look like an option: chmod -w file.
    const chmodMode = base === "chmod" && positional.length === 0 && /^[-+=][rwxXstugo]*$/.test(v);
    if (endOfOptions || w.dynamic || w.procsub || !v.startsWith("-") || v === "-" || chmodMode) {
      positional.push(w);
      continue;
    }
    if (v === "--") {
      endOfOptions = true;
      continue;
    }
    if (v.startsWith("--")) {
      const eq = v.indexOf("=");
      const name = eq === -1 ? v.slice(2) : v.slice(2, eq);
      if (name === "recursive") recursive = true;
      if (eq !== -1) optionPath(name, { ...literalWord(v.slice(eq + 1)), tilde: v.slice(eq + 1).startsWith("~") });
      else if (spec.valueLong?.includes(name) || spec.optionPaths?.[name]) optionPath(name, args[++i]);
      else if (spec.skipUnless?.includes(name)) supplied = true;
      continue;
    }
    // A cluster of short options: -rf, -n5, -A 3.
    for (let j = 1; j < v.length; j++) {
      const letter = v[j]!;
      if (letter === "r" || letter === "R") recursive = true;
      if (spec.valueShort?.includes(letter) || spec.optionPaths?.[letter]) {
        const attached = v.slice(j + 1);
        optionPath(letter, attached ? literalWord(attached) : args[++i]);
        break;
      }
      if (spec.skipUnless?.includes(letter)) supplied = true;
      if (/\d/.test(letter) && (base === "head" || base === "tail")) break; // -20
    }
  }
  const skip = supplied ? 0 : (spec.skip ?? 0);
  // sed -i edits its files in place.
  const inPlace = base === "sed" && args.some((w) => /^-[A-Za-z]*i/.test(w.value) || w.value.startsWith("--in-place"));
  const files = positional.slice(skip);
  for (const w of positional.slice(0, skip)) if (w.dynamic) unknownArgs.push(w.text);
  if (spec.positional === "none") return;
  files.forEach((w, index) => {
    const isLast = index === files.length - 1 && files.length >= 2 && !targetDir;
    const access: Access = inPlace ? "write" : isLast && spec.last ? spec.last : (spec.positional as Access);
    const word = recursive && access === "write" ? { ...w, glob: true } : w;
    pushPath(ctx, word, access, source);
  });
}

function findArgs(args: readonly Word[], source: string, ctx: Context, item: CommandItem, flags: ArgvFlags): void {
  const unknownArgs = item.unknownArgs as string[];
  let i = 0;
  // Leading options: -H -L -P -D debugopts -Olevel.
  while (i < args.length && /^-([HLP]|D|O\d*)$/.test(args[i]!.value)) i += args[i]!.value === "-D" ? 2 : 1;
  const roots: Word[] = [];
  for (; i < args.length; i++) {
    const v = args[i]!.value;
    if (!args[i]!.dynamic && (v.startsWith("-") || v === "(" || v === "!" || v === ")")) break;
    roots.push(args[i]!);
  }
  const expression = args.slice(i);
  const deletes = expression.some((w) => w.value === "-delete");
  if (flags.stdinArgs) problem(ctx, "xargs gives find paths from its input, which cannot be checked", source);
  for (const root of roots.length > 0 ? roots : [literalWord(".")]) {
    pushPath(ctx, deletes ? { ...root, glob: true } : root, deletes ? "write" : "read", source);
  }
  for (let j = 0; j < expression.length; j++) {
    const w = expression[j]!;
    const v = w.value;
    if (w.dynamic || riskyGlob(w)) unknownArgs.push(w.text);
    if (v === "-exec" || v === "-execdir" || v === "-ok" || v === "-okdir") {
      const inner: Word[] = [];
      for (j++; j < expression.length; j++) {
        const x = expression[j]!;
        if (x.value === ";" || x.value === "+") break;
        // {} is each file found: anything under the roots.
        if (x.value === "{}") inner.push(...(roots.length > 0 ? roots : [literalWord(".")]).map((r) => ({ ...r, glob: true })));
        else inner.push(x);
      }
      if (inner.length > 0) {
        const saved = { forms: ctx.forms, wrappers: ctx.wrappers };
        ctx.forms = [...ctx.forms, joinValues(item.argv)];
        ctx.wrappers = [...ctx.wrappers, `find ${v}`];
        analyzeArgv(inner, source, ctx, { elevated: flags.elevated, stdinArgs: false });
        ctx.forms = saved.forms;
        ctx.wrappers = saved.wrappers;
      }
    } else if (/^-(fprint0?|fprintf|fls)$/.test(v)) {
      pushPath(ctx, expression[++j], "write", source);
    } else if (/^-(newer|anewer|cnewer|samefile)$/.test(v) || v === "-files0-from") {
      pushPath(ctx, expression[++j], "read", source);
    }
  }
}
