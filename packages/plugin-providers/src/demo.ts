/**
 * The offline demo model, `demo/offline`: a hand-written `LanguageModelV4` that needs no key and
 * no network, and still does a real, short task through the real tools and permission flow:
 *
 * 1. `list { path: "." }`;
 * 2. `read` one file picked from the listing (README.md, else package.json, else the
 *    alphabetically first text file);
 * 3. `write` `tessera-demo.md` with a short note (or, when it exists, `edit` it to add a line);
 * 4. a summary of what it did, saying plainly when a tool was denied and how to allow it.
 *
 * It decides each step from the prompt it receives (the tool results so far), so it is
 * deterministic: the same directory gives the same calls, the same text and the same usage.
 */
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4GenerateResult,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
  LanguageModelV4Usage,
} from "@ai-sdk/provider";
import type { ModelInfo, ProviderDefinition } from "@tessera/kernel";

export const DEMO_PROVIDER_ID = "demo";
export const DEMO_MODEL_ID = "offline";
/** `"demo/offline"`, the model reference the CLI uses when no provider is configured. */
export const DEMO_MODEL = `${DEMO_PROVIDER_ID}/${DEMO_MODEL_ID}`;
/** The file the demo writes in the working directory. */
export const DEMO_FILE = "tessera-demo.md";
/** The line the demo's `edit` anchors on; a later run adds its line right below it. */
export const DEMO_MARKER = "<!-- tessera-demo: later runs add a line below -->";

export const DEMO_MODEL_INFO: ModelInfo = {
  id: DEMO_MODEL_ID,
  name: "Offline demo (no API key needed)",
  limit: { context: 128_000, output: 4_096 },
  cost: { input: 0, output: 0 },
  toolCall: true,
  reasoning: false,
  attachment: false,
};

export interface DemoModelOptions {
  /** Pause between streamed words, in ms (default 12; 0 streams as fast as possible). */
  readonly wordDelayMs?: number;
}

// ───────────────────────────── planning ─────────────────────────────

/** One tool result the demo found in its prompt. */
export interface DemoToolResult {
  readonly toolName: string;
  readonly input: unknown;
  readonly output: string;
  readonly isError: boolean;
}

/** What the demo does next: call a tool (after a short sentence), or answer. */
export type DemoStep =
  | { readonly type: "tool"; readonly text: string; readonly toolName: string; readonly input: Record<string, unknown> }
  | { readonly type: "text"; readonly text: string };

interface Listing {
  readonly entries: Array<{ path: string; name: string; dir: boolean; depth: number }>;
  readonly topLevel: number;
}

