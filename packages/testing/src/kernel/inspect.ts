import type { Kernel, ToolPart } from "@tessera/kernel";

export interface RecordedEvents {
  /** Every bus event, in order. */
  events: Array<{ type: string; properties: any }>;
  /** Stops recording. */
  stop(): void;
  /** The properties of every event of `type`, in order. */
  of(type: string): any[];
}

/** Records every bus event of `kernel`, from now on. */
export function recordEvents(kernel: Kernel): RecordedEvents {
  const events: Array<{ type: string; properties: any }> = [];
  const stop = kernel.bus.subscribeAll((event) => events.push(event as { type: string; properties: any }));
  return { events, stop, of: (type: string): any[] => events.filter((e) => e.type === type).map((e) => e.properties) };
}

/** The tool parts of a session, as stored, in order. */
export function toolParts(kernel: Kernel, sessionID: string): ToolPart[] {
  return kernel.sessions.store
    .listMessages(sessionID)
    .flatMap((m) => m.parts)
    .filter((p): p is ToolPart => p.type === "tool");
}
