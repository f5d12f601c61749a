import type { MessageWithParts } from "../session/messages.js";
import type { SessionInfo } from "../session/session-info.js";
import type { EngineContext } from "./context.js";
import { SessionUpdated } from "./events.js";
import { parseModelRef, resolveModel } from "./models.js";

export const TITLE_MAX_LENGTH = 50;
export const DEFAULT_TITLE_PREFIX = "New session - ";

export function defaultTitle(now: number): string {
  return `${DEFAULT_TITLE_PREFIX}${new Date(now).toISOString()}`;
}

/**
 * Names a session from its first user message with the hidden `title` agent and the small
 * model (falling back to the session's model). Runs after the first step, off the critical path;
 * a failure is logged and the default title stays.
 */
export async function generateTitle(ctx: EngineContext, session: SessionInfo, history: readonly MessageWithParts[], abort: AbortSignal): Promise<void> {
  if (session.parentID || !session.title.startsWith(DEFAULT_TITLE_PREFIX)) return;
  const first = history.find((m) => m.info.role === "user");
  if (!first || first.info.role !== "user") return;
  const text = first.parts
    .filter((p) => p.type === "text" && !p.synthetic)
    .map((p) => (p.type === "text" ? p.text : ""))
    .join("\n")
    .slice(0, 4000);
  if (text.trim() === "") return;
  const agent = ctx.agents.get("title");
  const ref = ctx.config.config.small_model ? parseModelRef(ctx.config.config.small_model) : first.info.model;
  try {
    const model = await resolveModel(ctx.providers, ref);
    const { generateText } = await import("ai");
    const result = await generateText({
      model: model.language,
      ...(agent?.prompt ? { instructions: agent.prompt } : {}),
      messages: [{ role: "user", content: `Write a title for this conversation:\n\n${text}` }],
      maxRetries: 0,
      abortSignal: abort,
      ...(agent?.temperature !== undefined ? { temperature: agent.temperature } : {}),
    });
    const title = cleanTitle(result.text);
    if (!title) return;
    const current = ctx.store.getSession(session.id);
    if (!current || !current.title.startsWith(DEFAULT_TITLE_PREFIX)) return;
    const info = ctx.store.updateSession(session.id, { title });
    ctx.bus.publish(SessionUpdated, { info });
  } catch (error) {
    ctx.log.warn(`could not generate a title for ${session.id}: ${(error as Error)?.message ?? String(error)}`);
  }
}

/** One line, no quotes or markdown, at most TITLE_MAX_LENGTH characters. */
export function cleanTitle(raw: string): string {
  const line =
    raw
      .replace(/<think>[\s\S]*?<\/think>/g, "")
      .split("\n")
      .map((l) => l.trim())
      .find((l) => l !== "") ?? "";
  const plain = line.replace(/^#+\s*/, "").replace(/^["'`*]+|["'`*]+$/g, "").trim();
  return plain.length > TITLE_MAX_LENGTH ? `${plain.slice(0, TITLE_MAX_LENGTH - 1).trimEnd()}…` : plain;
}
