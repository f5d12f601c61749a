import type { Kernel } from "@tessera/kernel";
import { ExitCode, UsageError } from "../exit-codes.js";
import { startKernel } from "../host.js";
import type { CliIO } from "../io.js";
import { parseGlobal, type CommandContext, type GlobalFlags } from "../main.js";
import { exportMarkdown } from "../render/export-markdown.js";

type Flags = GlobalFlags & { format?: string; all?: boolean };

/** `tessera sessions list | show <id> | export <id> [--format json|markdown] | delete <id> | fork <id>`. */
export async function runSessions({ argv, io }: CommandContext): Promise<number> {
  const { values, positionals } = parseGlobal(argv, { format: { type: "string" }, all: { type: "boolean" } });
  const flags = values as Flags;
  const [action = "list", id] = positionals;
  if (!["list", "show", "export", "delete", "fork"].includes(action)) {
    throw new UsageError(`unknown action "${action}"; use list, show, export, delete or fork`);
  }
  if (action !== "list" && !id) throw new UsageError(`"sessions ${action}" needs a session id`);
  // Listing and reading sessions needs no plugins; fork and delete don't either.
  const kernel = await startKernel(flags, io, { standard: false });
  try {
    const engine = kernel.sessions;
    if (action === "list") return list(kernel, flags, io);
    const session = engine.store.getSession(id!);
    if (!session) throw new UsageError(`no session "${id}"; "tessera sessions list" shows them`);
    if (action === "delete") {
      engine.deleteSession(session.id);
      io.out(flags.json ? `${JSON.stringify({ deleted: session.id })}\n` : `deleted ${session.id}\n`);
      return ExitCode.ok;
    }
    if (action === "fork") {
      const fork = engine.fork(session.id);
      io.out(flags.json ? `${JSON.stringify(fork)}\n` : `forked ${session.id} → ${fork.id}\n`);
      return ExitCode.ok;
    }
    const messages = engine.store.listMessages(session.id);
    const format = action === "export" ? (flags.format ?? (flags.json ? "json" : "markdown")) : flags.json ? "json" : "markdown";
    if (format !== "json" && format !== "markdown") throw new UsageError(`--format must be "json" or "markdown" (got "${format}")`);
    if (format === "json") io.out(`${JSON.stringify({ info: session, messages }, null, 2)}\n`);
    else io.out(exportMarkdown(session, messages));
    return ExitCode.ok;
  } finally {
    await kernel.dispose();
  }
}

function list(kernel: Kernel, flags: Flags, io: CliIO): number {
  const sessions = kernel.sessions.store.listSessions({ parentID: null, ...(flags.all ? {} : { directory: kernel.directory }) });
  if (flags.json) {
    io.out(`${JSON.stringify(sessions, null, 2)}\n`);
    return ExitCode.ok;
  }
  if (sessions.length === 0) {
    io.out(io.style.dim(`no sessions in ${kernel.directory}${flags.all ? "" : " (--all lists every directory)"}\n`));
    return ExitCode.ok;
  }
  for (const s of sessions) io.out(`${s.id}  ${io.style.dim(new Date(s.time.updated).toISOString().slice(0, 16).replace("T", " "))}  ${s.title}\n`);
  return ExitCode.ok;
}
