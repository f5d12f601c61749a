import type { ToolPart } from "@tessera/kernel";

/** A short description of a tool call for one line: its title, else its main argument. */
export function toolSummary(part: ToolPart): string {
  const state = part.state;
  if ((state.status === "completed" || state.status === "running") && state.title) return state.title;
  const input = state.input;
  const main = input.filePath ?? input.path ?? input.command ?? input.pattern ?? input.url ?? input.description;
  return typeof main === "string" ? main : "";
}

/** Shortens text to one line of at most `max` characters. */
export function oneLine(text: string, max = 120): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
