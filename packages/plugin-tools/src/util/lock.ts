/**
 * Per-path async locks: edits, writes and patches of one file run one after another, in the
 * order they asked, while other files proceed in parallel. Shared by every kernel in the process.
 */
const tails = new Map<string, Promise<void>>();

async function acquire(key: string): Promise<() => void> {
  const previous = tails.get(key) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => (release = resolve));
  const tail = previous.then(() => mine);
  tails.set(key, tail);
  await previous;
  return () => {
    release();
    if (tails.get(key) === tail) tails.delete(key);
  };
}

/** Runs `fn` holding the locks of every path in `keys` (taken in sorted order, so two callers never deadlock). */
export async function withLocks<T>(keys: readonly string[], fn: () => Promise<T>): Promise<T> {
  const unique = [...new Set(keys)].sort();
  const releases: Array<() => void> = [];
  try {
    for (const key of unique) releases.push(await acquire(key));
    return await fn();
  } finally {
    for (const release of releases.reverse()) release();
  }
}

/** Whether any lock is held or waited for (for tests). */
export function locksHeld(): number {
  return tails.size;
}
