/**
 * @tessera/plugin-tools — Tessera's built-in tools as a plugin. The default export is the plugin;
 * each tool factory is exported for reuse (another plugin's variant of a tool, tests, hosts).
 */
export { default, createTools, toolSchemas, shellEnvFrom, TOOL_IDS, PLUGIN_NAME, PLUGIN_VERSION } from "./plugin.js";
export type { CreateToolsInput, ToolID } from "./plugin.js";
export { ToolsOptionsSchema, resolveOptions } from "./options.js";
export type { ToolsOptions, ToolsOptionsInput } from "./options.js";
export { FileTimes, StaleFileError, createToolState } from "./state.js";
export type { ToolState, ReadRecord } from "./state.js";
export type { ToolDeps, ToolDepsInput } from "./shared.js";

export { createReadTool, ReadParameters, formatLine } from "./tools/read.js";
export { createWriteTool, WriteParameters } from "./tools/write.js";
export { createEditTool, EditParameters } from "./tools/edit.js";
export { findMatches, applyMatches } from "./tools/replace.js";
export type { Match, MatcherName, MatcherResult } from "./tools/replace.js";
export { createPatchTool, PatchParameters, parsePatch, applyChunks, PatchParseError } from "./tools/patch.js";
export type { PatchHunk, PatchChunk, PatchLine, CommitHook } from "./tools/patch.js";
export { createBashTool, BashParameters, pickShell } from "./tools/bash.js";
export type { BashToolInput, ShellEnvProvider } from "./tools/bash.js";
export { createGrepTool, GrepParameters } from "./tools/grep.js";
export type { GrepMatch } from "./tools/grep.js";
export { createGlobTool, GlobParameters } from "./tools/glob.js";
export { createListTool, ListParameters, DEFAULT_LIST_IGNORES } from "./tools/list.js";
export { createTodoTools, TodoStore, TodoSchema, TodoUpdated, TodoWriteParameters, TodoReadParameters } from "./tools/todo.js";
export type { Todo, TodoToolsInput } from "./tools/todo.js";
export { createTaskTool, TaskParameters, subagentsOf } from "./tools/task.js";
export type { TaskToolInput } from "./tools/task.js";
export { createWebFetchTool, WebFetchParameters, htmlToMarkdown, htmlToText } from "./tools/webfetch.js";

export { truncateOutput, truncateLine, LineBudget, formatBytes } from "./util/truncate.js";
export type { TruncateOptions, TruncateResult, OutputLimits } from "./util/truncate.js";
export { filePermission, relativePattern } from "./util/paths.js";
