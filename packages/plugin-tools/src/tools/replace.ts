/**
 * Finding `oldString` in a file: exactly first, then with matchers that tolerate what models get
 * wrong (trailing whitespace, runs of spaces, indentation, a garbled middle). The first matcher
 * that finds anything decides; several matches are an error unless `replaceAll`. Replacement
 * is done by slicing — never `String.replace` with a string, which would expand `$&` and `$1`.
 */

/** A match: the range in the content to replace, and the text to put there. */
export interface Match {
  readonly start: number;
  readonly end: number;
  readonly replacement: string;
}

export interface MatcherResult {
  readonly matcher: MatcherName;
  readonly matches: Match[];
}

export type MatcherName = "exact" | "trimmed-lines" | "normalized-whitespace" | "flexible-indentation" | "block-anchors";

interface Line {
  readonly text: string;
  /** Offset of the line's first character in the content. */
  readonly start: number;
  /** Offset just past the line's last character (before its newline). */
  readonly end: number;
}

function splitLines(content: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  for (;;) {
    const newline = content.indexOf("\n", start);
    if (newline === -1) {
      lines.push({ text: content.slice(start), start, end: content.length });
      return lines;
    }
    lines.push({ text: content.slice(start, newline), start, end: newline });
    start = newline + 1;
  }
}

/** `oldString`'s lines without blank lines around them, and what was stripped (to strip from `newString` as well). */
function blockOf(text: string): { lines: string[]; lead: string; trail: string } {
  const lead = /^(?:[ \t]*\n)*/.exec(text)![0];
  const trail = /(?:\n[ \t]*)*\n?[ \t]*$/.exec(text.slice(lead.length))![0];
  const body = text.slice(lead.length, text.length - trail.length);
  return { lines: body === "" ? [] : body.split("\n"), lead, trail };
}

/** `newString` with the blank lines stripped from around `oldString` also stripped from it. */
function trimLike(newString: string, lead: string, trail: string): string {
  let text = newString;
  if (lead && text.startsWith(lead)) text = text.slice(lead.length);
  const trailingNewlines = trail.replace(/[ \t]/g, "");
  if (trailingNewlines && text.endsWith(trailingNewlines)) text = text.slice(0, text.length - trailingNewlines.length);
  return text;
}

function exact(content: string, oldString: string, newString: string): Match[] {
  const matches: Match[] = [];
  if (oldString === "") return matches;
  for (let i = content.indexOf(oldString); i !== -1; i = content.indexOf(oldString, i + oldString.length)) {
    matches.push({ start: i, end: i + oldString.length, replacement: newString });
  }
  return matches;
}

/** Windows of consecutive content lines equal to the block's lines under `normalize`. */
function lineMatches(
  content: string,
  oldString: string,
  newString: string,
  normalize: (line: string) => string,
  options: {
    /** A further check of a window whose lines are equal under `normalize`. */
    accept?: (block: string[], found: string[]) => boolean;
    /** Adapts the new text to the window found. */
    adapt?: (block: string[], found: string[], newText: string) => string;
  } = {},
): Match[] {
  const block = blockOf(oldString);
  if (block.lines.length === 0) return [];
  const wanted = block.lines.map(normalize);
  const lines = splitLines(content);
  const normalized = lines.map((l) => normalize(l.text));
  const newText = trimLike(newString, block.lead, block.trail);
  const matches: Match[] = [];
  for (let i = 0; i + wanted.length <= lines.length; i++) {
    let equal = true;
    for (let j = 0; j < wanted.length; j++) {
      if (normalized[i + j] !== wanted[j]) {
        equal = false;
        break;
      }
    }
    if (!equal) continue;
    const found = lines.slice(i, i + wanted.length);
    const texts = found.map((l) => l.text);
    if (options.accept && !options.accept(block.lines, texts)) continue;
    matches.push({
      start: found[0]!.start,
      end: found.at(-1)!.end,
      replacement: options.adapt ? options.adapt(block.lines, texts, newText) : newText,
    });
    i += wanted.length - 1;
  }
  return matches;
}

const indentOf = (line: string) => /^[ \t]*/.exec(line)![0];

function minIndent(lines: string[]): string {
  let best: string | undefined;
  for (const line of lines) {
    if (line.trim() === "") continue;
    const indent = indentOf(line);
    if (best === undefined || indent.length < best.length) best = indent;
  }
  return best ?? "";
}

