import type { CompactionContext, CompactionStrategy } from "../definitions.js";
import type { AssistantMessage } from "../session/message.js";
import type { MessageWithParts } from "../session/messages.js";
import type { ToolPart } from "../session/part.js";
import type { SessionInfo } from "../session/session-info.js";
import type { EngineContext } from "./context.js";
import { newId } from "../session/ids.js";
import { MessageUpdated, SessionErrored } from "./events.js";
import { resolveModel, type ResolvedModel } from "./models.js";
import { PartWriter } from "./part-writer.js";
import { runStep } from "./step.js";
import { isTurnDone, turnState, type TurnState } from "./turn.js";
import { emptyTokens } from "./usage.js";

/** Steps an agent may take in one turn when it does not set `maxSteps`. */
export const DEFAULT_MAX_STEPS = 100;
/** Compactions in a row without a model step in between before the loop gives up. */
export const MAX_CONSECUTIVE_COMPACTIONS = 3;

export interface LoopHooks {
  /** Runs a subagent in a child session. */
  subtask(parent: SessionInfo, input: { agent: string; prompt: string; description: string }, abort: AbortSignal): Promise<{ sessionID: string; text: string }>;
  /** Called once after the first step of a turn finishes (titles are made here, off the critical path). */
  afterFirstStep(session: SessionInfo, history: readonly MessageWithParts[]): void;
}

/**
 * Runs model steps until the turn is done: the last assistant message answers the last user
 * message and finished for a reason other than tool calls, or failed, or the signal fired. The
 * state is derived from the stored messages at every iteration, so a prompt that arrives while
 * the loop runs is answered by the same loop.
 */
export async function runLoop(ctx: EngineContext, sessionID: string, abort: AbortSignal, hooks: LoopHooks): Promise<void> {
  let step = 0;
  let compactions = 0;
  const compact = async (strategy: CompactionStrategy, context: CompactionContext, session: SessionInfo) => {
    if (++compactions > MAX_CONSECUTIVE_COMPACTIONS) {
      failTurn(ctx, session, state.lastUser!.id, `compaction ran ${MAX_CONSECUTIVE_COMPACTIONS} times in a row without making room; stopping`);
      return "stop";
    }
    return strategy.compact(context);
  };
  let state: TurnState;
  while (!abort.aborted) {
    const session = ctx.store.getSession(sessionID);
    if (!session) throw new Error(`session ${sessionID} does not exist`);
    const history = ctx.store.listMessages(sessionID);
    state = turnState(history);
    if (isTurnDone(state)) break;
    const user = state.lastUser!;
    step++;

    const agent = ctx.agents.get(user.agent);
    if (!agent) {
      failTurn(ctx, session, user.id, `agent "${user.agent}" is not defined (known: ${ctx.agents.list().map((a) => a.id).join(", ")})`);
      break;
    }
    let model: ResolvedModel;
    try {
      model = await resolveModel(ctx.providers, user.model);
    } catch (error) {
      failTurn(ctx, session, user.id, (error as Error).message, user.model);
      break;
    }

    const subtask = state.pendingSubtasks[0];
    if (subtask) {
      await runSubtaskPart(ctx, session, user.id, model, subtask, abort, hooks);
      continue;
    }

    const strategy = ctx.compactions.list()[0];
    if (strategy && state.lastFinished && (await isOverflow(strategy, compactionContext(ctx, session, model, abort, state, "overflow")))) {
      if ((await compact(strategy, compactionContext(ctx, session, model, abort, state, "overflow"), session)) === "stop") break;
      continue;
    }

    const maxSteps = agent.maxSteps ?? DEFAULT_MAX_STEPS;
    const { outcome, message } = await runStep(ctx, {
      session,
      user,
      agent,
      model,
      history,
      state,
      abort,
      lastStep: step >= maxSteps,
      subtask: (input) => hooks.subtask(session, input, abort),
    });
    if (step === 1) hooks.afterFirstStep(session, history);
    compactions = 0;
    if (outcome === "compact") {
      if (!strategy) {
        const provider = message.error?.message ? ` (the provider said: ${message.error.message})` : "";
        const error = {
          name: "ContextOverflowError" as const,
          message: `The conversation no longer fits the model's context window${provider}, and no compaction plugin is loaded to shrink it. Add @tessera/plugin-compaction to your plugins, or start a new session.`,
        };
        message.error = error;
        ctx.store.updateMessage(message);
        ctx.bus.publish(SessionErrored, { sessionID, messageID: message.id, error });
        break;
      }
      if ((await compact(strategy, compactionContext(ctx, session, model, abort, state, "provider-overflow"), session)) === "stop") break;
      continue;
    }
    if (outcome === "stop" || step >= maxSteps) break;
  }
}

