export type LogLevel = "debug" | "info" | "warn" | "error";

export interface LogRecord {
  readonly time: number;
  readonly level: LogLevel;
  /** Who logged: "kernel" or a plugin's name. */
  readonly tag: string;
  readonly message: string;
  readonly data?: Readonly<Record<string, unknown>>;
}

export type LogSink = (record: LogRecord) => void;

export interface Logger {
  debug(message: string, data?: Record<string, unknown>): void;
  info(message: string, data?: Record<string, unknown>): void;
  warn(message: string, data?: Record<string, unknown>): void;
  error(message: string, data?: Record<string, unknown>): void;
  /** A logger whose records carry `tag`. */
  child(tag: string): Logger;
}

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export function createLogger(sink: LogSink, tag = "kernel", minLevel: LogLevel = "debug"): Logger {
  const emit = (level: LogLevel, message: string, data?: Record<string, unknown>) => {
    if (rank[level] < rank[minLevel]) return;
    sink(data === undefined ? { time: Date.now(), level, tag, message } : { time: Date.now(), level, tag, message, data });
  };
  return {
    debug: (m, d) => emit("debug", m, d),
    info: (m, d) => emit("info", m, d),
    warn: (m, d) => emit("warn", m, d),
    error: (m, d) => emit("error", m, d),
    child: (child) => createLogger(sink, child, minLevel),
  };
}

/** Default sink: warnings and errors to stderr, one line each; the CLI replaces it with a log file. */
export const stderrSink: LogSink = (record) => {
  if (rank[record.level] < rank.warn) return;
  process.stderr.write(`[${record.level}] ${record.tag}: ${record.message}\n`);
};
