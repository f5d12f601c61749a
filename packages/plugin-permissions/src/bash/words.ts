import type { Node } from "web-tree-sitter";

/** One shell word, as far as it can be known before the command runs. */
export interface Word {
  /** The source text. */
  readonly text: string;
  /** The value after quote removal; parts only known at run time keep their source text. */
  readonly value: string;
  /** Contains a parameter, command or arithmetic expansion, or a process substitution. */
  readonly dynamic: boolean;
  /** Contains unquoted glob characters (`*`, `?`, `[`) or a brace expansion. */
  readonly glob: boolean;
  /** Starts with an unquoted `~`. */
  readonly tilde: boolean;
  /** Is a process substitution (`<(…)`, `>(…)`): a pipe, not a file. */
  readonly procsub: boolean;
  /** Why bash might read this word differently from the parser (an unescaped metacharacter). */
  readonly suspicious?: string;
}

export function literalWord(value: string): Word {
  return { text: value, value, dynamic: false, glob: false, tilde: false, procsub: false };
}

const DYNAMIC_TYPES = new Set([
  "simple_expansion",
  "expansion",
  "command_substitution",
  "arithmetic_expansion",
  "process_substitution",
]);

/** Reads a word node (word, string, raw_string, concatenation, expansion …). */
export function wordOf(node: Node): Word {
  switch (node.type) {
    case "word":
    case "command_name": {
      if (node.type === "command_name") {
        const inner = node.firstChild;
        if (inner && node.childCount === 1) return wordOf(inner);
        return dynamicWord(node.text);
      }
      return unquotedWord(node.text);
    }
    case "number":
      return literalWord(node.text);
    case "raw_string": {
      const text = node.text;
      return { text, value: text.slice(1, -1), dynamic: false, glob: false, tilde: false, procsub: false };
    }
    case "ansi_c_string": {
      const text = node.text;
      return { text, value: decodeAnsiC(text.slice(2, -1)), dynamic: false, glob: false, tilde: false, procsub: false };
    }
    case "string":
    case "translated_string":
      return doubleQuoted(node);
    case "concatenation": {
      let value = "";
      let dynamic = false;
      let glob = false;
      let procsub = false;
      let suspicious: string | undefined;
      const children = node.children;
      let tilde = false;
      children.forEach((child, i) => {
        const w = wordOf(child);
        value += w.value;
        dynamic ||= w.dynamic;
        glob ||= w.glob;
        procsub ||= w.procsub;
        suspicious ??= w.suspicious;
        if (i === 0) tilde = w.tilde;
      });
      // `{a,b}` arrives as a concatenation of the words "{", "a,b", "}".
      if (!glob && children.some((c) => c.type === "word" && (c.text === "{" || c.text === "}"))) glob = hasBraceExpansion(value);
      return { text: node.text, value, dynamic, glob, tilde, procsub, ...(suspicious ? { suspicious } : {}) };
    }
    case "brace_expression":
      return { text: node.text, value: node.text, dynamic: false, glob: true, tilde: false, procsub: false };
    case "process_substitution":
      return { text: node.text, value: node.text, dynamic: true, glob: false, tilde: false, procsub: true };
    default:
      return dynamicWord(node.text);
  }
}

function dynamicWord(text: string): Word {
  return { text, value: text, dynamic: true, glob: false, tilde: false, procsub: false };
}

/** An unquoted word: backslash escapes removed, globs and a leading tilde noted. */
function unquotedWord(text: string): Word {
  let value = "";
  let glob = false;
  let suspicious: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === "\\") {
      const next = text[i + 1];
      if (next === undefined) break;
      i++;
      if (next !== "\n") value += next;
      continue;
    }
    if (ch === "*" || ch === "?" || ch === "[") glob = true;
    else if (";&|<>()`\n".includes(ch)) suspicious ??= `unescaped "${ch}"`;
    else if (ch === "$" && i + 1 < text.length && /[A-Za-z_0-9{(@*#?$!-]/.test(text[i + 1]!)) suspicious ??= "unparsed expansion";
    value += ch;
  }
  if (!glob && (text.includes("{") || text.includes("}"))) glob = hasBraceExpansion(value);
  const tilde = text.startsWith("~");
  return { text, value, dynamic: false, glob, tilde, procsub: false, ...(suspicious ? { suspicious } : {}) };
}

function hasBraceExpansion(value: string): boolean {
  return /\{[^{}]*(,|\.\.)[^{}]*\}/.test(value);
}

function doubleQuoted(node: Node): Word {
  const text = node.text;
  const base = node.startIndex;
  let value = "";
  let dynamic = false;
  // Start after the opening quote ($" for translated strings), end before the closing one.
  let pos = text.startsWith('$"') ? 2 : 1;
  const end = text.length - 1;
  for (const child of node.children) {
    const start = child.startIndex - base;
    const stop = child.endIndex - base;
    if (start < pos || start >= end) continue; // the quotes themselves
    if (start > pos) value += unescapeDouble(text.slice(pos, start));
    if (child.type === "string_content") value += unescapeDouble(child.text);
    else {
      value += child.text;
      if (DYNAMIC_TYPES.has(child.type) || child.isNamed) dynamic = true;
    }
    pos = stop;
  }
  if (pos < end) value += unescapeDouble(text.slice(pos, end));
  return { text, value, dynamic, glob: false, tilde: false, procsub: false };
}

/** Inside double quotes a backslash only escapes $, `, ", \ and a newline. */
function unescapeDouble(s: string): string {
  if (!s.includes("\\")) return s;
  return s.replace(/\\([$`"\\\n])/g, (_m, c: string) => (c === "\n" ? "" : c));
}

const ANSI: Record<string, string> = { n: "\n", t: "\t", r: "\r", a: "\x07", b: "\b", e: "\x1b", E: "\x1b", f: "\f", v: "\v", "\\": "\\", "'": "'", '"': '"', "?": "?" };

function decodeAnsiC(s: string): string {
  return s.replace(/\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/gs, (m, esc: string) => {
    if (esc[0] === "x" || esc[0] === "u" || esc[0] === "U") return String.fromCodePoint(parseInt(esc.slice(1), 16));
    if (/^[0-7]/.test(esc)) return String.fromCharCode(parseInt(esc, 8));
    if (esc[0] === "c") return String.fromCharCode(esc.charCodeAt(1) & 0x1f);
    return ANSI[esc] ?? m;
  });
}
