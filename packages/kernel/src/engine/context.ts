import type { Bus } from "../bus/bus.js";
import type { ResolvedConfig } from "../config/load.js";
import type {
  AgentDefinition,
  CompactionStrategy,
  ProviderDefinition,
  ToolDefinition,
} from "../definitions.js";
import type { HookInput, HookName, HookOutput } from "../hooks/types.js";
import type { Logger } from "../logger.js";
import type { TesseraPaths } from "../paths.js";
import type { Registry } from "../registry.js";
import type { MessageError } from "../session/message.js";
import type { SessionStore } from "../session/session-store.js";
import type { PermissionGate } from "./permission.js";
import type { StatusTracker } from "./status.js";

/** Everything the engine's parts share: the kernel's services and the store. */
export interface EngineContext {
  readonly store: SessionStore;
  readonly bus: Bus;
  readonly log: Logger;
  readonly config: ResolvedConfig;
  readonly paths: TesseraPaths;
  readonly tools: Registry<ToolDefinition>;
  readonly providers: Registry<ProviderDefinition>;
  readonly agents: Registry<AgentDefinition>;
  readonly compactions: Registry<CompactionStrategy>;
  readonly gate: PermissionGate;
  readonly status: StatusTracker;
  readonly now: () => number;
  readonly flushIntervalMs?: number;
  /** Overrides the backoff (tests use short delays); defaults to `retryDelay` from retry.ts. */
  readonly retryDelay?: (attempt: number, error: MessageError) => number;
  trigger<K extends HookName>(hook: K, input: HookInput<K>, output: HookOutput<K>): Promise<HookOutput<K>>;
}
