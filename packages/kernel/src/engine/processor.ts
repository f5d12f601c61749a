import type { ModelMessage, Tool } from "ai";
import type { Bus } from "../bus/bus.js";
import type { KernelLanguageModel, ModelInfo, ToolContext } from "../definitions.js";
import type { ChatParamsOutput, HookInput, HookName, HookOutput } from "../hooks/types.js";
import type { Logger } from "../logger.js";
import { newId } from "../session/ids.js";
import type { MessageError } from "../session/message.js";
import { PartSchema, type Part, type ReasoningPart, type RetryPart, type StepFinishPart, type TextPart } from "../session/part.js";
import type { SessionStore } from "../session/session-store.js";
import type { RecentCall } from "./doom-loop.js";
import { SessionErrored } from "./events.js";
import { toMessageError } from "./model-errors.js";
import { PartWriter } from "./part-writer.js";
import { repairToolCall } from "./repair.js";
import { retryDelay, retryMessage, sleep } from "./retry.js";
import type { StatusTracker } from "./status.js";
import { ToolRunner, type ToolRunnerDeps } from "./tool-runner.js";
import { addTokens, stepUsage } from "./usage.js";

/** A retryable failure is tried again this many times before it is stored as the message's error. */
export const MAX_RETRY_ATTEMPTS = 8;

export interface ProcessorDeps extends ToolRunnerDeps {
  readonly store: SessionStore;
  readonly bus: Bus;
  readonly log: Logger;
  readonly status: StatusTracker;
  readonly flushIntervalMs?: number;
  readonly retryDelay?: (attempt: number, error: MessageError) => number;
}

export interface StepRequest {
  readonly writer: PartWriter;
  readonly providerID: string;
  readonly model: KernelLanguageModel;
  readonly modelInfo?: ModelInfo;
  readonly system: readonly string[];
  readonly messages: ModelMessage[];
  readonly tools: Record<string, Tool>;
  readonly params: ChatParamsOutput;
  readonly headers: Record<string, string>;
  readonly abort: AbortSignal;
  /** "none" on the last allowed step, so the model answers instead of calling tools. */
  readonly toolChoice?: "auto" | "none";
  readonly recentCalls: RecentCall[];
  readonly toolContext: Omit<ToolContext, "ask" | "callID" | "metadata">;
}

/** What the loop should do next. */
export type StepOutcome = "continue" | "stop" | "compact";

type Trigger = <K extends HookName>(hook: K, input: HookInput<K>, output: HookOutput<K>) => Promise<HookOutput<K>>;

/**
 * One model step: a single `streamText` call whose every stream event becomes a stored part and a
 * bus event. Tool calls run through the kernel's chokepoint as they arrive. Retryable failures are
 * retried with backoff; any exit leaves no tool part pending or running and the message completed.
 */