/** Decides the next step from the prompt (the last user message and every tool result after it). */
export function planDemoStep(prompt: LanguageModelV4Prompt, availableTools: ReadonlySet<string> | "all" = "all"): DemoStep {
  const can = (tool: string) => availableTools === "all" || availableTools.has(tool);
  const lastUser = findLastIndex(prompt, (m) => m.role === "user");
  const userText = lastUser >= 0 ? textOf(prompt[lastUser]!) : "";
  const title = /^Write a title for this conversation:\s*([\s\S]*)$/.exec(userText.trim());
  if (title) return { type: "text", text: demoTitle(title[1] ?? "") };

  const results = toolResults(prompt.slice(lastUser + 1));
  const directory = workingDirectory(prompt);
  const list = results.find((r) => r.toolName === "list");
  const read = results.find((r) => r.toolName === "read");
  const change = results.find((r) => r.toolName === "write" || r.toolName === "edit");

  if (!list) {
    if (!can("list")) return { type: "text", text: noTools("list") };
    return { type: "tool", text: "I'm Tessera's offline demo model. Let me look at this project first.", toolName: "list", input: { path: "." } };
  }
  if (list.isError) return { type: "text", text: summary({ list, directory }) };
  const listing = parseListing(list.output);
  const picked = pickFile(listing);
  if (!read && picked) {
    if (!can("read")) return { type: "text", text: summary({ list, listing, directory, skipped: "read" }) };
    return {
      type: "tool",
      text: `The folder has ${plural(listing.topLevel, "entry", "entries")}. I'll read ${picked}.`,
      toolName: "read",
      input: { filePath: picked },
    };
  }
  if (read?.isError) return { type: "text", text: summary({ list, listing, read, directory }) };
  const facts = projectFacts(read, listing, directory);
  if (!change) {
    const exists = listing.entries.some((e) => e.depth === 0 && !e.dir && e.name === DEMO_FILE);
    // The edit tool only changes a file this session has read (so it never clobbers unseen changes).
    const readNote = results.some((r) => r.toolName === "read" && (r.input as { filePath?: unknown } | undefined)?.filePath === DEMO_FILE);
    if (exists && picked !== DEMO_FILE && !readNote && can("read") && can("edit")) {
      return {
        type: "tool",
        text: `${DEMO_FILE} is already here; I'll read it before changing it.`,
        toolName: "read",
        input: { filePath: DEMO_FILE },
      };
    }
    if (exists && can("edit")) {
      return {
        type: "tool",
        text: `${DEMO_FILE} is already here, so I'll add a line to it.`,
        toolName: "edit",
        input: { filePath: DEMO_FILE, oldString: DEMO_MARKER, newString: `${DEMO_MARKER}\n${againLine(facts)}` },
      };
    }
    if (!exists && can("write")) {
      return {
        type: "tool",
        text: `Now I'll write a short note about ${facts.name} to ${DEMO_FILE}.`,
        toolName: "write",
        input: { filePath: DEMO_FILE, content: noteContent(facts) },
      };
    }
    return { type: "text", text: summary({ list, listing, read, directory, facts, skipped: exists ? "edit" : "write" }) };
  }
  return { type: "text", text: summary({ list, listing, read, change, directory, facts }) };
}

interface Facts {
  name: string;
  entries: number;
  file?: string;
  heading?: string;
}

function projectFacts(read: DemoToolResult | undefined, listing: Listing, directory: string | undefined): Facts {
  const file = read ? String((read.input as { filePath?: unknown })?.filePath ?? "") : undefined;
  const content = read && !read.isError ? fileContent(read.output) : "";
  const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/m.exec(content)?.[1]?.trim();
  let name: string | undefined;
  if (file && /(^|\/)package\.json$/.test(file)) {
    try {
      const parsed = JSON.parse(content) as { name?: unknown };
      if (typeof parsed.name === "string") name = parsed.name;
    } catch {
      name = /"name"\s*:\s*"([^"]+)"/.exec(content)?.[1];
    }
  }
  name ??= heading ?? (directory ? basename(directory) : undefined) ?? "this project";
  return { name, entries: listing.topLevel, ...(file ? { file } : {}), ...(heading ? { heading } : {}) };
}

function noteContent(facts: Facts): string {
  return [
    "# Tessera demo",
    "",
    "A note written by Tessera's offline demo model (`demo/offline`), which needs no API key.",
    "",
    `- Project: ${facts.name}`,
    `- Entries in the top folder: ${facts.entries}`,
    `- File read: ${facts.file ?? "(none)"}`,
    `- First heading: ${facts.heading ?? "(none)"}`,
    "",
    DEMO_MARKER,
    "",
  ].join("\n");
}

function againLine(facts: Facts): string {
  return `- Seen again: ${facts.name}, ${plural(facts.entries, "entry", "entries")}, first heading: ${facts.heading ?? "(none)"}`;
}

interface SummaryInput {
  list: DemoToolResult;
  listing?: Listing;
  read?: DemoToolResult | undefined;
  change?: DemoToolResult | undefined;
  directory?: string | undefined;
  facts?: Facts;
  skipped?: string;
}

