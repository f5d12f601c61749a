import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";

/** Token counts of a scripted step. Defaults: input 10, output 5, the rest 0. */
export interface StepUsage {
  input?: number;
  output?: number;
  reasoning?: number;
  cacheRead?: number;
  cacheWrite?: number;
}

/** A tool call of a scripted step; `input` objects are JSON-encoded, a string is sent verbatim. */
export interface StepToolCall {
  /** Default `call_N`, counting across the process. */
  id?: string;
  name: string;
  input: unknown;
}

/** A step made of content: what the model streams for one call. */
export interface StreamStep {
  text?: string;
  reasoning?: string;
  toolCalls?: StepToolCall[];
  /** Default `"tool-calls"` when there are tool calls, else `"stop"`. */
  finish?: "stop" | "tool-calls" | "length";
  usage?: StepUsage;
}

/** What a step function receives: the call's prompt and abort signal. */
export interface StepCall {
  prompt: unknown;
  abortSignal?: AbortSignal;
}

/**
 * One scripted model step: content, `{ error }` (the call throws it), or a function returning
 * the raw stream (see `rawStream` and `finishPart`).
 */
export type ScriptedStep =
  | StreamStep
  | { error: unknown }
  | ((call: StepCall) => ReadableStream<LanguageModelV4StreamPart> | Promise<ReadableStream<LanguageModelV4StreamPart>>);

let callCounter = 0;

/** The stream parts of a content step: `stream-start`, reasoning, text, tool calls, `finish` (in 4-character deltas). */
export function streamParts(step: StreamStep): LanguageModelV4StreamPart[] {
  const parts: LanguageModelV4StreamPart[] = [{ type: "stream-start", warnings: [] }];
  if (step.reasoning) {
    parts.push({ type: "reasoning-start", id: "r1" });
    for (const chunk of chunks(step.reasoning)) parts.push({ type: "reasoning-delta", id: "r1", delta: chunk });
    parts.push({ type: "reasoning-end", id: "r1" });
  }
  if (step.text) {
    parts.push({ type: "text-start", id: "t1" });
    for (const chunk of chunks(step.text)) parts.push({ type: "text-delta", id: "t1", delta: chunk });
    parts.push({ type: "text-end", id: "t1" });
  }
  for (const call of step.toolCalls ?? []) {
    const id = call.id ?? `call_${++callCounter}`;
    const input = typeof call.input === "string" ? call.input : JSON.stringify(call.input);
    parts.push({ type: "tool-input-start", id, toolName: call.name });
    parts.push({ type: "tool-input-delta", id, delta: input });
    parts.push({ type: "tool-input-end", id });
    parts.push({ type: "tool-call", toolCallId: id, toolName: call.name, input });
  }
  parts.push(finishPart(step.finish ?? (step.toolCalls?.length ? "tool-calls" : "stop"), step.usage));
  return parts;
}

function chunks(text: string): string[] {
  return text.match(/.{1,4}/gs) ?? [];
}

/** A `finish` stream part with the given usage (the same defaults as scripted steps). */
export function finishPart(reason: "stop" | "tool-calls" | "length" | "error" = "stop", u: StepUsage = {}): LanguageModelV4StreamPart {
  return {
    type: "finish",
    finishReason: { unified: reason, raw: undefined },
    usage: {
      inputTokens: { total: (u.input ?? 10) + (u.cacheRead ?? 0) + (u.cacheWrite ?? 0), noCache: u.input ?? 10, cacheRead: u.cacheRead ?? 0, cacheWrite: u.cacheWrite ?? 0 },
      outputTokens: { total: (u.output ?? 5) + (u.reasoning ?? 0), text: u.output ?? 5, reasoning: u.reasoning ?? 0 },
    },
  };
}

/** A raw model stream: `stream-start`, then `parts` as given. */
export function rawStream(parts: LanguageModelV4StreamPart[]): ReadableStream<LanguageModelV4StreamPart> {
  return convertArrayToReadableStream<LanguageModelV4StreamPart>([{ type: "stream-start", warnings: [] }, ...parts]);
}

export interface ScriptedModel {
  /** The mock (`ai/test`): `mock/mock-model`; `model.doStreamCalls` records every call's options. */
  model: MockLanguageModelV4;
  /** Steps not played yet. */
  remaining(): number;
}

/** A mock language model that plays `script`, one step per `doStream` call; a call past the end throws. */
export function scriptedModel(script: ScriptedStep[]): ScriptedModel {
  const queue = [...script];
  const model = new MockLanguageModelV4({
    provider: "mock",
    modelId: "mock-model",
    doStream: async (options) => {
      const step = queue.shift();
      if (!step) throw new Error("the scripted model has no step left");
      if (typeof step === "function") return { stream: await step({ prompt: options.prompt, ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}) }) };
      if ("error" in step) throw step.error;
      return { stream: convertArrayToReadableStream(streamParts(step)) };
    },
  });
  return { model, remaining: () => queue.length };
}
