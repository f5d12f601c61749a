import type { Bus } from "../bus/bus.js";
import { SessionIdle, SessionStatusChanged, type SessionStatus } from "./events.js";

/** Each session's status (idle, busy, retry); every change is published. */
export class StatusTracker {
  private readonly statuses = new Map<string, SessionStatus>();

  constructor(private readonly bus: Bus) {}

  get(sessionID: string): SessionStatus {
    return this.statuses.get(sessionID) ?? { type: "idle" };
  }

  set(sessionID: string, status: SessionStatus): void {
    const previous = this.get(sessionID);
    if (previous.type === status.type && status.type !== "retry") return;
    if (status.type === "idle") this.statuses.delete(sessionID);
    else this.statuses.set(sessionID, status);
    this.bus.publish(SessionStatusChanged, { sessionID, status });
    if (status.type === "idle") this.bus.publish(SessionIdle, { sessionID });
  }
}
