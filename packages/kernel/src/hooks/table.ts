import { AsyncSeriesHook } from "tapable";
import { PluginError } from "../errors.js";
import type { HookInput, HookName, HookOutput, PermissionAskOutput } from "./types.js";

/**
 * What happens when a tap throws or times out:
 * - `fail`: the call fails with a PluginError naming the plugin and hook; later taps do not run.
 * - `fail-closed`: a guard. The chain stops and `closed(output, error)` puts the output in its safe
 *   state (permission → deny); with no `closed`, the PluginError is thrown (a blocked tool call).
 * - `fail-open`: an observer. The error is logged, the failing tap's changes to `output` are
 *   rolled back, and the later taps still run.
 */
export type FailurePolicy = "fail" | "fail-closed" | "fail-open";

export interface HookSpec<K extends HookName> {
  readonly policy: FailurePolicy;
  /** Only for `fail-closed` hooks that have a safe output instead of an error. */
  readonly closed?: (output: HookOutput<K>, error: Error) => void;
  readonly summary: string;
}

const denyOnError = (output: PermissionAskOutput, error: Error) => {
  output.status = "deny";
  output.reason = `denied because a permission plugin failed: ${error.message}`;
  // The failing plugin made this decision, not whichever tap changed the status before it.
  if (PluginError.isInstance(error)) output.decidedBy = error.plugin;
};

/** The hook table: every hook, its failure policy and what it is for, at one glance. */
export const hookSpecs: { readonly [K in HookName]: HookSpec<K> } = Object.freeze({
  "chat.message": { policy: "fail", summary: "a user message is about to be stored; add or change parts" },
  "chat.system": { policy: "fail", summary: "the system prompt sections of a step" },
  "chat.params": { policy: "fail", summary: "sampling parameters and provider options of a step" },
  "chat.headers": { policy: "fail", summary: "HTTP headers sent to the provider for a step" },
  "tool.definition": { policy: "fail", summary: "a tool's description and JSON parameters as the model sees them" },
  "tool.execute.before": { policy: "fail-closed", summary: "a tool call's arguments; throwing blocks the call" },
  "tool.execute.after": { policy: "fail", summary: "a tool call's title, output and metadata" },
  "permission.ask": {
    policy: "fail-closed",
    closed: denyOnError,
    summary: "decide allow, ask or deny for a permission request; an error denies",
  },
  "text.complete": { policy: "fail-open", summary: "a text part has finished streaming; may rewrite the final text" },
  "step.start": { policy: "fail-open", summary: "a model step starts; may add parts" },
  "step.finish": { policy: "fail-open", summary: "a model step finished with usage; may add parts" },
  "session.compacting": {
    policy: "fail-open",
    summary: "compaction is about to summarise; add context or replace the prompt",
  },
  "shell.env": { policy: "fail", summary: "environment variables for a shell command" },
  event: { policy: "fail-open", summary: "every bus event, for observers" },
});

export const hookNames = Object.freeze(Object.keys(hookSpecs) as HookName[]);

export type HookTable = { readonly [K in HookName]: AsyncSeriesHook<[HookInput<K>, HookOutput<K>]> };

/** One frozen object of typed tapable hooks; the class says how each runs (all in series, mutating `output`). */
export function createHookTable(): HookTable {
  const table = {} as Record<HookName, AsyncSeriesHook<[unknown, unknown]>>;
  for (const name of hookNames) table[name] = new AsyncSeriesHook<[unknown, unknown]>(["input", "output"], name);
  return Object.freeze(table) as unknown as HookTable;
}

export function isHookName(name: string): name is HookName {
  return Object.hasOwn(hookSpecs, name);
}
