/** Three identical calls in a row (the same tool with the same input) look like a loop. */
export const DOOM_LOOP_THRESHOLD = 3;

export interface RecentCall {
  readonly tool: string;
  readonly input: unknown;
}

/** True when `call` would be the DOOM_LOOP_THRESHOLD-th identical call in a row. */
export function isDoomLoop(recent: readonly RecentCall[], call: RecentCall): boolean {
  if (recent.length < DOOM_LOOP_THRESHOLD - 1) return false;
  const key = canonical(call.input);
  return recent
    .slice(-(DOOM_LOOP_THRESHOLD - 1))
    .every((previous) => previous.tool === call.tool && canonical(previous.input) === key);
}

/** JSON with sorted keys, so `{a,b}` and `{b,a}` count as the same input. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}
