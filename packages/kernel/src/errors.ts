/**
 * Every error the kernel raises carries a stable `code` (documented in the package README)
 * and a `Symbol.for` marker, so `isInstance` works across duplicate installs of the kernel.
 */
const MARKER = Symbol.for("tessera.error");

export const ErrorCodes = {
  /** A plugin's tap threw, or rejected. */
  PLUGIN_ERROR: "PLUGIN_ERROR",
  /** A plugin's tap did not settle within its timeout. */
  PLUGIN_TIMEOUT: "PLUGIN_TIMEOUT",
  /** A plugin could not be found (stage `resolve`). */
  PLUGIN_RESOLVE: "PLUGIN_RESOLVE",
  /** A plugin's module threw or failed to parse while importing (stage `import`). */
  PLUGIN_IMPORT: "PLUGIN_IMPORT",
  /** A plugin's export, options, dependencies, name or kernel range are invalid (stage `validate`). */
  PLUGIN_INVALID: "PLUGIN_INVALID",
  /** A plugin's `setup` threw or timed out (stage `setup`). */
  PLUGIN_SETUP: "PLUGIN_SETUP",
  /** A config file could not be read, parsed, substituted or validated. */
  CONFIG_INVALID: "CONFIG_INVALID",
  /** Two plugins registered the same id in one registry. */
  REGISTRY_DUPLICATE: "REGISTRY_DUPLICATE",
  /** Something registered or tapped after the kernel became ready. */
  KERNEL_SEALED: "KERNEL_SEALED",
  /** An event payload did not match its schema, or an event name was defined twice. */
  EVENT_INVALID: "EVENT_INVALID",
  // The session store's codes (raised as SessionStoreError, a TesseraError):
  /** No session with that id (or the parent of a new child session does not exist). */
  SESSION_NOT_FOUND: "SESSION_NOT_FOUND",
  /** No message with that id in that session. */
  MESSAGE_NOT_FOUND: "MESSAGE_NOT_FOUND",
  /** No part with that id, or not one `appendPartText` can append to. */
  PART_NOT_FOUND: "PART_NOT_FOUND",
  /** A record to write did not match its schema, or tried to move to another session or message. */
  RECORD_INVALID: "RECORD_INVALID",
  /** A stored row the operation depends on is unreadable (invalid JSON or schema mismatch). */
  RECORD_CORRUPT: "RECORD_CORRUPT",
  /** The database was written by a newer Tessera, or a migration failed. */
  SCHEMA_UNSUPPORTED: "SCHEMA_UNSUPPORTED",
  /** A transaction callback returned a promise; node:sqlite transactions must be synchronous. */
  TRANSACTION_ASYNC: "TRANSACTION_ASYNC",
  /** The store was used after `close()`. */
  STORE_CLOSED: "STORE_CLOSED",
} as const;

export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

export class TesseraError extends Error {
  readonly [MARKER] = true;
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "TesseraError";
    this.code = code;
  }

  static isInstance(value: unknown): value is TesseraError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}

/** A tap failed or timed out. Names the plugin and the hook, and keeps the original error as `cause`. */
export class PluginError extends TesseraError {
  readonly plugin: string;
  readonly hook: string;

  constructor(
    code: typeof ErrorCodes.PLUGIN_ERROR | typeof ErrorCodes.PLUGIN_TIMEOUT,
    plugin: string,
    hook: string,
    cause: unknown,
    detail?: string,
  ) {
    super(code, `plugin "${plugin}" failed in hook "${hook}": ${detail ?? describeCause(cause)}`, { cause });
    this.name = "PluginError";
    this.plugin = plugin;
    this.hook = hook;
  }

  static override isInstance(value: unknown): value is PluginError {
    return TesseraError.isInstance(value) && "plugin" in value && "hook" in value;
  }
}

export type LoadStage = "resolve" | "import" | "validate" | "setup";

const stageCodes = {
  resolve: ErrorCodes.PLUGIN_RESOLVE,
  import: ErrorCodes.PLUGIN_IMPORT,
  validate: ErrorCodes.PLUGIN_INVALID,
  setup: ErrorCodes.PLUGIN_SETUP,
} as const satisfies Record<LoadStage, ErrorCode>;

/** A plugin failed to load. Names the plugin (or its spec), the stage and the config file that listed it. */
export class PluginLoadError extends TesseraError {
  readonly plugin: string;
  readonly stage: LoadStage;
  readonly source: string;

  constructor(plugin: string, stage: LoadStage, source: string, message: string, cause?: unknown) {
    super(stageCodes[stage], `plugin "${plugin}" (from ${source}) failed at ${stage}: ${message}`, { cause });
    this.name = "PluginLoadError";
    this.plugin = plugin;
    this.stage = stage;
    this.source = source;
  }
}

/** A config file is unreadable or invalid. Names the file and the key path. */
export class ConfigError extends TesseraError {
  readonly file: string;
  readonly key: string | undefined;

  constructor(file: string, key: string | undefined, message: string, cause?: unknown) {
    super(ErrorCodes.CONFIG_INVALID, `${file}${key ? ` at "${key}"` : ""}: ${message}`, { cause });
    this.name = "ConfigError";
    this.file = file;
    this.key = key;
  }
}

export function describeCause(cause: unknown): string {
  if (cause instanceof Error) return cause.message;
  if (typeof cause === "string") return cause;
  try {
    return JSON.stringify(cause);
  } catch {
    return String(cause);
  }
}