function summary(input: SummaryInput): string {
  const { list, listing, read, change, facts } = input;
  const lines: string[] = [];
  const where = input.directory ? ` in ${input.directory}` : "";
  if (list.isError) {
    lines.push(`I could not list the project${where}: ${failure(list)}`);
    lines.push("", "Nothing was read or changed.");
    return withFooter(lines, list);
  }
  lines.push(`Here is what I did${where}:`, "");
  const shown = listing?.entries.filter((e) => e.depth === 0).slice(0, 5).map((e) => e.name) ?? [];
  lines.push(
    `1. Listed the project: ${plural(listing?.topLevel ?? 0, "entry", "entries")}${shown.length ? ` (${shown.join(", ")}${(listing?.topLevel ?? 0) > shown.length ? ", …" : ""})` : ""}.`,
  );
  if (!read) lines.push(input.skipped === "read" ? "2. Skipped reading a file: the read tool is not available." : "2. Found no text file to read.");
  else if (read.isError) {
    lines.push(`2. Could not read ${inputPath(read)}: ${failure(read)}`);
    lines.push("", `Nothing was changed.`);
    return withFooter(lines, read);
  } else lines.push(`2. Read ${inputPath(read)}${facts?.heading ? `: its first heading is "${facts.heading}"` : ""}.`);

  if (!change) {
    lines.push(`3. Did not touch ${DEMO_FILE}: the ${input.skipped ?? "write"} tool is not available to this agent.`);
    return withFooter(lines);
  }
  const verb = change.toolName === "edit" ? "update" : "create";
  if (change.isError) {
    lines.push(`3. Could not ${verb} ${DEMO_FILE}: ${failure(change)}`);
    lines.push("", "Nothing was changed.");
    return withFooter(lines, change);
  }
  lines.push(
    change.toolName === "edit"
      ? `3. Updated ${DEMO_FILE}: added a line for this run.`
      : `3. Created ${DEMO_FILE} with a short note about ${facts?.name ?? "the project"}.`,
  );
  return withFooter(lines);
}

function withFooter(lines: string[], failed?: DemoToolResult): string {
  if (failed && isDenial(failed.output)) {
    const permission = deniedPermission(failed.output) ?? (failed.toolName === "write" || failed.toolName === "edit" ? "edit" : failed.toolName);
    lines.push(
      "",
      `The ${failed.toolName} was denied by the permission rules. To allow it, run again with --auto, ` +
        `approve it when Tessera asks, or add a rule to the config: "permission": { "${permission}": "allow" }.`,
    );
  }
  lines.push(
    "",
    "This was Tessera's offline demo model: no API key and no network were used, but the tools and the permission checks were real. " +
      "To work with a real model, set ANTHROPIC_API_KEY, OPENAI_API_KEY or GOOGLE_GENERATIVE_AI_API_KEY, or configure a provider.",
  );
  return lines.join("\n");
}

function failure(result: DemoToolResult): string {
  const text = result.output.trim().split("\n")[0] ?? "";
  const clipped = text.length > 300 ? `${text.slice(0, 299)}…` : text;
  return isDenial(result.output) ? `it was denied (${clipped.replace(/\.$/, "")}).` : `${clipped.replace(/\.$/, "")}.`;
}

function isDenial(text: string): boolean {
  return /permission denied|denied|rejected|not allowed/i.test(text);
}

function deniedPermission(text: string): string | undefined {
  return /Permission denied: ([\w.-]+)/i.exec(text)?.[1] ?? /rejected ([\w.-]+)/i.exec(text)?.[1];
}

function noTools(tool: string): string {
  return withFooter([
    `I'm Tessera's offline demo model. I would list this project, read a file and write ${DEMO_FILE}, but the ${tool} tool is not available here, so I did nothing.`,
  ]);
}

function demoTitle(text: string): string {
  const words = text.replace(/\s+/g, " ").trim().split(" ").slice(0, 5).join(" ");
  return words ? `Demo: ${words}` : "Tessera demo";
}

function inputPath(result: DemoToolResult): string {
  return String((result.input as { filePath?: unknown })?.filePath ?? "the file");
}

// ───────────────────────────── reading the prompt ─────────────────────────────

function textOf(message: LanguageModelV4Prompt[number]): string {
  if (typeof message.content === "string") return message.content;
  return message.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
}

