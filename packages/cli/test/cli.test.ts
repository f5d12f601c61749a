import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { project, runCli, write } from "./helpers.js";

describe("tessera --version and --help", () => {
  it("prints the version and exits 0", async () => {
    const { dir, home } = project("empty");
    const run = await runCli(["--version"], { cwd: dir, home });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^tessera \d+\.\d+\.\d+\n$/);
  });

  it("lists the commands with --help", async () => {
    const { dir, home } = project("empty");
    const run = await runCli(["--help"], { cwd: dir, home });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("plugins");
    expect(run.stdout).toContain("config");
  });

  it("explains a command with <command> --help", async () => {
    const { dir, home } = project("empty");
    const run = await runCli(["plugins", "--help"], { cwd: dir, home });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Usage: tessera plugins");
  });

  it("exits 2 on an unknown command or flag", async () => {
    const { dir, home } = project("empty");
    expect((await runCli(["frobnicate"], { cwd: dir, home })).code).toBe(2);
    const flag = await runCli(["plugins", "--frobnicate"], { cwd: dir, home });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("--frobnicate");
  });
});

describe("tessera plugins", () => {
  it("lists a discovered plugin with its hook and reports a setup failure by name and stage", async () => {
    const { dir, home } = project("hello-and-broken");
    const run = await runCli(["plugins", "--json"], { cwd: dir, home });
    expect(run.code).toBe(0);
    const json = JSON.parse(run.stdout);
    expect(json.plugins.map((p: { name: string }) => p.name)).toEqual([
      "@tessera/plugin-providers",
      "@tessera/plugin-tools",
      "@tessera/plugin-permissions",
      "hello",
    ]);
    expect(json.plugins.at(-1)).toEqual({ name: "hello", version: "1.2.3", source: join(dir, ".tessera/plugins"), hooks: ["tool.execute.before"] });
    expect(json.errors).toHaveLength(1);
    expect(json.errors[0]).toMatchObject({ plugin: "broken", stage: "setup" });
    expect(json.errors[0].message).toContain("cannot start: missing WIDGET_URL");
  });

  it("prints a readable list without --json, and no colour when piped", async () => {
    const { dir, home } = project("hello-and-broken");
    const run = await runCli(["plugins"], { cwd: dir, home });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("hello 1.2.3");
    expect(run.stdout).toContain("hooks: tool.execute.before");
    expect(run.stdout).toMatch(/broken\s+setup/);
    expect(run.stdout).not.toContain("\x1b[");
  });

  it("uses colour when FORCE_COLOR is set, and NO_COLOR wins", async () => {
    const { dir, home } = project("hello-and-broken");
    const forced = await runCli(["plugins"], { cwd: dir, home, env: { FORCE_COLOR: "1" } });
    expect(forced.stdout).toContain("\x1b[");
    const none = await runCli(["plugins"], { cwd: dir, home, env: { FORCE_COLOR: "1", NO_COLOR: "1" } });
    expect(none.stdout).not.toContain("\x1b[");
  });

  it("works from a subdirectory and with --dir", async () => {
    const { dir, home } = project("hello-and-broken");
    write(join(dir, "src/deep/file.txt"), "x");
    const fromSub = await runCli(["plugins", "--json"], { cwd: join(dir, "src/deep"), home });
    const names = (stdout: string) => JSON.parse(stdout).plugins.map((p: { name: string }) => p.name);
    expect(names(fromSub.stdout)).toContain("hello");
    const withDir = await runCli(["plugins", "--json", "--dir", dir], { cwd: home, home });
    expect(names(withDir.stdout)).toContain("hello");
  });

  it("writes plugin load errors to the log file under XDG_STATE_HOME", async () => {
    const { dir, home } = project("hello-and-broken");
    await runCli(["plugins"], { cwd: dir, home });
    const { readFileSync } = await import("node:fs");
    const log = readFileSync(join(home, ".local/state/tessera/log/tessera.log"), "utf8");
    expect(log).toContain('"plugin":"broken"');
  });

  it("exits 1 with the file and key when the config is invalid", async () => {
    const { dir, home } = project("empty");
    write(join(dir, "tessera.config.json"), JSON.stringify({ plugin: ["x"] }));
    const run = await runCli(["plugins"], { cwd: dir, home });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(join(dir, "tessera.config.json"));
    expect(run.stderr).toContain('did you mean "plugins"');
  });
});

describe("tessera config", () => {
  it("names the file each key came from, inner directories winning, global underneath", async () => {
    const { dir, home } = project("config-layers");
    write(join(home, ".config/tessera/config.json"), JSON.stringify({ small_model: "mock/global-small" }));
    const run = await runCli(["config", "--json"], { cwd: join(dir, "sub"), home, env: { MOCK_KEY: "sk-secret" } });
    expect(run.code).toBe(0);
    const json = JSON.parse(run.stdout);
    expect(json.files).toEqual([
      join(home, ".config/tessera/config.json"),
      join(dir, "tessera.config.json"),
      join(dir, "sub/.tesserarc.yaml"),
    ]);
    expect(json.config.model).toBe("mock/inner-model");
    expect(json.sources).toMatchObject({
      model: join(dir, "sub/.tesserarc.yaml"),
      small_model: join(home, ".config/tessera/config.json"),
      "provider.mock.options.baseURL": join(dir, "tessera.config.json"),
    });
  });

  it("masks secrets, including substituted ones", async () => {
    const { dir, home } = project("config-layers");
    const run = await runCli(["config"], { cwd: dir, home, env: { MOCK_KEY: "sk-secret" } });
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain("sk-secret");
    expect(run.stdout).toContain("provider.mock.options.apiKey");
    expect(run.stdout).toContain(`# ${join(dir, "tessera.config.json")}`);
  });
});
