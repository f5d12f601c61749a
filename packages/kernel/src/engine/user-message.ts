import { closeSync, openSync, readdirSync, readFileSync, readSync, statSync } from "node:fs";
import { extname, isAbsolute, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { AgentDefinition } from "../definitions.js";
import { newId } from "../session/ids.js";
import type { ModelRef, UserMessage } from "../session/message.js";
import type { AgentPart, FilePart, Part, TextPart } from "../session/part.js";

/** Caps for `@file` attachments read into the prompt. */
export const MENTION_MAX_BYTES = 50 * 1024;
export const MENTION_MAX_ENTRIES = 200;
/** Images larger than this are not inlined into the prompt. */
export const IMAGE_MAX_BYTES = 10 * 1024 * 1024;

export interface PromptFile {
  /** A path (relative to the project) or a URL (`data:`, `file:`, `https:`). */
  readonly path?: string;
  readonly url?: string | undefined;
  readonly mediaType?: string;
  readonly filename?: string;
}

export interface UserMessageInput {
  readonly sessionID: string;
  readonly directory: string;
  readonly text: string;
  readonly files: readonly PromptFile[];
  readonly agent: string;
  readonly model: ModelRef;
  readonly system?: string;
  readonly tools?: Record<string, boolean>;
  /** Agents that `@name` may refer to. */
  readonly agents: readonly AgentDefinition[];
  readonly now: number;
}

const IMAGE_TYPES: Record<string, string> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
};

/**
 * Builds a user message and its parts: the text, attached files, `@path` mentions turned into
 * synthetic reads of the file or directory, and `@agent` mentions turned into a hint to delegate.
 */
export function buildUserMessage(input: UserMessageInput): { message: UserMessage; parts: Part[] } {
  const message: UserMessage = {
    id: newId("message"),
    sessionID: input.sessionID,
    role: "user",
    time: { created: input.now },
    agent: input.agent,
    model: input.model,
    ...(input.system ? { system: input.system } : {}),
    ...(input.tools ? { tools: input.tools } : {}),
  };
  const base = { sessionID: input.sessionID, messageID: message.id };
  const parts: Part[] = [];
  if (input.text !== "") parts.push({ id: newId("part"), ...base, type: "text", text: input.text });

  for (const file of input.files) parts.push(...attachFile(file, input.directory, base));

  const seen = new Set<string>();
  for (const match of input.text.matchAll(/(?<![\w`])@([\w./~-]+[\w/])/g)) {
    const name = match[1]!;
    if (seen.has(name)) continue;
    seen.add(name);
    const source = { value: match[0], start: match.index, end: match.index + match[0].length };
    const agent = input.agents.find((a) => a.id === name && a.mode !== "primary" && !a.hidden);
    if (agent) {
      parts.push({ id: newId("part"), ...base, type: "agent", name: agent.id, source } satisfies AgentPart);
      parts.push(synthetic(base, `Use the message above and its context to write a prompt, then call the task tool with subagent "${agent.id}".`));
      continue;
    }
    const path = isAbsolute(name) ? name : resolve(input.directory, name);
    const image = imagePart(path, input.directory, base);
    if (image) {
      parts.push({ ...image, source: { type: "file", path, text: source } });
      continue;
    }
    const read = readMention(path, input.directory);
    if (!read) continue;
    parts.push({
      id: newId("part"),
      ...base,
      type: "file",
      mediaType: read.mediaType,
      url: pathToFileURL(path).href,
      filename: relative(input.directory, path) || ".",
      source: { type: "file", path, text: source },
    } satisfies FilePart);
    parts.push(synthetic(base, read.text));
  }
  return { message, parts };
}

function synthetic(base: { sessionID: string; messageID: string }, text: string): TextPart {
  return { id: newId("part"), ...base, type: "text", text, synthetic: true };
}

function attachFile(file: PromptFile, directory: string, base: { sessionID: string; messageID: string }): Part[] {
  if (file.url?.startsWith("file:")) {
    // The model cannot fetch file: URLs; read the file like a path.
    return attachFile({ ...file, url: undefined, path: fileURLToPath(file.url) }, directory, base);
  }
  if (file.url) {
    return [
      {
        id: newId("part"),
        ...base,
        type: "file",
        url: file.url,
        mediaType: file.mediaType ?? "application/octet-stream",
        ...(file.filename ? { filename: file.filename } : {}),
      },
    ];
  }
  const path = resolve(directory, file.path ?? "");
  const image = imagePart(path, directory, base);
  if (image) return [image];
  const read = readMention(path, directory);
  if (!read) throw new Error(`cannot attach ${file.path}: no such file or directory`);
  return [
    { id: newId("part"), ...base, type: "file", mediaType: read.mediaType, url: pathToFileURL(path).href, filename: relative(directory, path) },
    synthetic(base, read.text),
  ];
}

/** An image file as an inline data URL part (models cannot fetch local files), or undefined. */
function imagePart(path: string, directory: string, base: { sessionID: string; messageID: string }): FilePart | undefined {
  const mediaType = IMAGE_TYPES[extname(path).toLowerCase()];
  if (!mediaType) return undefined;
  let data: string;
  try {
    if (statSync(path).size > IMAGE_MAX_BYTES) return undefined;
    data = readFileSync(path).toString("base64");
  } catch {
    return undefined;
  }
  return { id: newId("part"), ...base, type: "file", mediaType, url: `data:${mediaType};base64,${data}`, filename: relative(directory, path) };
}

/** The text a synthetic read of a file or directory gives the model, or undefined when it does not exist. */
function readMention(path: string, directory: string): { text: string; mediaType: string } | undefined {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return undefined;
  }
  const shown = relative(directory, path) || ".";
  if (stat.isDirectory()) {
    const entries = readdirSync(path, { withFileTypes: true })
      .filter((e) => e.name !== ".git" && e.name !== "node_modules")
      .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
      .sort();
    const listed = entries.slice(0, MENTION_MAX_ENTRIES).join("\n");
    const more = entries.length > MENTION_MAX_ENTRIES ? `\n… and ${entries.length - MENTION_MAX_ENTRIES} more` : "";
    return { mediaType: "application/x-directory", text: `Listing of ${shown}/:\n${listed}${more}` };
  }
  const buffer = readHead(path, MENTION_MAX_BYTES + 1);
  if (buffer.includes(0)) return { mediaType: "application/octet-stream", text: `${shown} is a binary file; it was not read.` };
  const truncated = buffer.length > MENTION_MAX_BYTES;
  const text = buffer.subarray(0, MENTION_MAX_BYTES).toString("utf8");
  return {
    mediaType: "text/plain",
    text: `Contents of ${shown}:\n${text}${truncated ? `\n… (truncated at ${MENTION_MAX_BYTES} bytes; read the file for the rest)` : ""}`,
  };
}

/** The first `bytes` bytes of a file, without reading the rest of a large file. */
function readHead(path: string, bytes: number): Buffer {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.alloc(bytes);
    const read = readSync(fd, buffer, 0, bytes, 0);
    return buffer.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}
