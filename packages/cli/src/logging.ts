import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { LogLevel, LogRecord, LogSink } from "@tessera/kernel";

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface LogOptions {
  /** `$XDG_STATE_HOME/tessera`. */
  stateDir: string;
  level: LogLevel;
  /** Also print records to stderr. */
  print: boolean;
  err: (text: string) => void;
}

/**
 * Logs go to `<state>/log/tessera.log` as JSON lines, so the terminal stays clean; `--print-logs`
 * mirrors them to stderr. A log file that cannot be written never stops a command.
 */
export function createLogSink(options: LogOptions): { sink: LogSink; file: string } {
  const dir = join(options.stateDir, "log");
  const file = join(dir, "tessera.log");
  let writable = true;
  try {
    mkdirSync(dir, { recursive: true });
  } catch {
    writable = false;
  }
  const sink = (record: LogRecord) => {
    if (rank[record.level] < rank[options.level]) return;
    if (writable) {
      try {
        appendFileSync(file, `${JSON.stringify({ ...record, time: new Date(record.time).toISOString() })}\n`);
      } catch {
        writable = false;
      }
    }
    if (options.print) options.err(`${record.level.toUpperCase().padEnd(5)} ${record.tag}: ${record.message}\n`);
  };
  return { sink, file };
}
