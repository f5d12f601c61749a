/**
 * The system prompt for one model call, as sections in order:
 *
 *   1. the agent's prompt, or the default prompt for the model's family
 *   2. the environment: working directory, git, platform, date
 *   3. instruction files (`AGENTS.md` / `CLAUDE.md`, nearest first, then global), one section each
 *   4. the per-message system text
 *
 * Sections stay separate so `chat.system` taps (applied by the loop afterwards) can drop or
 * rewrite one without parsing the others.
 */
import type { AgentDefinition } from "../definitions.js";
import { findInstructions, formatInstruction } from "./instructions.js";
import { providerPrompt } from "./prompts/coding.js";

export { modelFamily, providerPrompt, type ModelFamily } from "./prompts/coding.js";

export interface SystemPromptInput {
  readonly agent: AgentDefinition;
  readonly providerID: string;
  readonly modelID: string;
  /** The project directory. */
  readonly directory: string;
  /** The repository root (or the project directory when it is not in a repository). */
  readonly root: string;
  readonly isGitRepo: boolean;
  /** The global config directory, where the global `AGENTS.md` lives. */
  readonly configDir: string;
  /** Defaults to `process.platform`. */
  readonly platform?: string;
  /** Defaults to the current time; pass it to make the prompt deterministic. */
  readonly now?: Date;
  /** The system text the user message carries. */
  readonly userSystem?: string;
}

export async function buildSystemPrompt(input: SystemPromptInput): Promise<string[]> {
  const agentPrompt = input.agent.prompt?.trim();
  const sections = [agentPrompt ? agentPrompt : providerPrompt(input.providerID, input.modelID)];
  sections.push(
    environmentBlock({
      directory: input.directory,
      isGitRepo: input.isGitRepo,
      platform: input.platform ?? process.platform,
      now: input.now ?? new Date(),
    }),
  );
  const instructions = await findInstructions(input);
  sections.push(...instructions.map(formatInstruction));
  const userSystem = input.userSystem?.trim();
  if (userSystem) sections.push(userSystem);
  return sections;
}

export interface EnvironmentInput {
  readonly directory: string;
  readonly isGitRepo: boolean;
  readonly platform: string;
  readonly now: Date;
}

/**
 * The facts a model cannot know: where it is and when. Only the date, not the time, so the prompt
 * stays the same all day and prompt caches keep hitting.
 */
export function environmentBlock(input: EnvironmentInput): string {
  return [
    "<env>",
    `Working directory: ${input.directory}`,
    `Is directory a git repo: ${input.isGitRepo ? "yes" : "no"}`,
    `Platform: ${input.platform}`,
    `Today's date: ${isoDate(input.now)}`,
    "</env>",
  ].join("\n");
}

/** `YYYY-MM-DD` in local time: the user's today, which is what "today" means to them. */
function isoDate(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}
