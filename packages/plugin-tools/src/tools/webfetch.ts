import { defineTool } from "@tessera/kernel";
import type TurndownService from "turndown";
import { z } from "zod";
import { toolDeps, type ToolDepsInput } from "../shared.js";
import { formatBytes, truncateOutput } from "../util/truncate.js";

export const WebFetchParameters = z.object({
  url: z.string().describe("http(s) URL"),
  format: z.enum(["text", "markdown", "html"]).optional().describe("Default markdown"),
  timeout: z.number().positive().optional().describe("Seconds (default 30, max 120)"),
});

const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " ", "#39": "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+\d*);/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const code = name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** Readable text of an HTML page: no scripts, styles or tags; block elements on their own lines. */
export function htmlToText(html: string): string {
  const text = html
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/<(script|style|noscript|template|svg|head)\b[\s\S]*?<\/\1\s*>/gi, "")
    .replace(/<br\s*\/?>/gi, "\n")
    .replace(/<\/?(p|div|section|article|header|footer|nav|main|aside|ul|ol|h[1-6]|table|pre|blockquote|dl|figure|form)\b[^>]*>/gi, "\n\n")
    .replace(/<(li|tr|dd|dt)\b[^>]*>/gi, "\n")
    .replace(/<[^>]+>/g, "");
  return decodeEntities(text)
    .split("\n")
    .map((line) => line.replace(/[ \t\f\v\u00a0]+/g, " ").trim())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

let turndown: TurndownService | undefined;

/** Markdown of an HTML page (scripts, styles and the like dropped). Turndown loads on first use. */
export async function htmlToMarkdown(html: string): Promise<string> {
  if (!turndown) {
    const { default: Turndown } = await import("turndown");
    turndown = new Turndown({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-", hr: "---" });
    turndown.remove(["script", "style", "noscript", "template", "iframe", "head", "title"] as unknown as TurndownService.Filter);
  }
  return turndown.turndown(html).replace(/\n{3,}/g, "\n\n").trim();
}

/** The charset of a content type, if the runtime can decode it; else utf-8. */
function decoderFor(contentType: string) {
  const charset = /charset=["']?([\w-]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? "utf-8");
  } catch {
    return new TextDecoder("utf-8");
  }
}

const ACCEPT = {
  markdown: "text/markdown;q=1.0, text/html;q=0.9, text/plain;q=0.8, */*;q=0.1",
  text: "text/plain;q=1.0, text/html;q=0.9, text/markdown;q=0.8, */*;q=0.1",
  html: "text/html;q=1.0, application/xhtml+xml;q=0.9, */*;q=0.1",
} as const;

/**
 * The `webfetch` tool: fetches an http(s) URL and returns it as markdown (HTML converted), text or
 * raw HTML; png, jpeg, gif and webp images come back as attachments. The body is limited in size
 * (5 MB) and the request in time (30 s by default, 120 s at most).
 */
export function createWebFetchTool(input: ToolDepsInput = {}) {
  const { options } = toolDeps(input);
  const limits = options.webfetch;
  return defineTool({
    id: "webfetch",
    description: `Fetch a URL (http or https) and return its content as markdown (default), text or html. Responses over ${formatBytes(limits.maxBytes)} are refused.`,
    parameters: WebFetchParameters,
    permission: (args) => [{ permission: "webfetch", patterns: [args.url] }],
    async execute(args, ctx) {
      let url: URL;
      try {
        url = new URL(args.url);
      } catch {
        throw new Error(`Invalid URL: ${args.url}. Give a full URL starting with http:// or https://.`);
      }
      if (url.protocol !== "http:" && url.protocol !== "https:") {
        throw new Error(`Only http and https URLs can be fetched (got ${url.protocol}).`);
      }
      const format = args.format ?? "markdown";
      const seconds = Math.min(args.timeout ?? limits.defaultTimeoutSec, limits.maxTimeoutSec);
      const timeout = AbortSignal.timeout(seconds * 1000);
      const signal = AbortSignal.any([ctx.abort, timeout]);

      let response: Response;
      let body: Uint8Array;
      try {
        response = await fetch(url, {
          signal,
          redirect: "follow",
          headers: { "User-Agent": "Mozilla/5.0 (compatible; tessera-webfetch)", Accept: ACCEPT[format], "Accept-Language": "en-US,en;q=0.9" },
        });
        if (!response.ok) {
          await response.body?.cancel().catch(() => undefined);
          throw new Error(`${url.href} answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}.`);
        }
        const declared = Number(response.headers.get("content-length") ?? "NaN");
        if (declared > limits.maxBytes) {
          await response.body?.cancel().catch(() => undefined);
          throw new Error(`The response is ${formatBytes(declared)}, over the ${formatBytes(limits.maxBytes)} limit.`);
        }
        body = await readLimited(response, limits.maxBytes);
      } catch (error) {
        if (timeout.aborted && !ctx.abort.aborted) throw new Error(`Fetching ${url.href} timed out after ${seconds} s.`);
        throw error;
      }

      const contentType = response.headers.get("content-type") ?? "";
      const mediaType = contentType.split(";")[0]!.trim().toLowerCase();
      if (IMAGE_TYPES.has(mediaType)) {
        return {
          title: `${url.href} (${mediaType})`,
          output: `Image ${url.href} (${mediaType}, ${formatBytes(body.length)}) is attached.`,
          metadata: { url: url.href, contentType, bytes: body.length },
          attachments: [{ mediaType, url: `data:${mediaType};base64,${Buffer.from(body).toString("base64")}` }],
        };
      }
      const raw = decoderFor(contentType).decode(body);
      const html = mediaType.includes("html") || (mediaType === "" && /^\s*<(!doctype|html)/i.test(raw));
      const converted = format === "html" || !html ? raw : format === "markdown" ? await htmlToMarkdown(raw) : htmlToText(raw);
      const cut = truncateOutput(converted, {
        maxBytes: limits.maxOutputBytes,
        maxLines: 5000,
        hint: format === "html" ? "Use format markdown or text for a shorter result." : "Fetch a more specific page for the rest.",
      });
      return {
        title: `${url.href} (${contentType || "unknown type"})`,
        output: cut.text,
        metadata: { url: url.href, contentType, bytes: body.length, truncated: cut.truncated },
      };
    },
  });
}

/** The body, refusing it as soon as it exceeds `max` bytes. */
async function readLimited(response: Response, max: number): Promise<Uint8Array> {
  if (!response.body) return new Uint8Array();
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      throw new Error(`The response is over the ${formatBytes(max)} limit; it was not read.`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
