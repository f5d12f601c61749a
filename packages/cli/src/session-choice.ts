import type { Kernel, SessionInfo } from "@tessera/kernel";
import { UsageError } from "./exit-codes.js";

export interface SessionFlags {
  readonly continue?: boolean;
  readonly session?: string;
  readonly fork?: boolean;
  readonly title?: string;
  /** A title for a new session when `--title` gives none (a one-shot run names it after its prompt). */
  readonly defaultTitle?: string;
}

/** The session a run talks to: `-s <id>`, `-c` (the latest top-level session here), else a new one; `--fork` copies it first. */
export function chooseSession(kernel: Kernel, flags: SessionFlags): SessionInfo {
  const engine = kernel.sessions;
  let session: SessionInfo | undefined;
  if (flags.session) {
    session = engine.store.getSession(flags.session);
    if (!session) throw new UsageError(`no session "${flags.session}"; "tessera sessions list" shows them`);
  } else if (flags.continue) {
    session = engine.store.listSessions({ parentID: null, directory: kernel.directory, limit: 1 })[0];
    if (!session) throw new UsageError(`there is no session to continue in ${kernel.directory}`);
  } else if (flags.fork) {
    throw new UsageError("--fork needs a session to fork: add -c or -s <id>");
  }
  if (session && flags.fork) session = engine.fork(session.id);
  if (!session) {
    const title = flags.title ?? flags.defaultTitle;
    return engine.createSession(title ? { title } : {});
  }
  if (flags.title) session = engine.renameSession(session.id, flags.title);
  return session;
}

/**
 * A session title from a prompt: its first line, at most 50 characters. A one-shot run uses it
 * instead of asking the model for a title, which would cost a request after the answer.
 */
export function titleFromPrompt(prompt: string): string | undefined {
  const line = prompt.split("\n").map((l) => l.trim()).find((l) => l !== "");
  if (!line) return undefined;
  const plain = line.replace(/\s+/g, " ");
  return plain.length > 50 ? `${plain.slice(0, 49).trimEnd()}…` : plain;
}
