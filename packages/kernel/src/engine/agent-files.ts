/**
 * Agents written as Markdown files (`.tessera/agents/<id>.md`): YAML frontmatter for the settings,
 * the body for the prompt. Also the snake_case → camelCase mapping shared with the config's
 * `agent` section, so both spell settings the same way.
 */
import { readdir, readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { load as loadYaml, YAMLException } from "js-yaml";
import { z } from "zod";
import type { AgentDefinition } from "../definitions.js";
import { closest } from "../config/load.js";
import { ConfigSchema, type Config } from "../config/schema.js";
import { joinKey } from "../config/walk.js";

/** One layer's settings for an agent: any subset of the definition, plus `disable`. */
export type AgentPatch = { -readonly [K in Exclude<keyof AgentDefinition, "id">]?: AgentDefinition[K] } & {
  disable?: boolean;
};

/** An agent's settings as written in config (`agent: { <id>: … }`). */
export type AgentSettings = NonNullable<Config["agent"]>[string];

export interface AgentFile {
  readonly id: string;
  readonly file: string;
  readonly patch: AgentPatch;
}

export interface AgentFileError {
  readonly file: string;
  readonly message: string;
}

// Derived from the config schema so a setting means the same in a file as in config. The prompt
// is the body; `hidden` is allowed here because file agents may be internal helpers too.
const ConfigAgentSchema = ConfigSchema.shape.agent.unwrap().valueType;
export const AgentFrontmatterSchema = z.strictObject({
  ...ConfigAgentSchema.omit({ prompt: true }).shape,
  hidden: z.boolean().optional(),
});

/** Maps config-style settings (snake_case, with `disable`) onto a definition patch. */
export function toAgentPatch(settings: AgentSettings & { hidden?: unknown }): AgentPatch {
  const patch: AgentPatch = {};
  if (settings.description !== undefined) patch.description = settings.description;
  if (settings.mode !== undefined) patch.mode = settings.mode;
  if (settings.model !== undefined) patch.model = settings.model;
  if (settings.prompt !== undefined) patch.prompt = settings.prompt;
  if (settings.temperature !== undefined) patch.temperature = settings.temperature;
  if (settings.top_p !== undefined) patch.topP = settings.top_p;
  if (settings.tools !== undefined) patch.tools = settings.tools;
  if (settings.permission !== undefined) patch.permission = settings.permission;
  if (settings.max_steps !== undefined) patch.maxSteps = settings.max_steps;
  // The config schema has no `hidden` but lets unknown agent keys through; honour it when it is a boolean.
  if (typeof settings.hidden === "boolean") patch.hidden = settings.hidden;
  if (settings.disable !== undefined) patch.disable = settings.disable;
  return patch;
}

/**
 * Reads every `*.md` file directly in `dir` (sorted by name, so the result does not depend on the
 * file system). A missing folder is normal; a file that cannot be read or parsed becomes an error
 * and is skipped, without stopping the others.
 */
export async function readAgentFiles(dir: string): Promise<{ agents: AgentFile[]; errors: AgentFileError[] }> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((name) => name.endsWith(".md") && name.length > 3).sort();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { agents: [], errors: [] };
    return { agents: [], errors: [{ file: dir, message: `cannot list agent files: ${(error as Error).message}` }] };
  }
  const results = await Promise.all(names.map((name) => readAgentFile(join(dir, name))));
  const agents: AgentFile[] = [];
  const errors: AgentFileError[] = [];
  for (const result of results) {
    if ("message" in result) errors.push(result);
    else agents.push(result);
  }
  return { agents, errors };
}

async function readAgentFile(file: string): Promise<AgentFile | AgentFileError> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    return { file, message: `cannot be read: ${(error as Error).message}` };
  }
  const parsed = parseAgentMarkdown(text);
  if ("error" in parsed) return { file, message: parsed.error };
  return { id: basename(file, ".md"), file, patch: parsed.patch };
}

/** Parses one agent file's text: frontmatter (optional) and body. */
export function parseAgentMarkdown(text: string): { patch: AgentPatch } | { error: string } {
  const split = splitFrontmatter(text);
  if ("error" in split) return split;

  let data: unknown = {};
  if (split.yaml.trim() !== "") {
    try {
      data = loadYaml(split.yaml);
    } catch (error) {
      if (!(error instanceof YAMLException)) return { error: `invalid frontmatter: ${(error as Error).message}` };
      // +2: the mark is 0-based and the frontmatter starts after the opening `---` line.
      const line = error.mark ? ` at line ${error.mark.line + 2}` : "";
      return { error: `invalid YAML in frontmatter${line}: ${error.reason}` };
    }
    // `---\n# only a comment\n---` is an empty mapping, not an error.
    if (data === null || data === undefined) data = {};
  }
  if (typeof data !== "object" || Array.isArray(data)) {
    return { error: "frontmatter must be a mapping of settings (key: value)" };
  }

  const result = AgentFrontmatterSchema.safeParse(data);
  if (!result.success) return { error: result.error.issues.map(describeIssue).join("; ") };

  const patch = toAgentPatch(result.data);
  const body = split.body.trim();
  // An empty body leaves the prompt alone, so a file can override just the model of a built-in.
  if (body !== "") patch.prompt = body;
  return { patch };
}

function splitFrontmatter(text: string): { yaml: string; body: string } | { error: string } {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  if (lines[0]?.trimEnd() !== "---") return { yaml: "", body: lines.join("\n") };
  const end = lines.findIndex((line, i) => i > 0 && line.trimEnd() === "---");
  if (end === -1) return { error: 'frontmatter is not closed: add a "---" line after the settings' };
  return { yaml: lines.slice(1, end).join("\n"), body: lines.slice(end + 1).join("\n") };
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const key = issue.path.reduce<string>((acc, part) => joinKey(acc, part as string | number), "");
  if (issue.code === "unrecognized_keys") {
    return issue.keys
      .map((unknown) => {
        if (unknown === "prompt") return 'unknown key "prompt": the prompt is the body, below the frontmatter';
        const suggestion = closest(unknown, Object.keys(AgentFrontmatterSchema.shape));
        return `unknown key "${joinKey(key, unknown)}"${suggestion ? `; did you mean "${suggestion}"?` : ""}`;
      })
      .join("; ");
  }
  return `${key ? `"${key}"` : "frontmatter"}: ${issue.message}`;
}
