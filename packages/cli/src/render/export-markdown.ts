import type { MessageWithParts, SessionInfo } from "@tessera/kernel";

/** A session as a readable markdown transcript. */
export function exportMarkdown(session: SessionInfo, messages: readonly MessageWithParts[]): string {
  const out: string[] = [`# ${session.title}`, "", `- session: ${session.id}`, `- directory: ${session.directory}`, `- created: ${new Date(session.time.created).toISOString()}`, ""];
  for (const { info, parts } of messages) {
    if (info.role === "user") out.push("## User", "");
    else out.push(`## Assistant (${info.agent}, ${info.providerID}/${info.modelID})`, "");
    for (const part of parts) {
      if (part.type === "text" && !part.synthetic && !part.ignored) out.push(part.text, "");
      else if (part.type === "file") out.push(`📎 ${part.filename ?? part.url}`, "");
      else if (part.type === "tool") {
        const state = part.state;
        const title = state.status === "completed" ? state.title : part.tool;
        out.push(`**Tool: ${part.tool}** — ${title} (${state.status})`, "", "```json", JSON.stringify(state.input, null, 2), "```", "");
        if (state.status === "completed") out.push("```", state.output.length > 4000 ? `${state.output.slice(0, 4000)}\n…` : state.output, "```", "");
        if (state.status === "error") out.push(`> ${state.error}`, "");
      }
    }
    if (info.role === "assistant" && info.error) out.push(`> **${info.error.name}**: ${info.error.message}`, "");
  }
  return `${out.join("\n").trimEnd()}\n`;
}
