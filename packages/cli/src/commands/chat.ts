import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { createInterface, type Interface } from "node:readline";
import { tesseraPaths, type Kernel, type MessageWithParts, type PermissionAsker, type SessionInfo } from "@tessera/kernel";
import { parseReply } from "../asker.js";
import { ExitCode } from "../exit-codes.js";
import { startKernel } from "../host.js";
import { chatOptions, parseGlobal, type CommandContext, type GlobalFlags } from "../main.js";
import { exportMarkdown } from "../render/export-markdown.js";
import { TextRenderer } from "../render/text-renderer.js";
import { DEMO_MODEL, sum, turnMessages } from "./run.js";

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
  const { values } = parseGlobal(ctx.argv, chatOptions);
  const flags = values as GlobalFlags & { model?: string; agent?: string; auto?: boolean };
  const { io } = ctx;
  const kernel = await startKernel(flags, io, { auto: flags.auto === true });
  const historyFile = join(tesseraPaths(io.env).state, "history");
  const terminal = ctx.stdin.isTTY === true && ctx.stdoutIsTTY;
  const rl = createInterface({
    input: ctx.stdin,
    output: process.stdout,
    terminal,
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
  // Prompts go where readline writes them.
  const toPrompt = (text: string) => void process.stdout.write(text);
  const lines = lineReader(rl, toPrompt, terminal);
  if (!flags.auto) kernel.sessions.setAsker(chatAsker(lines, toPrompt, io.style));
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
        // Like run: the usage of every step of the turn, not only the last.
        if (result.assistant) {
          const usage = sum(turnMessages(kernel, session.id, result.user.info.id));
          renderer.summary(usage.tokens, usage.cost);
        }
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

/**
 * Reads one (possibly multi-line) input at a time; undefined at end of input. Permission answers
 * come from the same queue, so piped input answers prompts in order; on a terminal they are typed
 * after the question, and lines typed ahead stay messages.
 */
function lineReader(rl: Interface, write: (text: string) => void, terminal: boolean) {
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
  const one = (signal?: AbortSignal, fresh = false) =>
    new Promise<string | undefined>((resolve) => {
      if (queue.length > 0 && !fresh) return resolve(queue.shift());
      if (closed || signal?.aborted) return resolve(undefined);
      const take = (line: string | undefined) => {
        signal?.removeEventListener("abort", cancel);
        resolve(line);
      };
      const cancel = () => {
        const index = waiting.indexOf(take);
        if (index !== -1) waiting.splice(index, 1);
        resolve(undefined);
      };
      signal?.addEventListener("abort", cancel, { once: true });
      waiting.push(take);
    });
  // A closed interface (end of piped input) throws on prompt().
  const prompt = (text: string) => {
    if (closed) return;
    rl.setPrompt(text);
    rl.prompt();
  };
  return {
    async next(text: string): Promise<string | undefined> {
      prompt(text);
      let input = "";
      for (;;) {
        const line = await one();
        if (line === undefined) return input === "" ? undefined : input;
        if (!line.endsWith("\\")) return input + line;
        input += `${line.slice(0, -1)}\n`;
        prompt("… ");
      }
    },
    /** One raw line after showing `text`; undefined at end of input or on abort. */
    async answer(text: string, signal: AbortSignal): Promise<string | undefined> {
      // The question stays visible after the end of piped input, where prompt() shows nothing.
      if (closed) write(text);
      else prompt(text);
      return one(signal, terminal);
    },
    close: () => rl.close(),
  };
}

/** Permission prompts inside the chat read the chat's next input line; end of input rejects. */
function chatAsker(lines: ReturnType<typeof lineReader>, output: (text: string) => void, style: CommandContext["io"]["style"]): PermissionAsker {
  return async (request, signal) => {
    const patterns = request.patterns.filter((p) => p !== "*").join(", ");
    const question = `${style.yellow("?")} Allow ${request.permission}${patterns ? ` ${patterns}` : ""}? ${style.dim("[o]nce / [a]lways / [r]eject:")} `;
    for (;;) {
      const answer = await lines.answer(question, signal);
      if (answer === undefined) {
        output(style.dim(signal.aborted ? "(cancelled)\n" : "(no input: rejected)\n"));
        return "reject";
      }
      const reply = parseReply(answer);
      if (reply) return reply;
    }
  };
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
