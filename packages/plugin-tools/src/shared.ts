import { resolveOptions, type ToolsOptions, type ToolsOptionsInput } from "./options.js";
import { createToolState, type ToolState } from "./state.js";

/** What a tool factory needs: the shared state (read records) and the plugin options. */
export interface ToolDeps {
  readonly state: ToolState;
  readonly options: ToolsOptions;
}

/** Factory input: everything optional, defaults filled in (a fresh state, default options). */
export interface ToolDepsInput {
  readonly state?: ToolState;
  readonly options?: ToolsOptions | ToolsOptionsInput;
}

export function toolDeps(input: ToolDepsInput = {}): ToolDeps {
  return { state: input.state ?? createToolState(), options: resolveOptions(input.options as ToolsOptionsInput) };
}

/** Distance between two short strings (names), for "did you mean" suggestions. */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(current[j - 1]! + 1, previous[j]! + 1, previous[j - 1]! + cost);
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** Counts lines the way editors do: a trailing newline ends the last line rather than starting another. */
export function countLines(text: string): number {
  if (text === "") return 0;
  let n = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return text.endsWith("\n") ? n - 1 : n;
}

/** "1 line", "3 lines". */
export function plural(n: number, word: string, words = `${word}s`): string {
  return `${n} ${n === 1 ? word : words}`;
}
