import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "@tessera/kernel";
import { beforeAll, describe, expect, it } from "vitest";
import {
  ApprovalStore,
  approvalsFile,
  arityPattern,
  explain,
  loadBashParser,
  pathMatch,
  wildcardMatch,
  type PermissionConfig,
} from "../src/index.js";
import { bash, file, policyFor, project, type Project } from "./fixtures.js";

let p: Project;
beforeAll(async () => {
  p = project();
  await loadBashParser();
});

describe("patterns", () => {
  it('command wildcards: "*" matches anything, a trailing " *" is optional', () => {
    expect(wildcardMatch("git log *", "git log")).toBe(true);
    expect(wildcardMatch("git log *", "git log -p --stat")).toBe(true);
    expect(wildcardMatch("git log *", "git logs")).toBe(false);
    expect(wildcardMatch("git log", "git log -p")).toBe(false);
    expect(wildcardMatch("*rm -rf*", "sudo rm -rf /")).toBe(true);
    expect(wildcardMatch("npm run ?est", "npm run test")).toBe(true);
    expect(wildcardMatch("a.b *", "axb c")).toBe(false); // regex characters are literal
  });

  it("path globs: relative to the project, file names at any depth, absolute and ~ patterns, dir/** covers dir", () => {
    const at = (rel: string, abs = `/p/${rel}`) => ({ rel, abs });
    expect(pathMatch("src/**", at("src/a/b.ts"))).toBe(true);
    expect(pathMatch("src/**", at("src"))).toBe(true);
    expect(pathMatch("src/*", at("src/a/b.ts"))).toBe(false);
    expect(pathMatch("*.env", at("config/prod.env"))).toBe(true);
    expect(pathMatch(".env*", at("config/.env.local"))).toBe(true);
    expect(pathMatch("*", at("../outside/x"))).toBe(true);
    expect(pathMatch("/etc/**", at("../../etc/hosts", "/etc/hosts"))).toBe(true);
    expect(pathMatch("~/.ssh/**", at("../home/.ssh/id", "/home/me/.ssh/id"), "/home/me")).toBe(true);
  });
});

describe("rules", () => {
  it("the last matching rule wins (OpenCode's semantics), in insertion order", async () => {
    const narrowLast = policyFor(p, { bash: { "git *": "allow", "git push *": "deny" } });
    expect((await narrowLast.decide(bash("git push origin"))).status).toBe("deny");
    expect((await narrowLast.decide(bash("git fetch"))).status).toBe("allow");
    const broadLast = policyFor(p, { bash: { "git push *": "deny", "git *": "allow" } });
    expect((await broadLast.decide(bash("git push origin"))).status).toBe("allow");
  });

  it("a plain action is the rule for every pattern; a later key overrides an earlier one", async () => {
    const policy = policyFor(p, { "*": "deny", read: "allow" });
    expect((await policy.decide(file(p, "read", "src/a.ts"))).status).toBe("allow");
    expect((await policy.decide(file(p, "edit", "src/a.ts"))).status).toBe("deny");
    expect((await policy.decide(bash("git status"))).status).toBe("deny");
  });

  it("defaults: read-only tools allowed, edits inside allowed, bash asks, unknown permissions ask", async () => {
    const policy = policyFor(p);
    const status = async (permission: string, pattern = "*") => (await policy.decide({ permission, patterns: [pattern] })).status;
    for (const allowed of ["list", "grep", "glob", "todoread", "todowrite", "task"]) expect(await status(allowed)).toBe("allow");
    expect(await status("doom_loop", "bash")).toBe("ask");
    expect(await status("webfetch", "https://example.com")).toBe("ask");
    expect(await status("mcp_github_create_issue")).toBe("ask");
    expect((await policy.decide(file(p, "read", "src/a.ts"))).status).toBe("allow");
    expect((await policy.decide(file(p, "edit", "src/new.ts"))).status).toBe("allow");
    expect((await policy.decide(bash("npm install"))).status).toBe("ask");
  });

  it("reading .env files asks, .env.example is allowed", async () => {
    const policy = policyFor(p);
    expect((await policy.decide(file(p, "read", ".env"))).status).toBe("ask");
    expect((await policy.decide(file(p, "read", "config/.env.local"))).status).toBe("ask");
    expect((await policy.decide(file(p, "read", ".env.example"))).status).toBe("allow");
    expect((await policy.decide(file(p, "read", "a/../.env"))).status).toBe("ask");
  });

  it("agent rules are layered over the global ones", async () => {
    const agents: Record<string, { id: string; permission?: PermissionConfig }> = {
      reviewer: { id: "reviewer", permission: { bash: { "git push *": "deny" }, edit: "deny" } },
      builder: { id: "builder" },
    };
    const policy = policyFor(p, { bash: { "git *": "allow" } }, { agent: (id) => agents[id] });
    expect((await policy.decide(bash("git push"))).status).toBe("allow");
    expect((await policy.decide(bash("git push"), "builder")).status).toBe("allow");
    const reviewer = await policy.decide(bash("git push"), "reviewer");
    expect(reviewer.status).toBe("deny");
    expect(reviewer.decisive.rule).toMatchObject({ layer: "agent", key: 'agent.reviewer.permission.bash["git push *"]', source: "agent:reviewer" });
    expect((await policy.decide(bash("git fetch"), "reviewer")).status).toBe("allow");
    expect((await policy.decide(file(p, "edit", "src/a.ts"), "reviewer")).status).toBe("deny");
    // A redirect is an edit, so the agent's edit rule applies to bash too.
    expect((await policy.decide(bash("git log > log.txt"), "reviewer")).status).toBe("deny");
  });
});

