import { createTwoFilesPatch } from "diff";

export interface FileDiff {
  /** A unified diff (`--- a`, `+++ b`, `@@` hunks). */
  readonly diff: string;
  readonly additions: number;
  readonly deletions: number;
}

/** The unified diff from `before` to `after` of the file shown as `name`, with 3 lines of context. */
export function unifiedDiff(name: string, before: string, after: string): FileDiff {
  const diff = createTwoFilesPatch(name, name, before, after, undefined, undefined, { context: 3 });
  let additions = 0;
  let deletions = 0;
  for (const line of diff.split("\n")) {
    if (line.startsWith("+") && !line.startsWith("+++")) additions++;
    else if (line.startsWith("-") && !line.startsWith("---")) deletions++;
  }
  // The header's first line (`Index:` / `====`) says nothing the `---`/`+++` lines do not.
  return { diff: diff.replace(/^(Index: .*\n)?=+\n/, ""), additions, deletions };
}
