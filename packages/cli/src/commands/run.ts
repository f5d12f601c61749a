import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { emptyTokens, type Kernel, type MessageWithParts, type Tokens } from "@tessera/kernel";
import { DEMO_MODEL } from "@tessera/plugin-providers";
import { createStdinAsker } from "../asker.js";
import { ExitCode, UsageError } from "../exit-codes.js";
import { startKernel } from "../host.js";
import type { CliIO } from "../io.js";
import { globalOptions, type CommandContext, type GlobalFlags } from "../main.js";
import { JsonRenderer } from "../render/json-renderer.js";
import { TextRenderer } from "../render/text-renderer.js";
import { chooseSession, titleFromPrompt } from "../session-choice.js";

export { DEMO_MODEL };

export const runOptions = {
  ...globalOptions,
  model: { type: "string", short: "m" },
  agent: { type: "string" },
  continue: { type: "boolean", short: "c" },
  session: { type: "string", short: "s" },
  fork: { type: "boolean" },
  title: { type: "string" },
  file: { type: "string", short: "f", multiple: true },
  format: { type: "string" },
  auto: { type: "boolean" },
} as const;

export interface RunFlags extends GlobalFlags {
  model?: string;
  agent?: string;
  continue?: boolean;
  session?: string;
  fork?: boolean;
  title?: string;
  file?: string[];
  format?: string;
  auto?: boolean;
}

/** `tessera run [message..]`: one prompt, streamed; exits 0, 1 (error), 2 (usage) or 130 (interrupted). */
export async function runRun(ctx: CommandContext): Promise<number> {
  const { values, positionals } = parseArgs({ args: ctx.argv, options: runOptions, allowPositionals: true, strict: true });
  const flags = values as RunFlags;
  if (flags.format && flags.format !== "json" && flags.format !== "text") {
    throw new UsageError(`--format must be "text" or "json" (got "${flags.format}")`);
  }
  const json = flags.format === "json";
  let message = positionals.join(" ");
  if (message === "" && !ctx.stdin.isTTY) message = readFileSync(0, "utf8").trim();
  if (message === "") throw new UsageError('give a message: tessera run "what should I do?"');

  const kernel = await startKernel(flags, ctx.io, { auto: flags.auto === true });
  let interrupted = false;
  let sessionID: string | undefined;
  let closeAsker = () => {};
  const stopInterrupts = ctx.interrupts.on(() => {
    interrupted = true;
    if (sessionID) kernel.sessions.abort(sessionID);
  });
  try {
    const demo = !flags.model && !kernel.config.config.model && !flags.continue && !flags.session;
    const model = flags.model ?? (demo ? DEMO_MODEL : undefined);
    const promptTitle = titleFromPrompt(message);
    const session = chooseSession(kernel, { ...flags, ...(promptTitle ? { defaultTitle: promptTitle } : {}) });
    sessionID = session.id;
    if (demo && !json) banner(ctx.io);

    const renderer = json ? new JsonRenderer(session.id, ctx.io.out) : new TextRenderer(ctx.io, { sessionID: session.id, tty: ctx.stdoutIsTTY });
    if (renderer instanceof JsonRenderer) {
      renderer.emit({
        type: "session",
        title: session.title,
        directory: session.directory,
        model: model ?? kernel.config.config.model ?? "(session's model)",
        agent: flags.agent ?? lastAgent(kernel, session.id) ?? "build",
        demo,
      });
    }
    // Permission prompts need the terminal (or piped answers); with --auto the permissions plugin answers.
    if (!flags.auto) {
      const { asker, close } = createStdinAsker(ctx.stdin, ctx.io.err, ctx.io.style);
      kernel.sessions.setAsker(asker);
      closeAsker = close;
    }
    renderer.attach(kernel);
    let result;
    try {
      result = await kernel.sessions.prompt({
        sessionID: session.id,
        text: message,
        ...(flags.file ? { files: flags.file.map((path) => ({ path })) } : {}),
        ...(model ? { model } : {}),
        ...(flags.agent ? { agent: flags.agent } : {}),
      });
    } finally {
      renderer.detach();
    }
    const turn = turnMessages(kernel, session.id, result.user.info.id);
    const usage = sum(turn);
    const last = result.assistant;
    const error = last?.info.role === "assistant" ? last.info.error : undefined;
    const status = interrupted || error?.name === "AbortedError" ? "aborted" : error ? "error" : "completed";
    if (renderer instanceof JsonRenderer) {
      renderer.emit({ type: "done", status, tokens: usage.tokens, cost: usage.cost, text: finalText(last) });
    } else {
      renderer.summary(usage.tokens, usage.cost);
      if (status === "aborted") ctx.io.err(ctx.io.style.dim(`interrupted; continue with: tessera run -s ${session.id} "…"\n`));
    }
    if (status === "aborted") return ExitCode.interrupted;
    return status === "error" ? ExitCode.error : ExitCode.ok;
  } finally {
    closeAsker();
    stopInterrupts();
    await kernel.dispose();
  }
}

function banner(io: CliIO): void {
  const { yellow, dim } = io.style;
  io.err(
    `${yellow("No model provider is configured: running the offline demo model.")}\n` +
      dim('To use a real model, set "model" (and a provider key such as ANTHROPIC_API_KEY) in tessera.config.json; see packages/plugin-providers/README.md.\n'),
  );
}

/** The agent of the session's last user message: the one a continued session keeps (as the engine does). */
function lastAgent(kernel: Kernel, sessionID: string): string | undefined {
  const last = kernel.sessions.store.listMessages(sessionID).findLast((m) => m.info.role === "user");
  return last?.info.role === "user" ? last.info.agent : undefined;
}

/** The assistant messages answering one user message (every step of the turn). */
export function turnMessages(kernel: Kernel, sessionID: string, userID: string): MessageWithParts[] {
  return kernel.sessions.store.listMessages(sessionID).filter((m) => m.info.role === "assistant" && m.info.parentID === userID);
}

export function sum(messages: MessageWithParts[]): { tokens: Tokens; cost: number } {
  const tokens = emptyTokens();
  let cost = 0;
  for (const { info } of messages) {
    if (info.role !== "assistant") continue;
    tokens.input += info.tokens.input;
    tokens.output += info.tokens.output;
    tokens.reasoning += info.tokens.reasoning;
    tokens.cache.read += info.tokens.cache.read;
    tokens.cache.write += info.tokens.cache.write;
    cost += info.cost;
  }
  return { tokens, cost };
}

function finalText(message: MessageWithParts | undefined): string {
  return (message?.parts ?? [])
    .filter((p) => p.type === "text" && !p.synthetic)
    .map((p) => (p.type === "text" ? p.text : ""))
    .join("");
}
