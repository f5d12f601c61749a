import type { CompactionStrategy } from "../definitions.js";
import type { MessageWithParts } from "../session/messages.js";
import type { ModelRef } from "../session/message.js";
import type { SessionInfo } from "../session/session-info.js";
import type { EngineContext } from "./context.js";
import { MessagePartUpdated, MessageUpdated, SessionCreated, SessionDeleted, SessionUpdated } from "./events.js";
import { runLoop } from "./loop.js";
import { parseModelRef, resolveModel } from "./models.js";
import type { PermissionAsker } from "./permission.js";
import { DEFAULT_AGENT } from "./builtin-agents.js";
import { defaultTitle, generateTitle } from "./title.js";
import { buildUserMessage, type PromptFile } from "./user-message.js";

export interface PromptInput {
  readonly sessionID: string;
  readonly text?: string;
  readonly files?: readonly PromptFile[];
  /** Defaults to the session's last agent, else `build`. */
  readonly agent?: string;
  /** `"provider/model"`; defaults to the agent's model, the config's `model`, then the session's last model. */
  readonly model?: string | ModelRef;
  /** Extra system prompt for this turn. */
  readonly system?: string;
  /** Tool switches for this turn, e.g. `{ bash: false }`. */
  readonly tools?: Record<string, boolean>;
  /** Store the message without asking the model. */
  readonly noReply?: boolean;
  readonly abort?: AbortSignal;
}

export interface PromptResult {
  /** The user message that was stored. */
  readonly user: MessageWithParts;
  /** The last assistant message answering it (undefined with `noReply`, or when the turn could not start). */
  readonly assistant?: MessageWithParts;
}

/** How long closing waits for a background title before cancelling it. */
export const TITLE_GRACE_MS = 2000;

interface Running {
  readonly controller: AbortController;
  readonly done: Promise<void>;
}

/**
 * The session engine: sessions on disk, prompts, the agent loop and subtasks. One loop runs per
 * session at a time; a prompt sent while it runs is stored at once and answered by that loop (or
 * the next one), never concurrently.
 */
export class SessionEngine {
  private readonly running = new Map<string, Running>();
  private readonly background = new Set<Promise<void>>();
  private readonly closing = new AbortController();

  constructor(private readonly ctx: EngineContext) {}

  get store() {
    return this.ctx.store;
  }

  /** Sets (or clears) the interactive asker for permission requests; without one, asks are denied. */
  setAsker(asker: PermissionAsker | undefined): void {
    this.ctx.gate.setAsker(asker);
  }

  status(sessionID: string) {
    return this.ctx.status.get(sessionID);
  }

  createSession(input: { title?: string; parentID?: string; directory?: string } = {}): SessionInfo {
    const info = this.ctx.store.createSession({
      directory: input.directory ?? this.ctx.config.directory,
      title: input.title ?? defaultTitle(this.ctx.now()),
      ...(input.parentID ? { parentID: input.parentID } : {}),
    });
    this.ctx.bus.publish(SessionCreated, { info });
    return info;
  }

  fork(sessionID: string, upToMessageID?: string): SessionInfo {
    const info = this.ctx.store.fork(sessionID, upToMessageID);
    this.ctx.bus.publish(SessionCreated, { info });
    return info;
  }

  deleteSession(sessionID: string): boolean {
    this.abort(sessionID);
    const deleted = this.ctx.store.deleteSession(sessionID);
    if (deleted) this.ctx.bus.publish(SessionDeleted, { sessionID });
    return deleted;
  }

  renameSession(sessionID: string, title: string): SessionInfo {
    const info = this.ctx.store.updateSession(sessionID, { title });
    this.ctx.bus.publish(SessionUpdated, { info });
    return info;
  }

  /** Stores a user message (after `chat.message`) and runs the loop until the turn is done. */
  async prompt(input: PromptInput): Promise<PromptResult> {
    const session = this.ctx.store.getSession(input.sessionID);
    if (!session) throw new Error(`no session ${input.sessionID}`);
    const previous = this.lastUser(session.id);
    const agentID = input.agent ?? previous?.agent ?? DEFAULT_AGENT;
    const agent = this.ctx.agents.get(agentID);
    if (!agent) {
      throw new Error(`no agent "${agentID}" (known: ${this.ctx.agents.list().filter((a) => !a.hidden).map((a) => a.id).join(", ")})`);
    }
    const modelRef = input.model ?? agent.model ?? this.ctx.config.config.model ?? previous?.model;
    if (!modelRef) {
      throw new Error('no model is configured: set "model" in tessera.config.json (e.g. "anthropic/claude-sonnet-4-5"), or pass one with --model');
    }
    const built = buildUserMessage({
      sessionID: session.id,
      directory: session.directory,
      text: input.text ?? "",
      files: input.files ?? [],
      agent: agent.id,
      model: parseModelRef(modelRef),
      ...(input.system ? { system: input.system } : {}),
      ...(input.tools ? { tools: input.tools } : {}),
      agents: this.ctx.agents.list(),
      now: this.ctx.now(),
    });
    const hooked = await this.ctx.trigger(
      "chat.message",
      { sessionID: session.id, agent: agent.id, model: built.message.model },
      { message: built.message, parts: built.parts },
    );
    const message = hooked.message as typeof built.message;
    // Parts a tap added carry no session or message id: the stored (and published) parts get them here.
    const parts = (hooked.parts as typeof built.parts).map((part) => ({ ...part, sessionID: session.id, messageID: message.id }));
    this.ctx.store.transaction(() => {
      this.ctx.store.updateMessage(message);
      for (const part of parts) this.ctx.store.updatePart(part);
    });
    this.ctx.bus.publish(MessageUpdated, { info: message });
    for (const part of parts) this.ctx.bus.publish(MessagePartUpdated, { part });
    const user = this.ctx.store.getMessage(message.id)!;
    if (input.noReply) return { user };

    const unlink = link(input.abort, () => this.abort(session.id));
    try {
      await this.drive(session.id);
    } finally {
      unlink();
    }
    const answers = this.ctx.store.listMessages(session.id).filter((m) => m.info.role === "assistant" && m.info.parentID === message.id);
    const assistant = answers.at(-1);
    return assistant ? { user, assistant } : { user };
  }

