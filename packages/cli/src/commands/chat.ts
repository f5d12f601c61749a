import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { createInterface, type Interface } from "node:readline";
import { tesseraPaths, type Kernel, type MessageWithParts, type PermissionAsker, type SessionInfo } from "@tessera/kernel";
import { parseReply } from "../asker.js";
import { ExitCode } from "../exit-codes.js";
import { startKernel } from "../host.js";
import { parseGlobal, type CommandContext, type GlobalFlags } from "../main.js";
import { exportMarkdown } from "../render/export-markdown.js";
import { TextRenderer } from "../render/text-renderer.js";
import { DEMO_MODEL } from "./run.js";

const HISTORY_LIMIT = 500;

const HELP = `Commands:
  /help              this help
  /new               start a new session
  /sessions          list this directory's sessions; /sessions <id> switches to one
  /model [p/m]       show or set the model
  /agent [name]      show or set the agent
  /compact           compact the session now (needs a compaction plugin)
  /undo              remove the last exchange from the conversation (files are not reverted)
  /redo              bring back what /undo removed
  /export [file]     write the session as markdown (default: <session id>.md)
  /exit              quit (or Ctrl+D; Ctrl+C twice)
End a line with \\ to continue on the next line. Ctrl+C stops the running answer.
`;

/**
 * `tessera` with no arguments: a chat in the terminal. Reads lines (with history and `\` for
 * multi-line input), streams answers like `run`, asks permissions inline, and offers slash commands.
 */
export async function runChat(ctx: CommandContext): Promise<number> {
  const { values } = parseGlobal(ctx.argv, { model: { type: "string", short: "m" }, agent: { type: "string" }, auto: { type: "boolean" } });
  const flags = values as GlobalFlags & { model?: string; agent?: string; auto?: boolean };
  const { io } = ctx;
  const kernel = await startKernel(flags, io, { auto: flags.auto === true });
  const historyFile = join(tesseraPaths(io.env).state, "history");
  const rl = createInterface({
    input: ctx.stdin,
    output: process.stdout,
    terminal: ctx.stdin.isTTY === true && ctx.stdoutIsTTY,
    history: loadHistory(historyFile),
    historySize: HISTORY_LIMIT,
  });
  const state = new ChatState(kernel, flags.model ?? (kernel.config.config.model ? undefined : DEMO_MODEL), flags.agent);
  if (!kernel.config.config.model && !flags.model) {
    io.err(io.style.yellow("No model provider is configured: chatting with the offline demo model.\n"));
  }
  io.out(io.style.dim(`tessera chat in ${kernel.directory} — /help for commands\n`));

  let running: AbortController | undefined;
  let lastInterrupt = 0;
  const lines = lineReader(rl);
  if (!flags.auto) kernel.sessions.setAsker(chatAsker(rl, io.style));
  const onInterrupt = () => {
    if (running) {
      running.abort();
      return;
    }
    if (Date.now() - lastInterrupt < 2000) lines.close();
    else io.err(io.style.dim("\n(Ctrl+C again to exit)\n"));
    lastInterrupt = Date.now();
  };
  rl.on("SIGINT", onInterrupt);
  const stopInterrupts = ctx.interrupts.on(onInterrupt);

  try {
    for (;;) {
      const input = await lines.next(io.style.cyan("> "));
      if (input === undefined) break;
      const text = input.trim();
      if (text === "") continue;
      saveHistory(historyFile, text);
      if (text.startsWith("/")) {
        if ((await slash(text, state, io, kernel)) === "exit") break;
        continue;
      }
      const session = state.session();
      running = new AbortController();
      const renderer = new TextRenderer(io, { sessionID: session.id, tty: ctx.stdoutIsTTY });
      renderer.attach(kernel);
      try {
        const result = await kernel.sessions.prompt({
          sessionID: session.id,
          text,
          abort: running.signal,
          ...(state.model ? { model: state.model } : {}),
          ...(state.agent ? { agent: state.agent } : {}),
        });
        state.redo = [];
        const info = result.assistant?.info;
        if (info?.role === "assistant") renderer.summary(info.tokens, info.cost);
      } catch (error) {
        io.err(io.style.red(`✗ ${(error as Error).message}\n`));
      } finally {
        renderer.detach();
        running = undefined;
      }
    }
  } finally {
    stopInterrupts();
    rl.close();
    await kernel.dispose();
  }
  return ExitCode.ok;
}

/** The chat's current session, model and agent, and what /undo took away. */
class ChatState {
  private current: SessionInfo | undefined;
  redo: MessageWithParts[] = [];

  constructor(
    private readonly kernel: Kernel,
    public model: string | undefined,
    public agent: string | undefined,
  ) {}

  session(): SessionInfo {
    this.current ??= this.kernel.sessions.createSession();
    return this.current;
  }

  switchTo(session: SessionInfo | undefined): void {
    this.current = session;
    this.redo = [];
  }
}

