import type { BusEvent, Kernel, Part, SessionStatus, Tokens, ToolPart } from "@tessera/kernel";
import type { CliIO } from "../io.js";
import { renderDiff } from "./diff.js";
import { MarkdownLines } from "./markdown.js";
import { Spinner } from "./spinner.js";
import { oneLine, toolSummary } from "./tool-line.js";

export interface TextRendererOptions {
  readonly sessionID: string;
  /** Render markdown and show a spinner (a terminal); otherwise plain text. */
  readonly tty: boolean;
}

/**
 * Renders one session's events for a person: the answer streams to stdout (markdown styled on a
 * terminal), tool calls, retries, permission decisions and errors go to stderr as one line each,
 * and edits show their diff. stdout carries only the answer, so `tessera run … > answer.md` works.
 */
export class TextRenderer {
  private readonly spinner: Spinner;
  private readonly markdown: MarkdownLines;
  private pendingLine = "";
  private atLineStart = true;
  private readonly shownTools = new Map<string, ToolPart["state"]["status"]>();
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly io: CliIO,
    private readonly options: TextRendererOptions,
  ) {
    this.spinner = new Spinner(io.err, options.tty);
    this.markdown = new MarkdownLines(io.style);
  }

  attach(kernel: Kernel): void {
    this.unsubscribe = kernel.bus.subscribeAll((event) => this.onEvent(event));
    this.spinner.start();
  }

  detach(): void {
    this.flushText();
    this.spinner.stop();
    this.unsubscribe?.();
  }

  /** The closing line: tokens and cost. */
  summary(tokens: Tokens, cost: number): void {
    this.flushText();
    this.spinner.stop();
    const { dim } = this.io.style;
    const n = (x: number) => x.toLocaleString("en-US");
    const cache = tokens.cache.read || tokens.cache.write ? ` · cache ${n(tokens.cache.read)} read, ${n(tokens.cache.write)} written` : "";
    const reasoning = tokens.reasoning ? ` · reasoning ${n(tokens.reasoning)}` : "";
    this.io.err(dim(`tokens: ${n(tokens.input)} in · ${n(tokens.output)} out${reasoning}${cache} · cost $${cost.toFixed(4)}\n`));
  }

  private onEvent(event: BusEvent): void {
    const props = event.properties as Record<string, unknown>;
    switch (event.type) {
      case "message.part.updated": {
        const part = props.part as Part;
        if (part.sessionID !== this.options.sessionID) return;
        const delta = props.delta as string | undefined;
        if (part.type === "text" && delta !== undefined) this.text(delta);
        else if (part.type === "tool") this.tool(part);
        else if (part.type === "step-start") this.spinner.start();
        return;
      }
      case "session.status": {
        if (props.sessionID !== this.options.sessionID) return;
        const status = props.status as SessionStatus;
        if (status.type === "retry") {
          const wait = Math.max(0, Math.round((status.next - Date.now()) / 1000));
          this.line(this.io.style.yellow(`↻ ${status.message}; retry ${status.attempt} in ${wait}s`));
        }
        return;
      }
      case "session.error": {
        if (props.sessionID !== this.options.sessionID) return;
        const error = props.error as { name: string; message: string };
        if (error.name !== "AbortedError") this.line(this.io.style.red(`✗ ${error.message}`));
        return;
      }
      case "permission.decided": {
        if (props.sessionID !== this.options.sessionID || props.status !== "deny") return;
        const patterns = (props.patterns as string[]).join(", ");
        this.line(this.io.style.red(`⊘ ${props.permission} denied${patterns ? ` (${oneLine(patterns, 80)})` : ""} by ${props.decidedBy}`));
        return;
      }
      default:
        return;
    }
  }

  /** Streams answer text; on a terminal, whole lines are rendered as markdown. */
  private text(delta: string): void {
    this.spinner.stop();
    if (!this.options.tty) {
      this.io.out(delta);
      this.atLineStart = delta.endsWith("\n");
      return;
    }
    this.pendingLine += delta;
    let newline = this.pendingLine.indexOf("\n");
    while (newline !== -1) {
      this.io.out(`${this.markdown.line(this.pendingLine.slice(0, newline))}\n`);
      this.pendingLine = this.pendingLine.slice(newline + 1);
      newline = this.pendingLine.indexOf("\n");
    }
    this.atLineStart = this.pendingLine === "";
  }

  private flushText(): void {
    if (this.pendingLine !== "") {
      this.io.out(`${this.markdown.line(this.pendingLine)}\n`);
      this.pendingLine = "";
      this.atLineStart = true;
    } else if (!this.atLineStart) {
      this.io.out("\n");
      this.atLineStart = true;
    }
  }

  private tool(part: ToolPart): void {
    const status = part.state.status;
    if (status === "pending" || this.shownTools.get(part.id) === status) return;
    this.shownTools.set(part.id, status);
    const { dim, green, red, cyan } = this.io.style;
    const summary = oneLine(toolSummary(part), 100);
    if (status === "running") {
      this.line(`${cyan("→")} ${part.tool} ${dim(summary)}`);
      return;
    }
    if (status === "error") {
      this.line(`${red("✗")} ${part.tool} ${dim(summary)}: ${oneLine(part.state.status === "error" ? part.state.error : "", 160)}`);
      return;
    }
    this.line(`${green("✓")} ${part.tool} ${dim(summary)}`);
    const diff = part.state.status === "completed" ? part.state.metadata.diff : undefined;
    if (typeof diff === "string" && diff !== "") {
      this.spinner.stop();
      this.io.err(renderDiff(diff, this.io.style));
    }
    this.spinner.start();
  }

  private line(text: string): void {
    this.flushText();
    this.spinner.stop();
    this.io.err(`${text}\n`);
  }
}
