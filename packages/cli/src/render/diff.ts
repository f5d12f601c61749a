import type { Style } from "../style.js";

/** Colours a unified diff for a terminal (additions green, removals red, hunks cyan), at most `maxLines`. */
export function renderDiff(diff: string, style: Style, maxLines = 40): string {
  const lines = diff.replace(/\n$/, "").split("\n");
  const shown = lines.slice(0, maxLines).map((line) => {
    if (line.startsWith("+++") || line.startsWith("---")) return style.dim(line);
    if (line.startsWith("+")) return style.green(line);
    if (line.startsWith("-")) return style.red(line);
    if (line.startsWith("@@")) return style.cyan(line);
    return style.dim(line);
  });
  if (lines.length > maxLines) shown.push(style.dim(`… ${lines.length - maxLines} more lines`));
  return `${shown.map((l) => `    ${l}`).join("\n")}\n`;
}
