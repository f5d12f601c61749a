import { stat } from "node:fs/promises";
import { errorCode } from "./util/fs.js";

/** What the read tool saw of a file: when, and the file's size and modification time then. */
export interface ReadRecord {
  /** When the file was read (ms since the epoch). */
  readonly time: number;
  readonly mtimeNs: bigint;
  readonly size: bigint;
}

/** The file a tool wants to change was never read in this session, or changed since. */
export class StaleFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StaleFileError";
  }
}

/**
 * Read times per session and file (by real path), for the stale-edit checks of write, edit and
 * patch: a file may only be overwritten when this session read it and it has not changed on disk
 * since. The tools that change a file record its new state, so a session can edit a file again
 * without reading it again.
 */
export class FileTimes {
  private readonly sessions = new Map<string, Map<string, ReadRecord>>();

  /** Records the current state of `path` as read by `sessionID`. */
  async record(sessionID: string, path: string): Promise<void> {
    const s = await stat(path, { bigint: true });
    let files = this.sessions.get(sessionID);
    if (!files) this.sessions.set(sessionID, (files = new Map()));
    files.set(path, { time: Date.now(), mtimeNs: s.mtimeNs, size: s.size });
  }

  get(sessionID: string, path: string): ReadRecord | undefined {
    return this.sessions.get(sessionID)?.get(path);
  }

  /**
   * Throws a StaleFileError telling the model what to do when `path` (which exists) was not read
   * in this session (when `requireRead`), or was changed on disk after it was read.
   */
  async assertFresh(sessionID: string, path: string, shown: string, options: { requireRead: boolean }): Promise<void> {
    const record = this.get(sessionID, path);
    if (!record) {
      if (!options.requireRead) return;
      throw new StaleFileError(`You must read ${shown} before changing it: it exists and this session has not read it. Use the read tool first.`);
    }
    let now;
    try {
      now = await stat(path, { bigint: true });
    } catch (error) {
      if (errorCode(error) === "ENOENT") {
        throw new StaleFileError(`${shown} was deleted after you read it. Check the directory, then write the file anew if it should exist.`);
      }
      throw error;
    }
    if (now.mtimeNs !== record.mtimeNs || now.size !== record.size) {
      const when = new Date(record.time).toISOString();
      throw new StaleFileError(
        `${shown} was modified since you read it (at ${when}); your copy is out of date. Read it again, then redo the change.`,
      );
    }
  }

  /** Forgets a session's records. */
  clear(sessionID: string): void {
    this.sessions.delete(sessionID);
  }
}

/** State shared by the tools of one plugin instance. */
export interface ToolState {
  readonly files: FileTimes;
}

export function createToolState(): ToolState {
  return { files: new FileTimes() };
}
