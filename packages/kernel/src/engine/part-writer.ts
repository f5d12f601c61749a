import type { Bus } from "../bus/bus.js";
import { newId } from "../session/ids.js";
import type { AssistantMessage } from "../session/message.js";
import type { Part, ReasoningPart, TextPart } from "../session/part.js";
import type { SessionStore } from "../session/session-store.js";
import { MessagePartRemoved, MessagePartUpdated, MessageUpdated } from "./events.js";

/** How often streamed text is written to the store; deltas reach the bus at once. */
export const DEFAULT_FLUSH_INTERVAL_MS = 200;

type Streamed = TextPart | ReasoningPart;

/**
 * Writes one assistant message's parts. Streaming text is kept in memory and published delta by
 * delta; the store gets the new text appended at most once per flush interval (and at the end), so
 * a long answer costs a bounded number of writes, each appending only what is new.
 */
export class PartWriter {
  private readonly unflushed = new Map<string, { part: Streamed; text: string }>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: SessionStore,
    private readonly bus: Bus,
    readonly message: AssistantMessage,
    private readonly flushIntervalMs = DEFAULT_FLUSH_INTERVAL_MS,
  ) {}

  /** A new part of this message with a fresh id. */
  create<P extends Part>(fields: Omit<P, "id" | "sessionID" | "messageID">): P {
    return { id: newId("part"), sessionID: this.message.sessionID, messageID: this.message.id, ...fields } as P;
  }

  /** Stores and publishes a whole part (its full text supersedes any unflushed deltas). */
  save<P extends Part>(part: P): P {
    this.unflushed.delete(part.id);
    this.store.updatePart(part);
    this.bus.publish(MessagePartUpdated, { part });
    return part;
  }

  /** Appends streamed text: published now, stored on the next flush. */
  append(part: Streamed, delta: string): void {
    part.text += delta;
    const entry = this.unflushed.get(part.id);
    if (entry) entry.text += delta;
    else this.unflushed.set(part.id, { part, text: delta });
    // Deltas are the hot path (thousands per answer); the part was validated when it was created.
    this.bus.publish(MessagePartUpdated, { part, delta }, { trusted: true });
    this.timer ??= setTimeout(() => this.flush(), this.flushIntervalMs);
  }

  remove(part: Part): void {
    this.unflushed.delete(part.id);
    this.store.removePart(part.id);
    this.bus.publish(MessagePartRemoved, { sessionID: part.sessionID, messageID: part.messageID, partID: part.id });
  }

  saveMessage(): void {
    this.store.updateMessage(this.message);
    this.bus.publish(MessageUpdated, { info: this.message });
  }

  /** Writes every pending delta. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.unflushed.size === 0) return;
    const pending = [...this.unflushed.values()];
    this.unflushed.clear();
    this.store.transaction(() => {
      for (const { part, text } of pending) this.store.appendPartText(part.id, text);
    });
  }
}