export async function processStep(deps: ProcessorDeps & { trigger: Trigger }, request: StepRequest): Promise<StepOutcome> {
  const { writer, abort } = request;
  const message = writer.message;
  const sessionID = message.sessionID;
  let attempt = 0;
  let outcome: StepOutcome = "continue";
  const runner = new ToolRunner(deps, writer, request.recentCalls, request.toolContext);

  try {
    for (;;) {
      const created: Part[] = [];
      try {
        await streamOnce(deps, request, runner, created);
        await runner.settle();
        break;
      } catch (error) {
        await runner.settle();
        writer.flush();
        const failure = abort.aborted ? abortedError() : toMessageError(error, { providerID: request.providerID });
        if (failure.name === "ContextOverflowError") {
          outcome = "compact";
          message.error = failure;
          break;
        }
        const retry = failure.name === "AbortedError" ? undefined : retryMessage(failure);
        if (retry && attempt < MAX_RETRY_ATTEMPTS) {
          attempt++;
          // The failed attempt's half-streamed text and never-run calls are dropped; the retry streams them anew.
          // A step-finish stays: its usage was billed and is already on the message.
          for (const part of created) if (part.type !== "step-finish") writer.remove(part);
          runner.dropPending();
          const delay = (deps.retryDelay ?? retryDelay)(attempt, failure);
          writer.save(writer.create<RetryPart>({ type: "retry", attempt, error: failure, time: { created: deps.now() } }));
          deps.status.set(sessionID, { type: "retry", attempt, message: retry, next: deps.now() + delay });
          try {
            await sleep(delay, abort);
          } catch {
            message.error = abortedError();
            break;
          }
          deps.status.set(sessionID, { type: "busy" });
          continue;
        }
        message.error = failure;
        deps.bus.publish(SessionErrored, { sessionID, messageID: message.id, error: failure });
        outcome = "stop";
        break;
      }
    }
  } finally {
    writer.flush();
    runner.interrupt(abort.aborted ? "Tool execution aborted" : "Tool execution was interrupted");
    // An abort while tools ran after the model's stream had ended still marks the message aborted.
    if (abort.aborted && !message.error) message.error = abortedError();
    message.time.completed = deps.now();
    writer.saveMessage();
  }
  if (abort.aborted) return "stop";
  return outcome;
}

async function streamOnce(
  deps: ProcessorDeps & { trigger: Trigger },
  request: StepRequest,
  runner: ToolRunner,
  created: Part[],
): Promise<void> {
  const { writer, abort } = request;
  const message = writer.message;
  const sessionID = message.sessionID;
  const streaming = new Map<string, TextPart | ReasoningPart>();
  const { streamText } = await import("ai");
  const result = streamText({
    model: request.model,
    instructions: request.system.join("\n\n"),
    messages: request.messages,
    tools: request.tools,
    toolChoice: request.toolChoice ?? "auto",
    // Retries are the loop's: it backs off visibly (status "retry") and can be aborted.
    maxRetries: 0,
    abortSignal: abort,
    headers: request.headers,
    ...(request.params.temperature !== undefined ? { temperature: request.params.temperature } : {}),
    ...(request.params.topP !== undefined ? { topP: request.params.topP } : {}),
    ...(request.params.topK !== undefined ? { topK: request.params.topK } : {}),
    ...(request.params.maxOutputTokens !== undefined ? { maxOutputTokens: request.params.maxOutputTokens } : {}),
    providerOptions: { [request.providerID]: request.params.options as Record<string, never> },
    repairToolCall: async ({ toolCall, tools }) => repairToolCall(toolCall, tools ?? {}),
    onError: () => {
      // Errors arrive as `error` stream parts and are handled there; this stops the SDK's console output.
    },
  });

  try {
    for await (const event of result.stream) {
      switch (event.type) {
        case "start":
          deps.status.set(sessionID, { type: "busy" });
          break;
        case "start-step": {
          const extra = await deps.trigger("step.start", { sessionID, messageID: message.id }, { parts: [] });
          created.push(...saveExtraParts(deps, writer, extra.parts));
          created.push(writer.save(writer.create({ type: "step-start" })));
          break;
        }
        case "text-start":
        case "reasoning-start": {
          const part =
            event.type === "text-start"
              ? writer.create<TextPart>({ type: "text", text: "", time: { start: deps.now() } })
              : writer.create<ReasoningPart>({ type: "reasoning", text: "", time: { start: deps.now() } });
          streaming.set(event.id, part);
          created.push(writer.save(part));
          break;
        }
        case "text-delta":
        case "reasoning-delta": {
          const part = streaming.get(event.id);
          if (part) writer.append(part, event.text);
          break;
        }
        case "text-end":
        case "reasoning-end": {
          const part = streaming.get(event.id);
          if (!part) break;
          streaming.delete(event.id);
          part.time = { start: part.time?.start ?? deps.now(), end: deps.now() };
          if (event.providerMetadata) part.metadata = { providerOptions: event.providerMetadata };
          if (part.type === "text") {
            const done = await deps.trigger(
              "text.complete",
              { sessionID, messageID: message.id, partID: part.id },
              { text: part.text },
            );
            part.text = done.text;
          }
          writer.save(part);
          break;
        }
        case "tool-input-start":
          runner.pending(event.id, event.toolName);
          break;
        case "tool-input-delta":
          runner.inputDelta(event.id, event.delta);
          break;
        case "tool-call":
          if (event.providerExecuted) {
            // The provider runs it and streams its result; the SDK flags it invalid because the kernel's
            // tool set does not declare provider tools, so that flag is not the model's mistake here.
            if (!runner.get(event.toolCallId)) runner.pending(event.toolCallId, event.toolName);
          } else if ("invalid" in event && event.invalid) {
            const reason = (event as { error?: unknown }).error;
            runner.fail(event.toolCallId, event.toolName, event.input, invalidCallMessage(event.toolName, reason, request.tools));
          } else {
            runner.call(event.toolCallId, event.toolName, event.input);
          }
          break;
        case "tool-result":
          runner.providerResult(event.toolCallId, event.toolName, event.input, event.output);
          break;
        case "tool-error": {
          const part = runner.get(event.toolCallId);
          if (!part || part.state.status === "pending" || (part.state.status === "running" && event.providerExecuted)) {
            runner.fail(event.toolCallId, event.toolName, event.input, errorText(event.error));
          }
          break;
        }
        case "finish-step": {
          const { tokens, cost } = stepUsage(event.usage, request.modelInfo?.cost, event.providerMetadata);
          message.tokens = addTokens(message.tokens, tokens);
          message.cost += cost;
          message.finish = event.finishReason;
          created.push(
            writer.save(writer.create<StepFinishPart>({ type: "step-finish", reason: event.finishReason, tokens, cost })),
          );
          const extra = await deps.trigger(
            "step.finish",
            { sessionID, messageID: message.id, usage: tokens, finishReason: event.finishReason },
            { parts: [] },
          );
          saveExtraParts(deps, writer, extra.parts);
          writer.saveMessage();
          break;
        }
        case "error":
          throw event.error;
        case "abort":
          throw abort.reason ?? new DOMException("The step was aborted", "AbortError");
        default:
          break;
      }
    }
  } finally {
    // Text cut off by an error or abort still ends: it keeps what streamed, with an end time.
    for (const part of streaming.values()) {
      part.time = { start: part.time?.start ?? deps.now(), end: deps.now() };
      writer.save(part);
    }
  }
}