/** Re-indents `newText` by the difference between the file's indentation and `oldString`'s. */
function reindent(block: string[], found: string[], newText: string): string {
  const from = minIndent(block);
  const to = minIndent(found);
  if (from === to) return newText;
  return newText
    .split("\n")
    .map((line) => {
      if (line.trim() === "") return line;
      return line.startsWith(from) ? to + line.slice(from.length) : to + line.trimStart();
    })
    .join("\n");
}

const collapse = (line: string) => line.trim().replace(/\s+/g, " ");

/** Both blocks have the same indentation relative to their least indented line. */
function sameRelativeIndent(block: string[], found: string[]): boolean {
  const a = minIndent(block).length;
  const b = minIndent(found).length;
  return block.every((line, i) => line.trim() === "" || indentOf(line).length - a === indentOf(found[i]!).length - b);
}

/** How alike two lists of lines are, from 0 to 1 (shared trimmed lines, as a Dice coefficient). */
function similarity(a: string[], b: string[]): number {
  if (a.length === 0 && b.length === 0) return 1;
  const counts = new Map<string, number>();
  for (const line of a) counts.set(collapse(line), (counts.get(collapse(line)) ?? 0) + 1);
  let shared = 0;
  for (const line of b) {
    const key = collapse(line);
    const n = counts.get(key) ?? 0;
    if (n > 0) {
      shared++;
      counts.set(key, n - 1);
    }
  }
  return (2 * shared) / (a.length + b.length);
}

/**
 * Blocks of three or more lines whose first and last lines match (trimmed) and whose middle is
 * mostly the same: the model remembered the ends of a block but not every line between them.
 */
function blockAnchors(content: string, oldString: string, newString: string): Match[] {
  const block = blockOf(oldString);
  if (block.lines.length < 3) return [];
  const first = block.lines[0]!.trim();
  const last = block.lines.at(-1)!.trim();
  if (first === "" || last === "") return [];
  const lines = splitLines(content);
  const middle = block.lines.slice(1, -1);
  const maxSpan = Math.ceil(block.lines.length * 1.5) + 2;
  const newText = trimLike(newString, block.lead, block.trail);
  const candidates: Match[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.text.trim() !== first) continue;
    for (let j = i + 2; j < lines.length && j - i < maxSpan; j++) {
      if (lines[j]!.text.trim() !== last) continue;
      const found = lines.slice(i + 1, j).map((l) => l.text);
      if (similarity(middle, found) >= 0.5) {
        candidates.push({ start: lines[i]!.start, end: lines[j]!.end, replacement: reindent(block.lines, lines.slice(i, j + 1).map((l) => l.text), newText) });
      }
      break;
    }
  }
  return candidates;
}

const MATCHERS: ReadonlyArray<readonly [MatcherName, (content: string, oldString: string, newString: string) => Match[]]> = [
  ["exact", exact],
  // Trailing whitespace and blank lines around the block differ.
  ["trimmed-lines", (c, o, n) => lineMatches(c, o, n, (l) => l.trimEnd())],
  // Runs of spaces and tabs inside lines differ; indentation must still be the same.
  ["normalized-whitespace", (c, o, n) => lineMatches(c, o, n, (l) => indentOf(l) + l.trim().replace(/\s+/g, " "))],
  // The whole block is shifted (relative indentation kept); the new text is re-indented to match the file.
  ["flexible-indentation", (c, o, n) => lineMatches(c, o, n, collapse, { accept: sameRelativeIndent, adapt: reindent })],
  ["block-anchors", blockAnchors],
];

/** The first matcher's matches of `oldString` in `content` (none found: an empty list). */
export function findMatches(content: string, oldString: string, newString: string): MatcherResult {
  for (const [matcher, find] of MATCHERS) {
    const matches = find(content, oldString, newString);
    if (matches.length > 0) return { matcher, matches };
  }
  return { matcher: "exact", matches: [] };
}

/** `content` with every match replaced (matches are sorted and never overlap). */
export function applyMatches(content: string, matches: readonly Match[]): string {
  const sorted = [...matches].sort((a, b) => a.start - b.start);
  let out = "";
  let at = 0;
  for (const m of sorted) {
    if (m.start < at) continue;
    out += content.slice(at, m.start) + m.replacement;
    at = m.end;
  }
  return out + content.slice(at);
}
