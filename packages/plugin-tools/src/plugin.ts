import { join } from "node:path";
import { definePlugin, SessionDeleted, type AgentDefinition, type Bus, type PluginContext, type ToolDefinition } from "@tessera/kernel";
import { z } from "zod";
import { resolveOptions, ToolsOptionsSchema, type ToolsOptions, type ToolsOptionsInput } from "./options.js";
import { createToolState, type ToolState } from "./state.js";
import { createBashTool, pruneOutputDir, type ShellEnvProvider } from "./tools/bash.js";
import { createEditTool } from "./tools/edit.js";
import { createGlobTool } from "./tools/glob.js";
import { createGrepTool } from "./tools/grep.js";
import { createListTool } from "./tools/list.js";
import { createPatchTool } from "./tools/patch.js";
import { createReadTool } from "./tools/read.js";
import { createTaskTool } from "./tools/task.js";
import { createTodoTools, TodoStore } from "./tools/todo.js";
import { createWebFetchTool } from "./tools/webfetch.js";
import { createWriteTool } from "./tools/write.js";

export const PLUGIN_NAME = "@tessera/plugin-tools";
export const PLUGIN_VERSION = "0.1.0";

/** Every tool this plugin provides, in the order they are registered (and offered to models). */
export const TOOL_IDS = ["read", "write", "edit", "patch", "bash", "grep", "glob", "list", "todowrite", "todoread", "task", "webfetch"] as const;
export type ToolID = (typeof TOOL_IDS)[number];

export interface CreateToolsInput {
  /** The todo store (persisted lists); one in `todoDir` by default. */
  readonly todoStore?: TodoStore;
  readonly options?: ToolsOptions | ToolsOptionsInput;
  /** Read records shared by read, write, edit and patch; a fresh one by default. */
  readonly state?: ToolState;
  /** The `shell.env` hook for bash. */
  readonly shellEnv?: ShellEnvProvider;
  /** The environment commands start from (the kernel's `ctx.env`); default `process.env`. */
  readonly env?: Readonly<NodeJS.ProcessEnv>;
  /** Where bash saves full outputs. */
  readonly outputDir?: string;
  /** Where todo lists are persisted. */
  readonly todoDir?: string;
  /** Where `todo.updated` is published. */
  readonly bus?: Pick<Bus, "publish">;
  /** The agents the task tool may run (subagents among them are listed in its description). */
  readonly agents?: () => readonly AgentDefinition[];
  /** Force the search engine of grep and glob: a path to `rg`, or false for the built-in one. */
  readonly ripgrep?: string | false;
}

/** The tools, built with shared state and options, without the disabled ones. */
export function createTools(input: CreateToolsInput = {}): ToolDefinition[] {
  const options = resolveOptions(input.options as ToolsOptionsInput);
  const deps = { options, state: input.state ?? createToolState() };
  const search = input.ripgrep !== undefined ? { ripgrep: input.ripgrep } : {};
  const todo = createTodoTools({
    ...(input.todoStore ? { store: input.todoStore } : {}),
    ...(input.todoDir ? { dir: input.todoDir } : {}),
    ...(input.bus ? { bus: input.bus } : {}),
  });
  const outputDir = input.outputDir ?? options.outputDir;
  const all: Record<ToolID, ToolDefinition> = {
    read: createReadTool(deps) as unknown as ToolDefinition,
    write: createWriteTool(deps) as unknown as ToolDefinition,
    edit: createEditTool(deps) as unknown as ToolDefinition,
    patch: createPatchTool(deps) as unknown as ToolDefinition,
    bash: createBashTool({
      ...deps,
      ...(outputDir ? { outputDir } : {}),
      ...(input.shellEnv ? { shellEnv: input.shellEnv } : {}),
      ...(input.env ? { env: input.env } : {}),
    }) as unknown as ToolDefinition,
    grep: createGrepTool({ ...deps, ...search }) as unknown as ToolDefinition,
    glob: createGlobTool({ ...deps, ...search }) as unknown as ToolDefinition,
    list: createListTool(deps) as unknown as ToolDefinition,
    todowrite: todo.todowrite as unknown as ToolDefinition,
    todoread: todo.todoread as unknown as ToolDefinition,
    task: createTaskTool({ ...(input.agents ? { agents: input.agents } : {}) }) as unknown as ToolDefinition,
    webfetch: createWebFetchTool(deps) as unknown as ToolDefinition,
  };
  const disabled = new Set(options.disabled);
  return TOOL_IDS.filter((id) => !disabled.has(id)).map((id) => all[id]);
}

/** What a model is sent for each tool: name, description and the JSON Schema of its parameters. */
export function toolSchemas(tools: readonly ToolDefinition[]): Array<{ name: string; description: string; parameters: Record<string, unknown> }> {
  return tools.map((tool) => {
    const { $schema: _ignored, ...parameters } = z.toJSONSchema(tool.parameters, { io: "input" }) as Record<string, unknown>;
    return { name: tool.id, description: tool.description, parameters };
  });
}

/** The `shell.env` hook, as bash calls it: every plugin's taps, through the kernel's `ctx.trigger`. */
export function shellEnvFrom(ctx: Pick<PluginContext, "trigger">): ShellEnvProvider {
  return async (input) => (await ctx.trigger("shell.env", input, { env: {} })).env;
}

/**
 * `@tessera/plugin-tools`: registers read, write, edit, patch, bash, grep, glob, list, todowrite,
 * todoread, task and webfetch (minus `options.disabled`).
 */
const plugin = definePlugin({
  name: PLUGIN_NAME,
  version: PLUGIN_VERSION,
  kernel: "^1.0.0",
  options: ToolsOptionsSchema,
  setup(ctx, options) {
    const outputDir = options.outputDir ?? join(ctx.paths.state, "tool-output");
    void pruneOutputDir(outputDir);
    const state = createToolState();
    const todoStore = new TodoStore(join(ctx.paths.data, "todo"));
    const tools = createTools({
      options,
      state,
      outputDir,
      todoStore,
      bus: ctx.bus,
      agents: () => ctx.agents.list(),
      shellEnv: shellEnvFrom(ctx),
      env: ctx.env,
    });
    for (const tool of tools) ctx.tools.register(tool);
    // A deleted session's read records and todo list go with it.
    const unsubscribe = ctx.bus.subscribe(SessionDeleted, (event) => {
      state.files.clear(event.properties.sessionID);
      void todoStore.forget(event.properties.sessionID);
    });
    ctx.log.debug("tools registered", { tools: tools.map((t) => t.id) });
    return () => unsubscribe();
  },
});

export default plugin;