/** Parts a plugin added in `step.start` / `step.finish` (a snapshot's patch …), validated before they are stored. */
function saveExtraParts(deps: ProcessorDeps, writer: PartWriter, parts: readonly unknown[]): Part[] {
  const saved: Part[] = [];
  for (const raw of parts) {
    const given = (raw as { id?: unknown }).id;
    const parsed = PartSchema.safeParse({
      ...(raw as object),
      // Plugins may leave the id out or make up their own; the store needs an ascending prt_ id.
      id: typeof given === "string" && given.startsWith("prt_") ? given : newId("part"),
      sessionID: writer.message.sessionID,
      messageID: writer.message.id,
    });
    if (parsed.success) saved.push(writer.save(parsed.data));
    else deps.log.warn(`a plugin added an invalid part to a step; it was dropped: ${parsed.error.message}`);
  }
  return saved;
}

function abortedError(): MessageError {
  return { name: "AbortedError", message: "The step was aborted" };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : typeof error === "string" ? error : JSON.stringify(error);
}

function invalidCallMessage(tool: string, reason: unknown, tools: Record<string, Tool>): string {
  const names = Object.keys(tools);
  if (!names.includes(tool)) return `Unknown tool "${tool}". Available tools: ${names.join(", ") || "none"}.`;
  const detail = errorText(reason).replace(/^Invalid input for tool [^:]*:\s*/, "");
  return `Invalid input for tool "${tool}": ${detail}. Fix the input and call the tool again.`;
}
