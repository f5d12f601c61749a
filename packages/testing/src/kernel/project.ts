import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A temp root holding a git project (`project/`) and an isolated home (`home/`). */
export interface TempProject {
  /** The temp root (its real path). */
  root: string;
  /** `root/project`, with an empty `.git` so the kernel sees a git project. */
  dir: string;
  /** `root/home`. */
  home: string;
  /** `HOME`, `XDG_CONFIG_HOME`, `XDG_DATA_HOME`, `XDG_STATE_HOME` under `home`, and `PATH`: nothing of the real user leaks in. */
  env: NodeJS.ProcessEnv;
  /** Removes `root`. */
  remove(): void;
}

/** Makes a temp project (see `TempProject`); `prefix` names the temp root. */
export function tempProject(options: { prefix?: string } = {}): TempProject {
  const root = realpathSync(mkdtempSync(join(tmpdir(), options.prefix ?? "tessera-test-")));
  const dir = join(root, "project");
  mkdirSync(join(dir, ".git"), { recursive: true });
  const home = join(root, "home");
  mkdirSync(home);
  const env: NodeJS.ProcessEnv = {
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local/share"),
    XDG_STATE_HOME: join(home, ".local/state"),
    PATH: process.env.PATH,
  };
  return { root, dir, home, env, remove: () => rmSync(root, { recursive: true, force: true }) };
}
