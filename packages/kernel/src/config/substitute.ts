import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, resolve } from "node:path";
import { ConfigError } from "../errors.js";
import { isPlainObject, joinKey } from "./walk.js";

const TOKEN = /\{(env|file):([^}]+)\}/g;

/**
 * Replaces `{env:VAR}` (empty when unset) and `{file:path}` (the file's text, trailing newline
 * removed; relative to the config file, `~/` for home) in every string value of a config.
 * A missing file is an error naming the config file and the key.
 */
export function substitute<T>(value: T, file: string, env: NodeJS.ProcessEnv, key = ""): T {
  if (typeof value === "string") return replaceTokens(value, file, env, key) as T;
  if (Array.isArray(value)) return value.map((item, i) => substitute(item, file, env, joinKey(key, i))) as T;
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = substitute(v, file, env, joinKey(key, k));
    return out as T;
  }
  return value;
}

function replaceTokens(text: string, file: string, env: NodeJS.ProcessEnv, key: string): string {
  if (!text.includes("{")) return text;
  return text.replace(TOKEN, (_match, kind: string, arg: string) => {
    const name = arg.trim();
    if (kind === "env") return env[name] ?? "";
    const path = name.startsWith("~/") ? resolve(homedir(), name.slice(2)) : name;
    const full = isAbsolute(path) ? path : resolve(dirname(file), path);
    try {
      return readFileSync(full, "utf8").replace(/\r?\n$/, "");
    } catch (error) {
      throw new ConfigError(file, key, `{file:${name}} cannot be read (${full}): ${(error as Error).message}`, error);
    }
  });
}
