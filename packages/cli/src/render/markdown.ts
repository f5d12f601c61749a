import type { Style } from "../style.js";

/**
 * Renders markdown line by line for a terminal: headings bold, list bullets, quotes dim, fenced
 * code dim with its fence kept, `inline code` cyan and **bold** bold. Streaming-friendly: it is fed
 * whole lines and keeps only whether it is inside a code fence.
 */
export class MarkdownLines {
  private inFence = false;

  constructor(private readonly style: Style) {}

  line(text: string): string {
    const { bold, dim } = this.style;
    if (/^\s*(```|~~~)/.test(text)) {
      this.inFence = !this.inFence;
      return dim(text);
    }
    if (this.inFence) return dim(text);
    const heading = /^(#{1,6})\s+(.*)$/.exec(text);
    if (heading) return bold(inline(heading[2]!, this.style));
    if (/^\s*>/.test(text)) return dim(text);
    const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(text);
    if (bullet) return `${bullet[1]}• ${inline(bullet[2]!, this.style)}`;
    return inline(text, this.style);
  }
}

function inline(text: string, { bold, cyan }: Style): string {
  return text.replace(/`([^`]+)`/g, (_m, code: string) => cyan(code)).replace(/\*\*([^*]+)\*\*/g, (_m, b: string) => bold(b));
}