function compactionContext(
  ctx: EngineContext,
  session: SessionInfo,
  model: ResolvedModel,
  abort: AbortSignal,
  state: TurnState,
  reason: CompactionContext["reason"],
): CompactionContext {
  const t = state.lastFinished?.tokens;
  return {
    sessionID: session.id,
    store: ctx.store,
    model: { ...model.ref, language: model.language, ...(model.info ? { info: model.info } : {}) },
    abort,
    ...(t ? { lastTokens: t.input + t.output + t.reasoning + t.cache.read + t.cache.write } : {}),
    reason,
  };
}

/** The strategy's own check, or: the last step used all but the model's output budget of its context. */
async function isOverflow(strategy: CompactionStrategy, ctx: CompactionContext): Promise<boolean> {
  if (strategy.isOverflow) return strategy.isOverflow(ctx);
  const limit = ctx.model.info?.limit;
  if (!limit?.context || ctx.lastTokens === undefined) return false;
  const reserve = Math.min(limit.output || 32_000, 32_000);
  return ctx.lastTokens > limit.context - reserve;
}

/** A turn that cannot start (unknown agent or model) still gets an assistant message with the error, so the user sees why. */
function failTurn(ctx: EngineContext, session: SessionInfo, parentID: string, text: string, model?: { providerID: string; modelID: string }): void {
  const now = ctx.now();
  const error = { name: "UnknownError" as const, message: text };
  const message: AssistantMessage = {
    id: newId("message"), sessionID: session.id, role: "assistant", parentID, providerID: model?.providerID ?? "",
    modelID: model?.modelID ?? "", agent: "", time: { created: now, completed: now }, cost: 0, tokens: emptyTokens(), error,
  };
  ctx.store.updateMessage(message);
  ctx.bus.publish(MessageUpdated, { info: message });
  ctx.bus.publish(SessionErrored, { sessionID: session.id, messageID: message.id, error });
}

async function runSubtaskPart(
  ctx: EngineContext,
  session: SessionInfo,
  userID: string,
  model: ResolvedModel,
  subtask: { id: string; agent: string; prompt: string; description: string },
  abort: AbortSignal,
  hooks: LoopHooks,
): Promise<void> {
  const message: AssistantMessage = {
    id: newId("message"), sessionID: session.id, role: "assistant", parentID: userID, providerID: model.ref.providerID, modelID: model.ref.modelID,
    agent: subtask.agent, time: { created: ctx.now() }, cost: 0, tokens: emptyTokens(),
  };
  const writer = new PartWriter(ctx.store, ctx.bus, message, ctx.flushIntervalMs);
  writer.saveMessage();
  const start = ctx.now();
  const input = { agent: subtask.agent, prompt: subtask.prompt, description: subtask.description };
  const part = writer.save(
    writer.create<ToolPart>({ type: "tool", callID: `subtask_${subtask.id}`, tool: "task", state: { status: "running", input, time: { start } } }),
  );
  try {
    const result = await hooks.subtask(session, input, abort);
    part.state = {
      status: "completed", input, output: result.text, title: subtask.description,
      metadata: { subtask: subtask.id, sessionID: result.sessionID }, time: { start, end: ctx.now() },
    };
  } catch (error) {
    part.state = { status: "error", input, error: (error as Error).message, metadata: { subtask: subtask.id }, time: { start, end: ctx.now() } };
  }
  writer.save(part);
  message.finish = "tool-calls";
  message.time.completed = ctx.now();
  writer.saveMessage();
}
