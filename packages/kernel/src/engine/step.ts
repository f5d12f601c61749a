import { existsSync } from "node:fs";
import { join } from "node:path";
import type { AgentDefinition } from "../definitions.js";
import { newId } from "../session/ids.js";
import type { AssistantMessage, UserMessage } from "../session/message.js";
import type { MessageWithParts } from "../session/messages.js";
import type { SessionInfo } from "../session/session-info.js";
import type { EngineContext } from "./context.js";
import { toModelMessages } from "./model-messages.js";
import type { ResolvedModel } from "./models.js";
import { PartWriter } from "./part-writer.js";
import { processStep, type StepOutcome } from "./processor.js";
import { buildSystemPrompt } from "./system-prompt.js";
import { resolveTools } from "./tools.js";
import type { TurnState } from "./turn.js";
import { emptyTokens } from "./usage.js";

/** Added to the system prompt on an agent's last allowed step. */
export const MAX_STEPS_REMINDER =
  "You have reached the maximum number of steps for this task. Do not call tools. Answer now with what you have done, what is left, and what the user should do next.";

export interface StepInput {
  readonly session: SessionInfo;
  readonly user: UserMessage;
  readonly agent: AgentDefinition;
  readonly model: ResolvedModel;
  readonly history: readonly MessageWithParts[];
  readonly state: TurnState;
  readonly abort: AbortSignal;
  readonly lastStep: boolean;
  readonly subtask: (input: { agent: string; prompt: string; description: string }) => Promise<{ sessionID: string; text: string }>;
}

/**
 * Prepares and runs one model step: a new assistant message, the system prompt (then
 * `chat.system`), sampling parameters (`chat.params`), headers (`chat.headers`), the tools and
 * the model messages, then the processor.
 */
export async function runStep(ctx: EngineContext, input: StepInput): Promise<{ outcome: StepOutcome; message: AssistantMessage }> {
  const { session, user, agent, model } = input;
  const message: AssistantMessage = {
    id: newId("message"),
    sessionID: session.id,
    role: "assistant",
    parentID: user.id,
    providerID: model.ref.providerID,
    modelID: model.ref.modelID,
    agent: agent.id,
    time: { created: ctx.now() },
    cost: 0,
    tokens: emptyTokens(),
  };
  const writer = new PartWriter(ctx.store, ctx.bus, message, ctx.flushIntervalMs);
  writer.saveMessage();

  const hookBase = { sessionID: session.id, agent: agent.id, model: model.ref };
  const sections = await buildSystemPrompt({
    agent,
    providerID: model.provider.promptFamily ?? model.ref.providerID,
    modelID: model.ref.modelID,
    directory: session.directory,
    root: ctx.config.root,
    isGitRepo: existsSync(join(ctx.config.root, ".git")),
    configDir: ctx.paths.config,
    ...(user.system ? { userSystem: user.system } : {}),
  });
  if (input.lastStep) sections.push(MAX_STEPS_REMINDER);
  const { system } = await ctx.trigger("chat.system", hookBase, { system: sections });

  const providerInput = { ...hookBase, provider: { id: model.ref.providerID, options: {} } };
  const params = await ctx.trigger("chat.params", providerInput, {
    ...(agent.temperature !== undefined ? { temperature: agent.temperature } : {}),
    ...(agent.topP !== undefined ? { topP: agent.topP } : {}),
    ...(model.info?.limit?.output ? { maxOutputTokens: model.info.limit.output } : {}),
    options: {},
  });
  const { headers } = await ctx.trigger("chat.headers", providerInput, { headers: {} });
  const tools = await resolveTools(ctx.tools, ctx.trigger.bind(ctx), {
    agent,
    ...(user.tools ? { messageTools: user.tools } : {}),
  });

  const outcome = await processStep(
    { ...ctx, trigger: ctx.trigger.bind(ctx) },
    {
      writer,
      providerID: model.ref.providerID,
      model: model.language,
      ...(model.info ? { modelInfo: model.info } : {}),
      system,
      messages: toModelMessages(input.history),
      tools,
      params,
      headers,
      abort: input.abort,
      toolChoice: input.lastStep ? "none" : "auto",
      recentCalls: [...input.state.recentCalls],
      toolContext: {
        sessionID: session.id,
        messageID: message.id,
        agent: agent.id,
        directory: session.directory,
        abort: input.abort,
        subtask: input.subtask,
      },
    },
  );
  return { outcome, message };
}