function workingDirectory(prompt: LanguageModelV4Prompt): string | undefined {
  for (const message of prompt) {
    if (message.role !== "system") continue;
    const match = /^Working directory: (.+)$/m.exec(message.content);
    if (match) return match[1]!.trim();
  }
  return undefined;
}

/** The tool results in `messages`, with the tool name and input of the call each answers. */
export function toolResults(messages: LanguageModelV4Prompt): DemoToolResult[] {
  const calls = new Map<string, { toolName: string; input: unknown }>();
  const results: DemoToolResult[] = [];
  for (const message of messages) {
    if (message.role === "assistant") {
      for (const part of message.content) {
        if (part.type === "tool-call") calls.set(part.toolCallId, { toolName: part.toolName, input: parseInput(part.input) });
        if (part.type === "tool-result") results.push(resultOf(part, calls));
      }
    } else if (message.role === "tool") {
      for (const part of message.content) if (part.type === "tool-result") results.push(resultOf(part, calls));
    }
  }
  return results;
}

function resultOf(
  part: Extract<Extract<LanguageModelV4Prompt[number], { role: "tool" }>["content"][number], { type: "tool-result" }>,
  calls: Map<string, { toolName: string; input: unknown }>,
): DemoToolResult {
  const call = calls.get(part.toolCallId);
  const output = part.output;
  let text: string;
  let isError = false;
  switch (output.type) {
    case "text":
      text = output.value;
      break;
    case "json":
      text = JSON.stringify(output.value);
      break;
    case "error-text":
      text = output.value;
      isError = true;
      break;
    case "error-json":
      text = JSON.stringify(output.value);
      isError = true;
      break;
    case "execution-denied":
      text = `Permission denied: ${part.toolName}. ${output.reason ?? ""}`.trim();
      isError = true;
      break;
    case "content":
      text = output.value.map((v) => (v.type === "text" ? v.text : "")).join("\n");
      break;
    default:
      text = "";
  }
  return { toolName: call?.toolName ?? part.toolName, input: call?.input ?? {}, output: text, isError };
}

function parseInput(input: unknown): unknown {
  if (typeof input !== "string") return input;
  try {
    return JSON.parse(input) as unknown;
  } catch {
    return {};
  }
}

// ───────────────────────────── listings and files ─────────────────────────────

const TEXT_EXTENSIONS = new Set(
  "md markdown mdx txt rst adoc json jsonc json5 toml yaml yml ini cfg conf ts tsx mts cts js jsx mjs cjs py rb rs go java kt kts swift c h cc cpp hpp cs php lua sh bash zsh fish sql html htm css scss less xml svg csv tsv vue svelte astro gradle tf".split(
    " ",
  ),
);
const TEXT_NAMES = new Set(["license", "licence", "makefile", "dockerfile", "gemfile", "procfile", "readme", "changelog", "authors"]);
const NOISE = /^(?:\(.*\)|\[.*\]|\.\.\.|…|total\b|\d+ (?:files?|entries|entry|directories|dirs?)\b)/i;

/**
 * Entries of a `list` output. Accepts a plain list, an indented tree (two spaces or tabs per
 * level), tree drawings (`├──`, `└──`, `│`) and bullets, with an optional root line (an absolute
 * path); directories end in `/` or have deeper lines below them.
 */