describe("paths of file tools", () => {
  it("a read through a symlink that points outside asks for external_directory", async () => {
    const decision = await policyFor(p).decide(file(p, "read", "out-link/secret.txt"));
    expect(decision.status).toBe("ask");
    expect(decision.decisive).toMatchObject({ permission: "external_directory", subject: join(p.root, "outside", "secret.txt") });
    expect((await policyFor(p).decide(file(p, "read", "innocent.txt"))).status).toBe("ask");
  });

  it("a write to new/../../out.txt is outside the project", async () => {
    const decision = await policyFor(p).decide(file(p, "edit", "new/../../out.txt"));
    expect(decision.status).toBe("ask");
    expect(decision.decisive.permission).toBe("external_directory");
    expect(decision.decisive.approval).toEqual({ permission: "external_directory", pattern: `${p.root}/**` });
  });

  it("external_directory rules allow or deny outside paths; the permission's own rule still applies", async () => {
    const outside = join(p.root, "outside", "secret.txt");
    expect((await policyFor(p, { external_directory: { [`${p.root}/outside/**`]: "allow" } }).decide(file(p, "read", outside))).status).toBe("allow");
    expect((await policyFor(p, { external_directory: "allow", read: { "*secret*": "deny" } }).decide(file(p, "read", outside))).status).toBe("deny");
    expect((await policyFor(p, { external_directory: "deny" }).decide(bash(`cat ${outside}`))).status).toBe("deny");
  });

  it("protected paths ask under allow-all; only a rule that names them decides", async () => {
    const hook = file(p, "edit", ".git/hooks/pre-commit");
    expect((await policyFor(p, { "*": "allow" }).decide(hook)).status).toBe("ask");
    expect((await policyFor(p, { edit: "allow" }).decide(hook)).status).toBe("ask");
    expect((await policyFor(p, { edit: { "*": "allow", "**": "allow" } }).decide(hook)).status).toBe("ask");
    expect((await policyFor(p, { edit: { ".git/hooks/*": "allow" } }).decide(hook)).status).toBe("allow");
    expect((await policyFor(p, { edit: { ".git/**": "deny" } }).decide(hook)).status).toBe("deny");
    expect((await policyFor(p, { edit: { "*": "deny", ".git/hooks/*": "allow" } }).decide(hook)).status).toBe("allow");
    for (const path of ["tessera.config.ts", ".tesserarc.json", ".tessera/plugins/x.ts", "packages/a/.git/config", "sub/tessera.config.yaml"]) {
      expect((await policyFor(p, { "*": "allow" }).decide(file(p, "edit", path))).status, path).toBe("ask");
    }
    // Reading them is not protected.
    expect((await policyFor(p).decide(file(p, "read", ".git/config"))).status).toBe("allow");
  });

  it("a symlink inside the project that points into .git is protected", async () => {
    symlinkSync(join(p.dir, ".git", "hooks"), join(p.dir, "hooks-link"));
    expect((await policyFor(p, { "*": "allow" }).decide(file(p, "edit", "hooks-link/pre-push"))).status).toBe("ask");
  });
});

