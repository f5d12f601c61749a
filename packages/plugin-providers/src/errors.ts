/** No API key for a provider that needs one. The message names the variable and the config key. */
export class MissingApiKeyError extends Error {
  override readonly name = "MissingApiKeyError";
  constructor(
    readonly providerID: string,
    /** The environment variables that were checked, preferred first. */
    readonly variables: readonly string[],
    /** The config key that holds the key, e.g. `provider.anthropic.options.apiKey`. */
    readonly configKey: string,
  ) {
    const vars = variables.length > 0 ? variables.map((v) => v).join(" or ") : undefined;
    super(
      `No API key for provider "${providerID}". ` +
        (vars ? `Set the environment variable ${vars}, or set "${configKey}" in the config` : `Set "${configKey}" in the config`) +
        (vars ? ` (e.g. "apiKey": "{env:${variables[0]}}").` : "."),
    );
  }
}

/** A model id the provider does not know; the message suggests the closest ones. */
export class UnknownModelError extends Error {
  override readonly name = "UnknownModelError";
  constructor(
    readonly providerID: string,
    readonly modelID: string,
    readonly suggestions: readonly string[],
    known: readonly string[],
  ) {
    const hint =
      suggestions.length > 0
        ? ` Did you mean ${suggestions.map((s) => `"${providerID}/${s}"`).join(", ")}?`
        : known.length > 0
          ? ` Known models: ${known.slice(0, 12).join(", ")}${known.length > 12 ? ", …" : ""}.`
          : "";
    super(
      `Unknown model "${modelID}" for provider "${providerID}".${hint} ` +
        `To use a model the catalog does not list, add it to the config: "provider": { "${providerID}": { "models": { "${modelID}": {} } } }.`,
    );
  }
}

/** A provider's config cannot work (no package, no baseURL, a package without a factory …). */
export class ProviderConfigError extends Error {
  override readonly name = "ProviderConfigError";
  constructor(
    readonly providerID: string,
    message: string,
  ) {
    super(`Provider "${providerID}": ${message}`);
  }
}

/** Up to `max` candidates close to `input`: same id modulo case/punctuation, a prefix, or a small edit distance. */
export function suggest(input: string, candidates: readonly string[], max = 3): string[] {
  const norm = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, "");
  const target = norm(input);
  const scored: Array<{ id: string; score: number }> = [];
  for (const id of candidates) {
    const other = norm(id);
    let score: number;
    if (other === target) score = 0;
    else if (other.startsWith(target) || target.startsWith(other)) score = 1 + Math.abs(other.length - target.length) / 10;
    else {
      const distance = levenshtein(input.toLowerCase(), id.toLowerCase());
      const allowed = Math.max(2, Math.floor(Math.max(input.length, id.length) / 3));
      if (distance > allowed) continue;
      score = 2 + distance;
    }
    scored.push({ id, score });
  }
  return scored
    .sort((a, b) => a.score - b.score || a.id.localeCompare(b.id))
    .slice(0, max)
    .map((s) => s.id);
}

function levenshtein(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length]!;
}
