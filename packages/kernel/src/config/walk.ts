/** Plain data (objects from JSON/YAML or object literals), as opposed to class instances, functions or zod schemas. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** `plugins[2].options` style paths, as users write them. */
export function joinKey(parent: string, key: string | number): string {
  if (typeof key === "number") return `${parent}[${key}]`;
  if (parent === "") return key;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
}
