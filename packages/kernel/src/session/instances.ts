import { hostname } from "node:os";
import type { StoreContext } from "./context.js";

/*
 * Open stores register here so that crash recovery only touches the rows of stores that are gone:
 * a second terminal opening the same database must not abort the first one's running tools.
 */

export function registerInstance(ctx: StoreContext): void {
  ctx
    .statement("INSERT OR REPLACE INTO store_instance (id, pid, host, started) VALUES (?, ?, ?, ?)")
    .run(ctx.owner, process.pid, hostname(), Date.now());
}

export function unregisterInstance(ctx: StoreContext): void {
  ctx.statement("DELETE FROM store_instance WHERE id = ?").run(ctx.owner);
}

/**
 * Forgets registrations whose process has died without closing its store, and returns the ids of
 * the stores still open. Stores on another host, or in this process, cannot be probed and are
 * presumed open: leaving a row unrecovered is harmless, aborting a live tool call is not.
 */
export function liveInstances(ctx: StoreContext): Set<string> {
  const here = hostname();
  const live = new Set<string>([ctx.owner]);
  for (const row of ctx.statement("SELECT id, pid, host FROM store_instance").all()) {
    const id = String(row["id"]);
    const pid = Number(row["pid"]);
    if (row["host"] !== here || pid === process.pid || isProcessAlive(pid)) live.add(id);
    else ctx.statement("DELETE FROM store_instance WHERE id = ?").run(id);
  }
  return live;
}

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