export function parseListing(output: string): Listing {
  const lines = output.split(/\r?\n/);
  const raw: Array<{ indent: number; text: string }> = [];
  for (const line of lines) {
    const cleaned = line.replace(/^[\s│├└─|`+*-]*(?=\S)/u, (lead) => " ".repeat(Array.from(lead).length));
    const text = cleaned.trim().split("\t")[0]!.replace(/\s+\(\d[^)]*\)$/, "").trim();
    if (!text || NOISE.test(text) || text.startsWith("<")) continue;
    if (raw.length === 0 && (text.startsWith("/") || /^[A-Za-z]:[\\/]/.test(text) || text === "./" || text === ".")) continue;
    raw.push({ indent: cleaned.length - cleaned.trimStart().length, text });
  }
  if (raw.length === 0) return { entries: [], topLevel: 0 };
  const base = Math.min(...raw.map((r) => r.indent));
  const steps = raw.map((r) => r.indent - base).filter((d) => d > 0);
  const step = steps.length > 0 ? Math.min(...steps) : 1;
  const entries: Listing["entries"] = [];
  const stack: string[] = [];
  raw.forEach((r, i) => {
    const depth = Math.round((r.indent - base) / step);
    const next = raw[i + 1];
    const dir = /[/\\]$/.test(r.text) || (next !== undefined && next.indent > r.indent);
    const name = r.text.replace(/[/\\]+$/, "");
    stack.length = depth;
    const path = [...stack, name].join("/");
    stack[depth] = name;
    entries.push({ path, name, dir, depth });
  });
  return { entries, topLevel: entries.filter((e) => e.depth === 0).length };
}

/** README.md, then package.json, then the alphabetically first text file (top level first). */
export function pickFile(listing: Listing): string | undefined {
  const files = listing.entries.filter((e) => !e.dir && e.name !== DEMO_FILE && !e.name.startsWith("."));
  const top = files.filter((e) => e.depth === 0);
  const byName = (name: string) => top.find((e) => e.name.toLowerCase() === name);
  const preferred = byName("readme.md") ?? byName("package.json");
  if (preferred) return preferred.path;
  const isText = (name: string) => {
    const dot = name.lastIndexOf(".");
    return dot > 0 ? TEXT_EXTENSIONS.has(name.slice(dot + 1).toLowerCase()) : TEXT_NAMES.has(name.toLowerCase());
  };
  const sorted = (list: typeof files) => list.filter((e) => isText(e.name)).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return (sorted(top)[0] ?? sorted(files)[0])?.path;
}

/** The file's text from a `read` output: without `<file>` wrappers, line numbers or end notes. */
export function fileContent(output: string): string {
  const lines = output.split(/\r?\n/).filter((line) => !/^\s*<\/?(?:file|content|path)\b[^>]*>\s*$/.test(line));
  const numbered = /^\s*\d+(?:\t|\| ?|: |→ ?)/;
  const nonEmpty = lines.filter((l) => l.trim() !== "");
  const isNumbered = nonEmpty.length > 0 && nonEmpty.filter((l) => numbered.test(l)).length >= nonEmpty.length / 2;
  return (isNumbered ? lines.filter((l) => numbered.test(l) || l.trim() === "").map((l) => l.replace(numbered, "")) : lines)
    .filter((l) => !/^\s*\((?:end of file|file has more lines|showing lines)\b/i.test(l))
    .join("\n");
}

// ───────────────────────────── the model ─────────────────────────────

const ZERO_USAGE_DETAIL = { noCache: undefined, cacheRead: 0, cacheWrite: 0 } as const;

function usageOf(prompt: LanguageModelV4Prompt, outputChars: number): LanguageModelV4Usage {
  const input = Math.ceil(JSON.stringify(prompt).length / 4);
  const output = Math.max(1, Math.ceil(outputChars / 4));
  return {
    inputTokens: { total: input, ...ZERO_USAGE_DETAIL, noCache: input },
    outputTokens: { total: output, text: output, reasoning: 0 },
  };
}

function availableTools(options: LanguageModelV4CallOptions): ReadonlySet<string> {
  if (options.toolChoice?.type === "none") return new Set();
  const names = (options.tools ?? []).filter((t) => t.type === "function").map((t) => t.name);
  if (options.toolChoice?.type === "tool") return new Set(names.filter((n) => n === (options.toolChoice as { toolName: string }).toolName));
  return new Set(names);
}

/** Words with the whitespace that follows them, so the deltas join back to the text. */
function words(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

function callId(prompt: LanguageModelV4Prompt): string {
  let calls = 0;
  for (const message of prompt) {
    if (message.role === "assistant") for (const part of message.content) if (part.type === "tool-call") calls++;
  }
  return `demo_call_${calls + 1}`;
}

function delay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (ms <= 0) return signal?.aborted ? Promise.reject(abortReason(signal)) : Promise.resolve();
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal!));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}

/** The offline demo model (see the module comment). */
export function createDemoModel(options: DemoModelOptions = {}): LanguageModelV4 {
  const wordDelayMs = options.wordDelayMs ?? 12;

  const plan = (call: LanguageModelV4CallOptions) => {
    const step = planDemoStep(call.prompt, availableTools(call));
    const id = callId(call.prompt);
    const input = step.type === "tool" ? JSON.stringify(step.input) : "";
    const finishReason: LanguageModelV4FinishReason =
      step.type === "tool" ? { unified: "tool-calls", raw: "tool_use" } : { unified: "stop", raw: "end_turn" };
    const usage = usageOf(call.prompt, step.text.length + input.length + (step.type === "tool" ? step.toolName.length : 0));
    return { step, id, input, finishReason, usage };
  };

  return {
    specificationVersion: "v4",
    provider: DEMO_PROVIDER_ID,
    modelId: DEMO_MODEL_ID,
    supportedUrls: {},

    async doGenerate(call): Promise<LanguageModelV4GenerateResult> {
      const { step, id, input, finishReason, usage } = plan(call);
      const content: LanguageModelV4Content[] = [{ type: "text", text: step.text }];
      if (step.type === "tool") content.push({ type: "tool-call", toolCallId: id, toolName: step.toolName, input });
      return { content, finishReason, usage, warnings: [], response: { id: `demo-${id}`, modelId: DEMO_MODEL_ID } };
    },

    async doStream(call): Promise<LanguageModelV4StreamResult> {
      const { step, id, input, finishReason, usage } = plan(call);
      const signal = call.abortSignal;
      const textID = `demo_text_${id.slice("demo_call_".length)}`;
      const stream = new ReadableStream<LanguageModelV4StreamPart>({
        async start(controller) {
          try {
            controller.enqueue({ type: "stream-start", warnings: [] });
            controller.enqueue({ type: "response-metadata", id: `demo-${id}`, modelId: DEMO_MODEL_ID });
            controller.enqueue({ type: "text-start", id: textID });
            for (const word of words(step.text)) {
              await delay(wordDelayMs, signal);
              controller.enqueue({ type: "text-delta", id: textID, delta: word });
            }
            controller.enqueue({ type: "text-end", id: textID });
            if (step.type === "tool") {
              await delay(wordDelayMs, signal);
              controller.enqueue({ type: "tool-input-start", id, toolName: step.toolName });
              controller.enqueue({ type: "tool-input-delta", id, delta: input });
              controller.enqueue({ type: "tool-input-end", id });
              controller.enqueue({ type: "tool-call", toolCallId: id, toolName: step.toolName, input });
            }
            controller.enqueue({ type: "finish", finishReason, usage });
            controller.close();
          } catch (error) {
            controller.error(error);
          }
        },
      });
      return { stream };
    },
  };
}

/** The `demo` provider: one model, `offline`. Registered always; never chosen automatically. */
export function createDemoProvider(options: DemoModelOptions = {}): ProviderDefinition {
  return {
    id: DEMO_PROVIDER_ID,
    name: "Tessera demo (offline)",
    languageModel(modelID) {
      if (modelID !== DEMO_MODEL_ID) {
        throw new Error(`The demo provider has one model, "${DEMO_MODEL}" (not "${DEMO_PROVIDER_ID}/${modelID}").`);
      }
      return createDemoModel(options);
    },
    model: (modelID) => (modelID === DEMO_MODEL_ID ? DEMO_MODEL_INFO : undefined),
    models: () => [DEMO_MODEL_INFO],
  };
}

// ───────────────────────────── small helpers ─────────────────────────────

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

function basename(path: string): string {
  const parts = path.replace(/[/\\]+$/, "").split(/[/\\]/);
  return parts[parts.length - 1] || path;
}

function findLastIndex<T>(items: readonly T[], predicate: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (predicate(items[i]!)) return i;
  return -1;
}
