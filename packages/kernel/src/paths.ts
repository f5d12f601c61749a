import { homedir } from "node:os";
import { join } from "node:path";

export interface TesseraPaths {
  /** `$XDG_CONFIG_HOME/tessera`: the global config and global plugins. */
  readonly config: string;
  /** `$XDG_DATA_HOME/tessera`: sessions. */
  readonly data: string;
  /** `$XDG_STATE_HOME/tessera`: logs. */
  readonly state: string;
  /** `$XDG_CACHE_HOME/tessera`: caches (compiled plugins …). */
  readonly cache: string;
}

/** Tessera's directories, following the XDG Base Directory spec (relative values are ignored, as it says). */
export function tesseraPaths(env: NodeJS.ProcessEnv = process.env): TesseraPaths {
  const home = env.HOME || homedir();
  const base = (name: string, fallback: string) => {
    const value = env[name];
    return value && value.startsWith("/") ? value : join(home, fallback);
  };
  return {
    config: join(base("XDG_CONFIG_HOME", ".config"), "tessera"),
    data: env.TESSERA_DATA_DIR || join(base("XDG_DATA_HOME", ".local/share"), "tessera"),
    state: join(base("XDG_STATE_HOME", ".local/state"), "tessera"),
    cache: join(base("XDG_CACHE_HOME", ".cache"), "tessera"),
  };
}
