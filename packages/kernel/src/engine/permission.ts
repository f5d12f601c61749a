import type { Bus, EventProperties } from "../bus/bus.js";
import type { PermissionAskOutput, PermissionRequest } from "../hooks/types.js";
import { newId } from "../session/ids.js";
import { PermissionAsked, PermissionDecided, PermissionReplied, type PermissionReply } from "./events.js";

/** A request as the interactive asker sees it, with an id to answer by. */
export interface AskRequest extends PermissionRequest {
  readonly id: string;
  /** Why it asks, from the plugin that left it at "ask" (the rule, what "always" would store). */
  readonly reason?: string;
}

/**
 * The interactive asker (a terminal prompt, an editor dialog). Resolves with the user's answer;
 * the signal fires when the request is cancelled (the step was aborted, or another request of
 * the session was rejected).
 */
export type PermissionAsker = (request: AskRequest, signal: AbortSignal) => Promise<PermissionReply>;

/** A tool call was not allowed. The message is what the model sees as the tool error. */
export class PermissionDeniedError extends Error {
  constructor(
    message: string,
    readonly request: PermissionRequest,
    readonly decidedBy: string,
  ) {
    super(message);
    this.name = "PermissionDeniedError";
  }
}

interface Pending {
  readonly controller: AbortController;
}

type Trigger = (hook: "permission.ask", input: PermissionRequest, output: PermissionAskOutput) => Promise<PermissionAskOutput>;

const describeRequest = (r: PermissionRequest) =>
  `${r.permission}${r.patterns.length > 0 ? ` (${r.patterns.join(", ")})` : ""}`;

/**
 * The ask flow every permission request takes: the `permission.ask` hook decides first; if the
 * answer is still "ask", the interactive asker is asked; with no asker (headless), it is denied.
 * Fails closed: any doubt is a denial with a message that says what to change.
 */
export class PermissionGate {
  private asker: PermissionAsker | undefined;
  private readonly pending = new Map<string, Set<Pending>>();

  constructor(
    private readonly trigger: Trigger,
    private readonly bus: Bus,
  ) {}

  setAsker(asker: PermissionAsker | undefined): void {
    this.asker = asker;
  }

  async ask(request: PermissionRequest, signal?: AbortSignal): Promise<void> {
    const decision = await this.trigger("permission.ask", request, { status: "ask" });
    const id = newId("permission");
    const event = {
      id,
      sessionID: request.sessionID,
      permission: request.permission,
      patterns: [...request.patterns],
      metadata: { ...request.metadata },
      ...(request.agent ? { agent: request.agent } : {}),
      ...(request.tool ? { tool: request.tool } : {}),
    };
    const decided = (status: "allow" | "deny", decidedBy: string, reason?: string) =>
      this.bus.publish(PermissionDecided, { ...event, status, decidedBy, ...(reason ? { reason } : {}) });

    if (decision.status === "allow") {
      decided("allow", decision.decidedBy ?? "plugin", decision.reason);
      return;
    }
    if (decision.status === "deny") {
      const by = decision.decidedBy ?? "plugin";
      decided("deny", by, decision.reason);
      throw new PermissionDeniedError(
        `Permission denied: ${describeRequest(request)}. ${decision.reason ? `${decision.reason} (decided by ${by})` : `Denied by ${by}.`}`,
        request,
        by,
      );
    }
    if (!this.asker) {
      const reason = "no one can approve it in a headless run";
      decided("deny", "headless", decision.reason ?? reason);
      const pattern = request.patterns[0] ?? "*";
      // The plugin that left it at "ask" knows the exact rule to suggest; else a generic one.
      const advice =
        decision.reason ??
        `To allow it, add a rule to the config: "permission": { "${request.permission}": { ${JSON.stringify(pattern)}: "allow" } }.`;
      throw new PermissionDeniedError(
        `Permission denied: ${describeRequest(request)} needs approval, and ${reason}. ${advice} Or run with --auto.`,
        request,
        "headless",
      );
    }

    const reason = decision.reason ? { reason: decision.reason } : {};
    const reply = await this.waitForReply({ ...request, id, ...reason }, { ...event, ...reason }, signal);
    this.bus.publish(PermissionReplied, { id, sessionID: request.sessionID, reply, request: event });
    if (reply === "reject") {
      decided("deny", "user", "rejected");
      this.rejectOthers(request.sessionID);
      throw new PermissionDeniedError(
        `The user rejected ${describeRequest(request)}. Do not retry it; ask the user how to proceed.`,
        request,
        "user",
      );
    }
    decided("allow", "user", reply);
  }

  private waitForReply(
    request: AskRequest,
    asked: EventProperties<typeof PermissionAsked>,
    signal?: AbortSignal,
  ): Promise<PermissionReply> {
    const asker = this.asker!;
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    let set = this.pending.get(request.sessionID);
    if (!set) this.pending.set(request.sessionID, (set = new Set()));
    const sessionSet = set;
    return new Promise<PermissionReply>((resolve, reject) => {
      const entry: Pending = { controller };
      sessionSet.add(entry);
      const cleanup = () => {
        sessionSet.delete(entry);
        if (sessionSet.size === 0) this.pending.delete(request.sessionID);
        signal?.removeEventListener("abort", onAbort);
      };
      controller.signal.addEventListener(
        "abort",
        () => {
          cleanup();
          reject(new PermissionDeniedError(`Permission request cancelled: ${describeRequest(request)}.`, request, "cancelled"));
        },
        { once: true },
      );
      this.bus.publish(PermissionAsked, asked);
      if (signal?.aborted) return controller.abort(signal.reason);
      asker(request, controller.signal).then(
        (reply) => {
          cleanup();
          resolve(reply);
        },
        (error: unknown) => {
          cleanup();
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }

  /** A rejection answers for the whole session: every other pending request is rejected too. */
  private rejectOthers(sessionID: string): void {
    const set = this.pending.get(sessionID);
    if (!set) return;
    for (const entry of [...set]) {
      entry.controller.abort();
    }
  }
}
