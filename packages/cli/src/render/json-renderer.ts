import type { BusEvent, Kernel, Part, SessionStatus, StepFinishPart } from "@tessera/kernel";
import type { JsonEvent } from "../json-events.js";

type Emit = (event: JsonEvent) => void;
type Omitted = "timestamp" | "sessionID";
type Without<T> = T extends unknown ? Omit<T, Omitted> : never;

/**
 * Turns one session's bus events into the documented JSON lines of `--format json`
 * (see json-events.ts): text deltas and final text, tool calls at each state, step starts and
 * finishes with usage, permission decisions, retries and errors.
 */
export class JsonRenderer {
  private unsubscribe: (() => void) | undefined;
  private readonly toolStates = new Map<string, string>();

  constructor(
    private readonly sessionID: string,
    private readonly write: (line: string) => void,
  ) {}

  emit(event: Without<JsonEvent>): void {
    const full = { ...event, timestamp: Date.now(), sessionID: this.sessionID } as JsonEvent;
    this.write(`${JSON.stringify(full)}\n`);
  }

  attach(kernel: Kernel): void {
    this.unsubscribe = kernel.bus.subscribeAll((event) => this.onEvent(event));
  }

  detach(): void {
    this.unsubscribe?.();
  }

  private onEvent(event: BusEvent): void {
    const props = event.properties as Record<string, unknown>;
    if (props.sessionID !== undefined && props.sessionID !== this.sessionID) return;
    switch (event.type) {
      case "message.part.updated":
        return this.part(props.part as Part, props.delta as string | undefined);
      case "session.status": {
        const status = props.status as SessionStatus;
        if (status.type === "retry") this.emit({ type: "retry", attempt: status.attempt, message: status.message, next: status.next });
        return;
      }
      case "session.error": {
        const error = props.error as { name: string; message: string };
        return this.emit({ type: "error", name: error.name, message: error.message });
      }
      case "permission.decided":
        return this.emit({
          type: "permission",
          permission: props.permission as string,
          patterns: props.patterns as string[],
          status: props.status as "allow" | "deny",
          decidedBy: props.decidedBy as string,
          ...(typeof props.reason === "string" ? { reason: props.reason } : {}),
        });
      default:
        return;
    }
  }

  private part(part: Part, delta: string | undefined): void {
    if (part.sessionID !== this.sessionID) return;
    const ids = { messageID: part.messageID, partID: part.id };
    switch (part.type) {
      case "step-start":
        return this.emit({ type: "step.start", messageID: part.messageID });
      case "text":
        if (delta !== undefined) return this.emit({ type: "text.delta", ...ids, delta });
        if (part.time?.end !== undefined && !part.synthetic) this.emit({ type: "text", ...ids, text: part.text });
        return;
      case "reasoning":
        if (delta === undefined && part.time?.end !== undefined) this.emit({ type: "reasoning", ...ids, text: part.text });
        return;
      case "step-finish": {
        const finish = part as StepFinishPart;
        return this.emit({ type: "step.finish", messageID: part.messageID, reason: finish.reason, tokens: finish.tokens, cost: finish.cost });
      }
      case "tool": {
        const state = part.state;
        if (state.status === "pending" || this.toolStates.get(part.id) === state.status) return;
        this.toolStates.set(part.id, state.status);
        return this.emit({
          type: "tool",
          ...ids,
          callID: part.callID,
          tool: part.tool,
          status: state.status,
          input: state.input,
          ...(state.status !== "error" && state.title ? { title: state.title } : {}),
          ...(state.status === "completed" ? { output: state.output, metadata: state.metadata } : {}),
          ...(state.status === "error" ? { error: state.error } : {}),
        });
      }
      default:
        return;
    }
  }
}
