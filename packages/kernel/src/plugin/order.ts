/** A plugin as far as ordering is concerned. */
export interface OrderNode {
  readonly name: string;
  readonly index: number;
  readonly dependencies: readonly string[];
}

export interface OrderResult<T extends OrderNode> {
  /** Dependencies first; otherwise config order. */
  readonly ordered: T[];
  /** Plugins rejected because a dependency is missing or part of a cycle, with the reason. */
  readonly rejected: Array<{ node: T; reason: string }>;
}

/**
 * Orders plugins for setup: every plugin after its dependencies, ties broken by config order, so
 * the order is deterministic. A plugin whose dependency is missing (or was itself rejected) is
 * rejected, naming both plugins; so are plugins in a dependency cycle.
 */
export function orderByDependencies<T extends OrderNode>(nodes: readonly T[], missingReason: (dep: string) => string): OrderResult<T> {
  const rejected: Array<{ node: T; reason: string }> = [];
  let alive = [...nodes];
  // Reject missing dependencies until nothing changes: a rejection can orphan another plugin.
  for (let changed = true; changed; ) {
    changed = false;
    const names = new Set(alive.map((n) => n.name));
    for (const node of alive) {
      const missing = node.dependencies.find((d) => !names.has(d));
      if (missing !== undefined) {
        rejected.push({ node, reason: `requires plugin "${missing}", ${missingReason(missing)}` });
        alive = alive.filter((n) => n !== node);
        changed = true;
        break;
      }
    }
  }

  const ordered: T[] = [];
  const placed = new Set<string>();
  let pending = [...alive].sort((a, b) => a.index - b.index);
  while (pending.length > 0) {
    const next = pending.find((n) => n.dependencies.every((d) => placed.has(d)));
    if (!next) {
      const cycle = pending.map((n) => n.name).join(", ");
      for (const node of pending) rejected.push({ node, reason: `is in a dependency cycle among: ${cycle}` });
      break;
    }
    ordered.push(next);
    placed.add(next.name);
    pending = pending.filter((n) => n !== next);
  }
  return { ordered, rejected };
}
