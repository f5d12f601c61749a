/**
 * @tessera/plugin-permissions — allow / ask / deny for every permission request that reaches the
 * kernel's chokepoint. See the README for rules, defaults, bash analysis and `explain`.
 */
import { permissionsPlugin } from "./plugin.js";

export default permissionsPlugin;
export { permissionsPlugin, PermissionsOptionsSchema, PLUGIN_NAME, PLUGIN_VERSION } from "./plugin.js";
export type { PermissionsOptions } from "./plugin.js";

export { explain } from "./explain.js";
export type { ExplainOptions, ExplainResult, ExplainDetail, ExplainRule } from "./explain.js";

export { Policy } from "./policy.js";
export type { PolicyOptions } from "./policy.js";
export { decide, describeRule, describeCheck, suggestRules } from "./engine.js";
export type { RequestLike, EngineContext } from "./engine.js";
export type { Action, Check, Decision, RuleRef, RuleLayer } from "./types.js";
export { stricter } from "./types.js";

export { DEFAULT_PERMISSION, READ_ONLY_COMMANDS, READ_ONLY_PERMISSIONS, defaultRules } from "./defaults.js";
export { flattenRules, lastMatch, PATH_PERMISSIONS } from "./rules.js";
export type { Rule, PermissionConfig, Guard } from "./rules.js";
export { wildcardMatch, pathMatch } from "./match.js";
export type { PathSubject } from "./match.js";
export { ProjectPaths, physicalPath } from "./paths.js";
export type { ResolvedPath } from "./paths.js";

export { ApprovalStore, approvalsFile } from "./approvals.js";
export type { Approval } from "./approvals.js";

export { analyzeBash } from "./bash/analyze.js";
export type { BashItem, CommandItem, PathItem, ProblemItem, Word } from "./bash/analyze.js";
export { ARITY, arityPattern, FILE_COMMANDS, SHELLS } from "./bash/commands.js";
export { loadBashParser, bashGrammarPath } from "./bash/parser.js";
