import type { AsyncSeriesHook } from "tapable";
import { ErrorCodes, PluginError } from "../errors.js";
import { createHookTable, hookSpecs, type FailurePolicy, type HookTable } from "./table.js";
import type { HookFn, HookInput, HookName, HookOutput, PermissionAskOutput, TapOrder } from "./types.js";

/** Taps sort by `stage`: the order band first, then the plugin's position in config. */
const ORDER_STAGE: Record<TapOrder, number> = { pre: -1, normal: 0, post: 1 };
const PLUGIN_SLOTS = 1_000_000;

export interface TapOwner {
  readonly name: string;
  /** The plugin's position in config order; decides order within an order band. */
  readonly index: number;
}

export interface TapOptions {
  order?: TapOrder;
  /** Milliseconds this tap may take per call; defaults to the kernel's hook timeout. */
  timeout?: number;
}

export interface TapInfo {
  readonly plugin: string;
  readonly order: TapOrder;
}

export interface HookHostOptions {
  timeoutMs: number;
  /** Called for every tap failure that does not propagate (fail-open, fail-closed with a safe output). */
  onContainedError: (error: PluginError) => void;
}

const RESOLVED: Promise<void> = Promise.resolve();

type AnyHook = AsyncSeriesHook<[unknown, unknown]>;
type Tap = { name: string; order: TapOrder };

/**
 * Owns the hook table and applies the failure policy to every tap. Each tap is wrapped once, at
 * tap time, so the dispatch path is tapable's compiled series plus one wrapper call per tap.
 */
export class HookHost {
  readonly table: HookTable = createHookTable();

  constructor(private readonly options: HookHostOptions) {}

  tap<K extends HookName>(hook: K, owner: TapOwner, fn: HookFn<K>, options: TapOptions = {}): void {
    const order = options.order ?? "normal";
    const timeoutMs = options.timeout ?? this.options.timeoutMs;
    const wrapped = this.wrap(hook, owner.name, fn as HookFn<HookName>, timeoutMs);
    const tap = { name: owner.name, stage: ORDER_STAGE[order] * PLUGIN_SLOTS + owner.index, order };
    (this.table[hook] as unknown as AnyHook).tapPromise(tap, wrapped);
  }

  /** Runs every tap of `hook` in order on `output`, applying the hook's failure policy; resolves to `output`. */
  async trigger<K extends HookName>(hook: K, input: HookInput<K>, output: HookOutput<K>): Promise<HookOutput<K>> {
    const table = this.table[hook] as unknown as AnyHook;
    if (table.taps.length === 0) return output;
    try {
      await table.promise(input, output);
    } catch (error) {
      const spec = hookSpecs[hook];
      if (spec.policy === "fail-closed" && spec.closed && PluginError.isInstance(error)) {
        spec.closed(output, error);
        this.options.onContainedError(error);
        return output;
      }
      throw error;
    }
    return output;
  }

  /** The taps of a hook in the order they run. */
  taps(hook: HookName): TapInfo[] {
    return ((this.table[hook] as unknown as AnyHook).taps as unknown as Tap[]).map((t) => ({
      plugin: t.name,
      order: t.order,
    }));
  }

  private wrap(hook: HookName, plugin: string, fn: HookFn<HookName>, timeoutMs: number) {
    const policy: FailurePolicy = hookSpecs[hook].policy;
    const call = (input: unknown, output: unknown) =>
      runTap(fn as (i: unknown, o: unknown) => unknown, input, output, timeoutMs, plugin, hook);

    if (hook === "permission.ask") {
      // Record which plugin changed the decision, so every decision can be explained.
      return async (input: unknown, output: unknown) => {
        const decision = output as PermissionAskOutput;
        const before = decision.status;
        await call(input, output);
        if (decision.status !== before) decision.decidedBy = plugin;
      };
    }
    if (policy !== "fail-open") return call;
    return async (input: unknown, output: unknown) => {
      const snapshot = snapshotOf(output as Record<string, unknown>);
      try {
        await call(input, output);
      } catch (error) {
        restore(output as Record<string, unknown>, snapshot);
        this.options.onContainedError(error as PluginError);
      }
    };
  }
}

function runTap(
  fn: (input: unknown, output: unknown) => unknown,
  input: unknown,
  output: unknown,
  timeoutMs: number,
  plugin: string,
  hook: string,
): Promise<void> {
  let result: unknown;
  try {
    result = fn(input, output);
  } catch (error) {
    return Promise.reject(new PluginError(ErrorCodes.PLUGIN_ERROR, plugin, hook, error));
  }
  // A synchronous tap needs no timer; it has already finished.
  if (!isThenable(result)) return RESOLVED;
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new PluginError(ErrorCodes.PLUGIN_TIMEOUT, plugin, hook, undefined, `timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    result.then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(new PluginError(ErrorCodes.PLUGIN_ERROR, plugin, hook, error));
      },
    );
  });
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === "object" && value !== null && typeof (value as PromiseLike<unknown>).then === "function";
}

/** Top-level keys, with arrays copied, so a failed tap's pushes can be undone too. */
function snapshotOf(output: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(output)) {
    const value = output[key];
    copy[key] = Array.isArray(value) ? value.slice() : value;
  }
  return copy;
}

/** Undo a failed observer's changes: top-level keys back to what they were before the tap. */
function restore(target: Record<string, unknown>, snapshot: Record<string, unknown>): void {
  for (const key of Object.keys(target)) if (!Object.hasOwn(snapshot, key)) delete target[key];
  Object.assign(target, snapshot);
}