async function slash(line: string, state: ChatState, io: CommandContext["io"], kernel: Kernel): Promise<"exit" | void> {
  const [command = "", ...args] = line.slice(1).split(/\s+/);
  const arg = args.join(" ");
  const { dim } = io.style;
  const store = kernel.sessions.store;
  switch (command) {
    case "help":
      io.out(HELP);
      return;
    case "exit":
    case "quit":
      return "exit";
    case "new":
      state.switchTo(undefined);
      io.out(dim("new session\n"));
      return;
    case "sessions": {
      if (arg) {
        const session = store.getSession(arg);
        if (!session) io.err(`no session ${arg}\n`);
        else {
          state.switchTo(session);
          io.out(dim(`switched to ${session.id}: ${session.title}\n`));
        }
        return;
      }
      for (const s of store.listSessions({ parentID: null, directory: kernel.directory, limit: 20 })) io.out(`${s.id}  ${s.title}\n`);
      return;
    }
    case "model":
      if (arg) state.model = arg;
      io.out(dim(`model: ${state.model ?? kernel.config.config.model ?? "(none)"}\n`));
      return;
    case "agent":
      if (arg) {
        if (!kernel.agents.get(arg)) io.err(`no agent "${arg}" (agents: ${kernel.agents.list().filter((a) => !a.hidden && a.mode !== "subagent").map((a) => a.id).join(", ")})\n`);
        else state.agent = arg;
      }
      io.out(dim(`agent: ${state.agent ?? "build"}\n`));
      return;
    case "compact": {
      const result = await kernel.sessions.compact(state.session().id);
      io.out(dim(result === "unavailable" ? "no compaction plugin is loaded\n" : `compacted (${result})\n`));
      return;
    }
    case "undo": {
      const messages = store.listMessages(state.session().id);
      const lastUser = messages.map((m) => m.info.role).lastIndexOf("user");
      if (lastUser === -1) {
        io.out(dim("nothing to undo\n"));
        return;
      }
      const removed = messages.slice(lastUser);
      store.transaction(() => {
        for (const m of removed) store.removeMessage(m.info.id);
      });
      state.redo.push(...removed);
      io.out(dim(`removed the last exchange (${removed.length} messages); /redo brings it back\n`));
      return;
    }
    case "redo": {
      if (state.redo.length === 0) {
        io.out(dim("nothing to redo\n"));
        return;
      }
      const restore = state.redo.splice(0);
      store.transaction(() => {
        for (const m of restore) {
          store.updateMessage(m.info);
          for (const p of m.parts) store.updatePart(p);
        }
      });
      io.out(dim(`restored ${restore.length} messages\n`));
      return;
    }
    case "export": {
      const session = state.session();
      const file = resolve(kernel.directory, arg || `${session.id}.md`);
      writeFileSync(file, exportMarkdown(store.getSession(session.id)!, store.listMessages(session.id)));
      io.out(dim(`wrote ${file}\n`));
      return;
    }
    default:
      io.err(`unknown command /${command}; /help lists them\n`);
  }
}

/** Reads one (possibly multi-line) input at a time; undefined at end of input. */
function lineReader(rl: Interface) {
  const queue: string[] = [];
  const waiting: Array<(line: string | undefined) => void> = [];
  let closed = false;
  rl.on("line", (line) => {
    const next = waiting.shift();
    if (next) next(line);
    else queue.push(line);
  });
  rl.on("close", () => {
    closed = true;
    for (const next of waiting.splice(0)) next(undefined);
  });
  const one = () =>
    new Promise<string | undefined>((resolve) => {
      if (queue.length > 0) return resolve(queue.shift());
      if (closed) return resolve(undefined);
      waiting.push(resolve);
    });
  return {
    async next(prompt: string): Promise<string | undefined> {
      rl.setPrompt(prompt);
      rl.prompt();
      let text = "";
      for (;;) {
        const line = await one();
        if (line === undefined) return text === "" ? undefined : text;
        if (!line.endsWith("\\")) return text + line;
        text += `${line.slice(0, -1)}\n`;
        rl.setPrompt("… ");
        rl.prompt();
      }
    },
    close: () => rl.close(),
  };
}

/** Permission prompts inside the chat use the chat's own line editor. */
function chatAsker(rl: Interface, style: CommandContext["io"]["style"]): PermissionAsker {
  return (request, signal) =>
    new Promise((resolve) => {
      const ask = () => {
        const patterns = request.patterns.filter((p) => p !== "*").join(", ");
        rl.question(`${style.yellow("?")} Allow ${request.permission}${patterns ? ` ${patterns}` : ""}? ${style.dim("[o]nce / [a]lways / [r]eject:")} `, { signal }, (answer) => {
          const reply = parseReply(answer);
          if (reply) resolve(reply);
          else ask();
        });
      };
      signal.addEventListener("abort", () => resolve("reject"), { once: true });
      ask();
    });
}

function loadHistory(file: string): string[] {
  try {
    return readFileSync(file, "utf8").split("\n").filter(Boolean).slice(-HISTORY_LIMIT).reverse();
  } catch {
    return [];
  }
}

function saveHistory(file: string, line: string): void {
  try {
    mkdirSync(dirname(file), { recursive: true });
    appendFileSync(file, `${line.replace(/\n/g, " ")}\n`);
  } catch {
    // History is a convenience; a read-only state folder must not stop the chat.
  }
}
