import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Policy, type PermissionConfig, type PolicyOptions } from "../src/index.js";

/**
 * A project on disk for decisions:
 *   root/project/{.git/hooks, src/a.ts, .env, .env.example, config/.env.local, etc-link → /etc, out-link → root/outside}
 *   root/home/.ssh, root/outside/secret.txt
 */
export function project() {
  const root = mkdtempSync(join(tmpdir(), "tessera-perm-fx-"));
  const dir = join(root, "project");
  const home = join(root, "home");
  mkdirSync(join(dir, ".git", "hooks"), { recursive: true });
  mkdirSync(join(dir, "src"), { recursive: true });
  mkdirSync(join(dir, "config"), { recursive: true });
  mkdirSync(join(dir, "a"), { recursive: true });
  mkdirSync(join(home, ".ssh"), { recursive: true });
  mkdirSync(join(root, "outside"), { recursive: true });
  writeFileSync(join(dir, "src", "a.ts"), "export {};\n");
  writeFileSync(join(dir, ".env"), "SECRET=1\n");
  writeFileSync(join(dir, ".env.example"), "SECRET=\n");
  writeFileSync(join(dir, "config", ".env.local"), "SECRET=2\n");
  writeFileSync(join(root, "outside", "secret.txt"), "secret\n");
  symlinkSync("/etc", join(dir, "etc-link"));
  symlinkSync(join(root, "outside"), join(dir, "out-link"));
  symlinkSync(join(root, "outside", "secret.txt"), join(dir, "innocent.txt"));
  return { root, dir, home };
}

export type Project = ReturnType<typeof project>;

export function policyFor(p: Project, permission?: PermissionConfig, extra: Partial<PolicyOptions> = {}): Policy {
  return new Policy({ directory: p.dir, root: p.dir, home: p.home, permission, ...extra });
}

export const bash = (command: string, cwd?: string) => ({ permission: "bash", patterns: [command], metadata: { command, ...(cwd ? { cwd } : {}) } });

export const file = (p: Project, permission: "read" | "edit", path: string) => ({
  permission,
  patterns: [path],
  metadata: { filepath: path.startsWith("/") ? path : join(p.dir, path) },
});