  /** Aborts the running step of a session (the store stays consistent; the loop stops). */
  abort(sessionID: string): void {
    this.running.get(sessionID)?.controller.abort(new DOMException("aborted by the user", "AbortError"));
  }

  /** Runs a subagent in a child session and returns its final text. */
  async subtask(parent: SessionInfo, input: { agent: string; prompt: string; description: string }, abort: AbortSignal) {
    const agent = this.ctx.agents.get(input.agent);
    if (!agent || agent.mode === "primary") {
      const known = this.ctx.agents.list().filter((a) => a.mode !== "primary" && !a.hidden).map((a) => a.id);
      throw new Error(`"${input.agent}" is not a subagent (subagents: ${known.join(", ") || "none"})`);
    }
    const child = this.createSession({ parentID: parent.id, directory: parent.directory, title: `${input.description} (@${agent.id})` });
    const parentModel = this.lastUser(parent.id)?.model;
    const result = await this.prompt({
      sessionID: child.id,
      text: input.prompt,
      agent: agent.id,
      ...(agent.model ? {} : parentModel ? { model: parentModel } : {}),
      abort,
    });
    const assistant = result.assistant;
    if (assistant?.info.role === "assistant" && assistant.info.error) {
      throw new Error(`the ${agent.id} subagent failed: ${assistant.info.error.message}`);
    }
    const text = (assistant?.parts ?? [])
      .filter((p) => p.type === "text" && !p.synthetic)
      .map((p) => (p.type === "text" ? p.text : ""))
      .join("\n");
    return { sessionID: child.id, text };
  }

  /** Compacts a session now, with the first registered strategy. */
  async compact(sessionID: string): Promise<"continue" | "stop" | "unavailable"> {
    const strategy: CompactionStrategy | undefined = this.ctx.compactions.list()[0];
    if (!strategy) return "unavailable";
    const user = this.lastUser(sessionID);
    if (!user) return "unavailable";
    const controller = new AbortController();
    const model = await resolveModel(this.ctx.providers, user.model);
    return strategy.compact({
      sessionID,
      store: this.ctx.store,
      model: { ...user.model, language: model.language, ...(model.info ? { info: model.info } : {}) },
      abort: controller.signal,
      reason: "manual",
    });
  }

  /** Waits for running loops and titles, then closes the store. */
  async close(): Promise<void> {
    for (const { controller } of this.running.values()) controller.abort(new DOMException("the engine is closing", "AbortError"));
    await Promise.allSettled([...this.running.values()].map((r) => r.done));
    // A title still being written gets a short grace, so a one-shot run's session is named too.
    if (this.background.size > 0) {
      const grace = new Promise<void>((resolve) => setTimeout(resolve, TITLE_GRACE_MS).unref());
      await Promise.race([Promise.allSettled([...this.background]), grace]);
    }
    this.closing.abort();
    await Promise.allSettled([...this.background]);
    this.ctx.store.close();
  }

  /** Runs (or joins) the session's loop until no user message is left unanswered. */
  private async drive(sessionID: string): Promise<void> {
    for (;;) {
      const current = this.running.get(sessionID);
      if (current) {
        await current.done;
        continue;
      }
      const controller = new AbortController();
      let first = true;
      const done = runLoop(this.ctx, sessionID, controller.signal, {
        subtask: (parent, input, abort) => this.subtask(parent, input, abort),
        afterFirstStep: (session, history) => {
          if (!first) return;
          first = false;
          this.track(generateTitle(this.ctx, session, history, this.closing.signal));
        },
      })
        .catch((error: unknown) => {
          this.ctx.log.error(`the loop of ${sessionID} failed: ${(error as Error)?.stack ?? String(error)}`);
          throw error;
        })
        .finally(() => {
          this.running.delete(sessionID);
          this.ctx.status.set(sessionID, { type: "idle" });
        });
      this.running.set(sessionID, { controller, done: done.catch(() => undefined) });
      this.ctx.status.set(sessionID, { type: "busy" });
      await done;
      return;
    }
  }

  private track(promise: Promise<void>): void {
    this.background.add(promise);
    void promise.finally(() => this.background.delete(promise));
  }

  private lastUser(sessionID: string) {
    const messages = this.ctx.store.listMessages(sessionID);
    for (let i = messages.length - 1; i >= 0; i--) {
      const info = messages[i]!.info;
      if (info.role === "user") return info;
    }
    return undefined;
  }
}

/** Forwards an outside abort signal; returns the function that stops forwarding. */
function link(signal: AbortSignal | undefined, onAbort: () => void): () => void {
  if (!signal) return () => undefined;
  if (signal.aborted) {
    onAbort();
    return () => undefined;
  }
  signal.addEventListener("abort", onAbort, { once: true });
  return () => signal.removeEventListener("abort", onAbort);
}
