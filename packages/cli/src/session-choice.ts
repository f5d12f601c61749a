import type { Kernel, SessionInfo } from "@tessera/kernel";
import { UsageError } from "./exit-codes.js";

export interface SessionFlags {
  readonly continue?: boolean;
  readonly session?: string;
  readonly fork?: boolean;
  readonly title?: string;
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
  if (!session) return engine.createSession(flags.title ? { title: flags.title } : {});
  if (flags.title) session = engine.renameSession(session.id, flags.title);
  return session;
}