describe("always approvals and arity", () => {
  it("stores the arity prefix for commands", () => {
    const w = (...values: string[]) => values.map((value) => ({ value, dynamic: false }));
    expect(arityPattern(w("git", "checkout", "main"))).toBe("git checkout *");
    expect(arityPattern(w("npm", "run", "dev", "--port", "3000"))).toBe("npm run dev *");
    expect(arityPattern(w("pnpm", "install"))).toBe("pnpm install *");
    expect(arityPattern(w("docker", "compose", "up", "-d"))).toBe("docker compose up *");
    expect(arityPattern(w("rm", "-rf", "build"))).toBe("rm *");
    expect(arityPattern(w("git", "-C", "x", "status"))).toBe("git -C x status");
  });

  it("approvals turn a rule's ask into allow, never a deny, never a protected path they do not name", async () => {
    const store = new ApprovalStore(undefined, p.dir);
    store.add([{ permission: "bash", pattern: "git checkout *" }, { permission: "edit", pattern: "*" }]);
    const policy = policyFor(p, { bash: { "git reset *": "deny" } }, { approvals: () => store.rules() });
    const decision = await policy.decide(bash("git checkout main"));
    expect(decision.status).toBe("allow");
    expect(decision.decisive.rule).toMatchObject({ layer: "approval", pattern: "git checkout *" });
    store.add([{ permission: "bash", pattern: "git reset *" }]);
    expect((await policy.decide(bash("git reset --hard"))).status).toBe("deny");
    expect((await policy.decide(file(p, "edit", ".git/config"))).status).toBe("ask");
  });

  it("the approvals file is per project root", () => {
    expect(approvalsFile("/data", "/a")).not.toBe(approvalsFile("/data", "/b"));
    expect(approvalsFile("/data", "/a")).toMatch(/^\/data\/permissions\/[0-9a-f]{16}\.json$/);
  });
});

describe("explain", () => {
  it("names the config file, key and pattern of the rule that decided", async () => {
    const dir = join(p.root, "explained");
    mkdirSync(join(dir, ".git"), { recursive: true });
    const configFile = join(dir, "tessera.config.json");
    writeFileSync(configFile, JSON.stringify({ permission: { bash: { "git *": "allow", "git push *": "deny" } } }));
    const config = await loadConfig({ cwd: dir, globalDir: false });

    const result = await explain("bash", "git status && git push origin main", { config, directory: dir, dataDir: false });
    expect(result).toMatchObject({
      permission: "bash",
      input: "git status && git push origin main",
      decision: "deny",
      rule: { source: configFile, key: 'permission.bash["git push *"]', pattern: "git push *", action: "deny", layer: "config" },
    });
    expect(result.reason).toContain(configFile);
    expect(result.details).toEqual([
      expect.objectContaining({ permission: "bash", subject: "git status", action: "allow", rule: expect.objectContaining({ pattern: "git *", source: configFile }) }),
      expect.objectContaining({ permission: "bash", subject: "git push origin main", action: "deny", command: "git push origin main" }),
    ]);
    // JSON-serialisable as the CLI prints it.
    expect(JSON.parse(JSON.stringify(result))).toEqual(result);
  });

  it('says "default" when a built-in default decided, with the suggestion to allow it', async () => {
    const result = await explain("bash", "rm -rf build", { directory: p.dir, dataDir: false });
    expect(result.decision).toBe("ask");
    expect(result.rule).toBe("default");
    expect(result.details[0]).toMatchObject({ rule: { source: "default", pattern: "*", action: "ask" }, suggestion: { permission: "bash", pattern: "rm *" } });
    expect(result.reason).toContain('"permission": { "bash": { "rm *": "allow" } }');
  });

  it("explains paths and agents", async () => {
    const env = await explain("read", ".env", { directory: p.dir, dataDir: false });
    expect(env).toMatchObject({ decision: "ask", rule: "default", details: [expect.objectContaining({ rule: expect.objectContaining({ pattern: ".env*" }) })] });
    const plan = await explain("edit", "src/a.ts", { directory: p.dir, dataDir: false, agent: "plan" });
    expect(plan).toMatchObject({ agent: "plan", decision: "deny", rule: { layer: "agent", key: "agent.plan.permission.edit" } });
    await expect(explain("edit", "x", { directory: p.dir, dataDir: false, agent: "nobody" })).rejects.toThrow(/unknown agent/);
  });
});
