import { createInterface } from "node:readline";
import type { AskRequest, PermissionAsker, PermissionReply } from "@tessera/kernel";
import type { Style } from "./style.js";

/**
 * Asks the user on the terminal (or on piped stdin, one answer per line): `o`nce, `a`lways or
 * `r`eject. End of input counts as reject, so a closed stdin fails closed.
 */
export function createStdinAsker(
  input: NodeJS.ReadableStream,
  write: (text: string) => void,
  style: Style,
): { asker: PermissionAsker; close: () => void } {
  const lines: string[] = [];
  const waiting: Array<(line: string | undefined) => void> = [];
  let closed = false;
  const rl = createInterface({ input, terminal: false });
  rl.on("line", (line) => {
    const next = waiting.shift();
    if (next) next(line);
    else lines.push(line);
  });
  rl.on("close", () => {
    closed = true;
    for (const next of waiting.splice(0)) next(undefined);
  });
  const readLine = () =>
    new Promise<string | undefined>((resolve) => {
      if (lines.length > 0) return resolve(lines.shift());
      if (closed) return resolve(undefined);
      waiting.push(resolve);
    });

  const asker = async (request: AskRequest, signal: AbortSignal): Promise<PermissionReply> => {
    for (;;) {
      write(`${style.yellow("?")} ${describe(request)} ${style.dim("[o]nce / [a]lways / [r]eject:")} `);
      const answer = await Promise.race([
        readLine(),
        new Promise<undefined>((resolve) => signal.addEventListener("abort", () => resolve(undefined), { once: true })),
      ]);
      if (signal.aborted) {
        write(style.dim("(cancelled)\n"));
        return "reject";
      }
      if (answer === undefined) {
        write(style.dim("(no input: rejected)\n"));
        return "reject";
      }
      const reply = parseReply(answer);
      if (reply) return reply;
      write(style.dim(`"${answer.trim()}" is not an answer; type o, a or r\n`));
    }
  };
  // Closing stops reading stdin, so an open pipe does not keep the process alive after the run.
  return { asker, close: () => rl.close() };
}

export function parseReply(answer: string): PermissionReply | undefined {
  const a = answer.trim().toLowerCase();
  if (a === "o" || a === "once" || a === "y" || a === "yes") return "once";
  if (a === "a" || a === "always") return "always";
  if (a === "r" || a === "reject" || a === "n" || a === "no") return "reject";
  return undefined;
}

function describe(request: AskRequest): string {
  const patterns = request.patterns.filter((p) => p !== "*").join(", ");
  return `Allow ${request.permission}${patterns ? ` ${patterns}` : ""}?`;
}
