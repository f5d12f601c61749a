import type { ToolContext } from "../definitions.js";
import type { ToolPart } from "../session/part.js";
import { isDoomLoop, type RecentCall } from "./doom-loop.js";
import type { PartWriter } from "./part-writer.js";
import type { PermissionGate } from "./permission.js";
import { executeToolCall, type ToolCallDeps } from "./tool-call.js";

export interface ToolRunnerDeps extends ToolCallDeps {
  readonly gate: PermissionGate;
  readonly now: () => number;
}

/**
 * Owns the tool parts of one step: pending while the model streams the input, running while the
 * chokepoint executes it, then completed or error. Calls run concurrently; `settle()` waits for
 * all of them, and `interrupt()` turns whatever is unfinished into errors.
 */
export class ToolRunner {
  private readonly parts = new Map<string, ToolPart>();
  private readonly running: Promise<void>[] = [];

  constructor(
    private readonly deps: ToolRunnerDeps,
    private readonly writer: PartWriter,
    /** Calls earlier in this turn, oldest first, for doom-loop detection. */
    private readonly recent: RecentCall[],
    private readonly context: Omit<ToolContext, "ask" | "callID" | "metadata">,
  ) {}

  get(callID: string): ToolPart | undefined {
    return this.parts.get(callID);
  }

  /** The model started streaming a call's input. */
  pending(callID: string, tool: string): ToolPart {
    const part = this.writer.create<ToolPart>({ type: "tool", callID, tool, state: { status: "pending", input: {}, raw: "" } });
    this.parts.set(callID, part);
    return this.writer.save(part);
  }

  inputDelta(callID: string, delta: string): void {
    const part = this.parts.get(callID);
    if (part?.state.status === "pending") part.state.raw += delta;
  }

  /** The model finished a call: run it through the chokepoint. */
  call(callID: string, tool: string, input: unknown): void {
    const part = this.parts.get(callID) ?? this.pending(callID, tool);
    // A repaired call (ECHO → echo) has its tool's real name; the pending part has the model's spelling.
    part.tool = tool;
    const args = isRecord(input) ? input : {};
    const start = this.deps.now();
    part.state = { status: "running", input: args, time: { start } };
    this.writer.save(part);
    const previous = [...this.recent];
    this.recent.push({ tool, input });
    this.running.push(this.execute(part, previous, input, start));
  }

  /** The model's call could not be parsed or named an unknown tool: the error goes back to it. */
  fail(callID: string, tool: string, input: unknown, error: string): void {
    const part = this.parts.get(callID) ?? this.pending(callID, tool);
    const now = this.deps.now();
    const start = part.state.status === "running" ? part.state.time.start : now;
    part.state = { status: "error", input: isRecord(input) ? input : {}, error, time: { start, end: now } };
    this.writer.save(part);
  }

  /** A result the provider produced itself (provider-executed tools). */
  providerResult(callID: string, tool: string, input: unknown, output: unknown): void {
    const part = this.parts.get(callID) ?? this.pending(callID, tool);
    if (part.state.status === "completed" || part.state.status === "error") return;
    const now = this.deps.now();
    const start = part.state.status === "running" ? part.state.time.start : now;
    const text = typeof output === "string" ? output : JSON.stringify(output);
    part.state = { status: "completed", input: isRecord(input) ? input : {}, output: text, title: tool, metadata: {}, time: { start, end: now } };
    this.writer.save(part);
  }

  /** Waits for every call that is running. */
  async settle(): Promise<void> {
    while (this.running.length > 0) await Promise.allSettled(this.running.splice(0));
  }

  /** Calls whose input was still streaming: a failed attempt drops them. */
  dropPending(): void {
    for (const [callID, part] of this.parts) {
      if (part.state.status !== "pending") continue;
      this.writer.remove(part);
      this.parts.delete(callID);
    }
  }

  /** Turns every unfinished call into an error, so no part is left pending or running. */
  interrupt(reason: string): void {
    const now = this.deps.now();
    for (const part of this.parts.values()) {
      if (part.state.status !== "pending" && part.state.status !== "running") continue;
      const start = part.state.status === "running" ? part.state.time.start : now;
      part.state = { status: "error", input: part.state.input, error: reason, time: { start, end: now } };
      this.writer.save(part);
    }
  }

  private async execute(part: ToolPart, previous: RecentCall[], input: unknown, start: number): Promise<void> {
    const { context } = this;
    const toolContext = {
      ...context,
      callID: part.callID,
      metadata: (update: { title?: string; metadata?: Record<string, unknown> }) => {
        if (part.state.status !== "running") return;
        part.state = {
          ...part.state,
          ...(update.title !== undefined ? { title: update.title } : {}),
          ...(update.metadata ? { metadata: update.metadata } : {}),
        };
        this.writer.save(part);
      },
    };
    try {
      if (isDoomLoop(previous, { tool: part.tool, input })) {
        await this.deps.gate.ask(
          {
            permission: "doom_loop",
            patterns: [part.tool],
            metadata: { tool: part.tool, input },
            sessionID: context.sessionID,
            agent: context.agent,
            tool: { messageID: context.messageID, callID: part.callID },
          },
          context.abort,
        );
      }
      const result = await executeToolCall(this.deps, { tool: part.tool, callID: part.callID, args: input, context: toolContext });
      const end = this.deps.now();
      part.state = {
        status: "completed",
        input: part.state.input,
        output: result.output,
        title: result.title,
        metadata: result.metadata ?? {},
        time: { start, end },
        ...(result.attachments?.length
          ? {
              attachments: result.attachments.map((a) =>
                this.writer.create({ type: "file", mediaType: a.mediaType, url: a.url, ...(a.filename ? { filename: a.filename } : {}) }),
              ),
            }
          : {}),
      };
    } catch (error) {
      const message = context.abort.aborted ? "Tool execution aborted" : ((error as Error)?.message ?? String(error));
      part.state = { status: "error", input: part.state.input, error: message, time: { start, end: this.deps.now() } };
    }
    this.writer.save(part);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
