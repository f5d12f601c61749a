/**
 * Rule 7: config — every file form, found from a subdirectory up to the repository root (never
 * above), the global layer under the project, substitution, validation errors that name the file
 * and key, per-key provenance, and the shipped JSON Schema.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import {
  CONFIG_FILES,
  ConfigError,
  configJsonSchema,
  createKernel,
  ErrorCodes,
  loadConfig,
  type ResolvedConfig,
} from "@tessera/kernel";
import { captureLog, kernelFor, never, plugin, project, rejectionOf, type Project } from "./helpers.js";

/** Loads config the way the kernel does, from a subdirectory of the project. */
async function loadFrom(p: Project, subdirectory = "packages/app/src"): Promise<ResolvedConfig> {
  return loadConfig({ cwd: p.mkdir(subdirectory), env: p.env });
}

async function configErrorOf(p: Project): Promise<ConfigError> {
  const error = await rejectionOf(loadConfig({ cwd: p.root, env: p.env }));
  expect(error).toBeInstanceOf(ConfigError);
  expect(error).toMatchObject({ code: ErrorCodes.CONFIG_INVALID });
  return error as ConfigError;
}

describe("discovery", () => {
  const forms = [
    ["ts", "tessera.config.ts"],
    ["mts", "tessera.config.mts"],
    ["js", "tessera.config.js"],
    ["mjs", "tessera.config.mjs"],
    ["cjs", "tessera.config.cjs"],
    ["json", "tessera.config.json"],
    ["yaml", "tessera.config.yaml"],
    ["tesserarc", ".tesserarc"],
    ["tesserarc-json", ".tesserarc.json"],
    ["tesserarc-yaml", ".tesserarc.yaml"],
    ["package-json", "package.json"],
  ] as const;

  test("every documented form is a known config file name", () => {
    for (const [, file] of forms) expect(CONFIG_FILES).toContain(file);
  });

  test.each(forms)("%s: %s at the repository root is found from a subdirectory", async (form, file) => {
    const p = project(`config-forms/${form}`);
    const resolved = await loadFrom(p);
    expect(resolved.config).toEqual({ model: `form/${form}`, log_level: "info" });
    expect(resolved.files).toEqual([p.path(file)]);
    expect(resolved.sources).toEqual({ model: p.path(file), log_level: p.path(file) });
    expect(resolved.root).toBe(p.root);
    expect(resolved.directory).toBe(p.path("packages/app/src"));
  });

  test("a package.json without a tessera key is not config; the next form in that folder is used", async () => {
    const p = project("config-forms/tesserarc-json");
    p.write("package.json", JSON.stringify({ name: "no-config-here", private: true }));
    const resolved = await loadFrom(p);
    expect(resolved.config.model).toBe("form/tesserarc-json");
    expect(resolved.files).toEqual([p.path(".tesserarc.json")]);
  });

  test("a config file above the repository root is not read", async () => {
    const p = project("config-above");
    const resolved = await loadFrom(p);
    expect(resolved.config).toEqual({ log_level: "info" });
    expect(resolved.files).toEqual([p.path(".tesserarc.json")]);
  });

  test("files between the root and the working directory are all read; inner ones win", async () => {
    const p = project("config-layers");
    const resolved = await loadConfig({ cwd: p.mkdir("packages/app/src"), env: p.env, globalDir: false });
    expect(resolved.files).toEqual([p.path("tessera.config.json"), p.path("packages/app/.tesserarc.json")]);
    expect(resolved.config.model).toBe("app/inner");
    expect(resolved.sources.model).toBe(p.path("packages/app/.tesserarc.json"));
  });

  test("a directory outside any repository only reads its own config", async () => {
    const p = project("config-forms/json", { git: false });
    p.write("packages/app/.tesserarc.json", JSON.stringify({ log_level: "debug" }));
    const resolved = await loadConfig({ cwd: p.path("packages/app"), env: p.env });
    expect(resolved.root).toBe(p.path("packages/app"));
    expect(resolved.config).toEqual({ log_level: "debug" });
  });

  test("the kernel loads config from its directory", async () => {
    const p = project("config-forms/yaml");
    const { kernel } = await kernelFor(p, { directory: p.mkdir("src") });
    expect(kernel.config.config.model).toBe("form/yaml");
    expect(kernel.root).toBe(p.root);
    expect(kernel.directory).toBe(p.path("src"));
  });
});

describe("the global layer", () => {
  test("is merged under the project: project keys win, global keys fill in, objects merge deeply", async () => {
    const p = project("config-layers");
    const resolved = await loadFrom(p);
    const globalFile = join(p.global, "config.json");
    const rootFile = p.path("tessera.config.json");
    const appFile = p.path("packages/app/.tesserarc.json");
    expect(resolved.files).toEqual([globalFile, rootFile, appFile]);
    expect(resolved.config.model).toBe("app/inner");
    expect(resolved.config.log_level).toBe("warn");
    expect(resolved.config.provider).toEqual({ acme: { options: { region: "eu", timeout: 10 } } });
  });

  test("plugin lists are concatenated, global first, with duplicates kept once at the higher layer's place", async () => {
    const p = project("config-layers");
    const resolved = await loadFrom(p);
    const globalFile = join(p.global, "config.json");
    const rootFile = p.path("tessera.config.json");
    const appFile = p.path("packages/app/.tesserarc.json");
    expect(resolved.config.plugins).toEqual(["global-only", "shared-plugin", "./plugins/local.ts", "./app-plugin.ts"]);
    expect(resolved.plugins).toEqual([
      { spec: "global-only", source: globalFile, key: "plugins[1]" },
      { spec: "shared-plugin", source: rootFile, key: "plugins[0]" },
      { spec: "./plugins/local.ts", source: rootFile, key: "plugins[1]" },
      { spec: "./app-plugin.ts", source: appFile, key: "plugins[0]" },
    ]);
  });

  test("the same relative path listed in two folders names two different plugins", async () => {
    const p = project();
    p.write("tessera.config.json", JSON.stringify({ plugins: ["./plugin.ts"] }));
    p.write("sub/tessera.config.json", JSON.stringify({ plugins: ["./plugin.ts"] }));
    const resolved = await loadConfig({ cwd: p.path("sub"), env: p.env });
    expect(resolved.plugins.map((e) => e.source)).toEqual([p.path("tessera.config.json"), p.path("sub/tessera.config.json")]);
  });

  test("sources names the file every key came from, down to nested keys", async () => {
    const p = project("config-layers");
    const resolved = await loadFrom(p);
    const globalFile = join(p.global, "config.json");
    const rootFile = p.path("tessera.config.json");
    const appFile = p.path("packages/app/.tesserarc.json");
    expect(resolved.sources).toEqual({
      model: appFile,
      log_level: globalFile,
      "provider.acme.options.region": globalFile,
      "provider.acme.options.timeout": rootFile,
      "plugins[0]": globalFile,
      "plugins[1]": rootFile,
      "plugins[2]": rootFile,
      "plugins[3]": appFile,
    });
  });

  test("is read from $XDG_CONFIG_HOME/tessera, also as YAML, and can be turned off", async () => {
    const p = project();
    p.write(".tesserarc.json", JSON.stringify({ model: "project/model" }));
    const { writeFileSync } = await import("node:fs");
    writeFileSync(join(p.global, "config.yaml"), "log_level: error\nmodel: global/model\n");
    const resolved = await loadConfig({ cwd: p.root, env: p.env });
    expect(resolved.config).toEqual({ model: "project/model", log_level: "error" });
    expect(resolved.sources.log_level).toBe(join(p.global, "config.yaml"));
    const projectOnly = await loadConfig({ cwd: p.root, env: p.env, globalDir: false });
    expect(projectOnly.config).toEqual({ model: "project/model" });
  });
});

describe("substitution", () => {
  const env = (p: Project) => ({ ...p.env, TESSERA_TEST_MODEL: "acme/fast-1", ACME_API_KEY: "sk-123" });

  test("{env:VAR} is replaced by the variable from the given environment, empty when unset", async () => {
    const p = project("config-substitution");
    const resolved = await loadConfig({ cwd: p.mkdir("packages/app"), env: env(p) });
    expect(resolved.config.model).toBe("acme/fast-1");
    expect(resolved.config.provider?.acme?.options).toEqual({ apiKey: "Bearer sk-123", unset: "[]" });
  });

  test("{file:path} is replaced by the file's text, relative to the config file, without the trailing newline", async () => {
    const p = project("config-substitution");
    const resolved = await loadConfig({ cwd: p.mkdir("packages/app"), env: env(p) });
    expect(resolved.config.agent?.review?.prompt).toBe("Review the diff carefully.\nMention every risk.");
  });

  test("a {file:path} that does not exist is an error naming the config file and key", async () => {
    const p = project();
    const file = p.write("tessera.config.json", JSON.stringify({ agent: { review: { prompt: "{file:prompts/missing.md}" } } }));
    const error = await configErrorOf(p);
    expect(error.file).toBe(file);
    expect(error.key).toBe("agent.review.prompt");
    expect(error.message).toContain("missing.md");
  });

  test("substituted values are validated: an unset variable in model fails with the key", async () => {
    const p = project("config-substitution");
    const error = await rejectionOf(loadConfig({ cwd: p.root, env: { ...p.env, ACME_API_KEY: "x" } }));
    expect(error).toMatchObject({ file: p.path("tessera.config.yaml"), key: "model" });
  });
});

describe("validation", () => {
  test("an unknown key is an error naming the file and key, with a did-you-mean suggestion", async () => {
    const p = project();
    const file = p.write("tessera.config.json", JSON.stringify({ modle: "acme/m1" }));
    const error = await configErrorOf(p);
    expect(error.file).toBe(file);
    expect(error.key).toBe("modle");
    expect(error.message).toContain(file);
    expect(error.message).toMatch(/unknown key "modle"; did you mean "model"\?/);
  });

  test("an unknown nested key suggests a sibling key of the same object", async () => {
    const p = project();
    const file = p.write("tessera.config.yaml", "timeouts:\n  hok: 100\n");
    const error = await configErrorOf(p);
    expect(error.file).toBe(file);
    expect(error.key).toBe("timeouts.hok");
    expect(error.message).toMatch(/did you mean "hook"\?/);
  });

  test("an unknown key that resembles nothing gets no suggestion", async () => {
    const p = project();
    p.write("tessera.config.json", JSON.stringify({ completelyUnrelated: true }));
    const error = await configErrorOf(p);
    expect(error.key).toBe("completelyUnrelated");
    expect(error.message).not.toContain("did you mean");
  });

  test("a value of the wrong type is an error at its key path, e.g. timeouts.hook", async () => {
    const p = project();
    const file = p.write("tessera.config.yaml", "timeouts:\n  hook: fast\n");
    const error = await configErrorOf(p);
    expect(error.file).toBe(file);
    expect(error.key).toBe("timeouts.hook");
    expect(error.message).toContain(`${file} at "timeouts.hook"`);
  });

  test("an invalid value deep in a record names the full key path", async () => {
    const p = project();
    p.write("tessera.config.json", JSON.stringify({ agent: { review: { permission: { bash: "sometimes" } } } }));
    const error = await configErrorOf(p);
    expect(error.key).toBe("agent.review.permission.bash");
  });

  test("an error in the global layer names the global file", async () => {
    const p = project();
    const { writeFileSync } = await import("node:fs");
    writeFileSync(join(p.global, "config.json"), JSON.stringify({ strict: "yes" }));
    const error = await configErrorOf(p);
    expect(error.file).toBe(join(p.global, "config.json"));
    expect(error.key).toBe("strict");
  });

  test("a file that does not parse is an error naming the file", async () => {
    const p = project();
    const file = p.write("tessera.config.json", "{ not json");
    const error = await configErrorOf(p);
    expect(error.file).toBe(file);
  });

  test("a config that is not an object is an error naming the file", async () => {
    const p = project();
    const file = p.write("tessera.config.json", "[1, 2]");
    const error = await configErrorOf(p);
    expect(error.file).toBe(file);
    expect(error.message).toContain("array");
  });

  test("createKernel rejects with the ConfigError", async () => {
    const p = project();
    p.write("tessera.config.json", JSON.stringify({ modle: "x/y" }));
    await expect(createKernel({ directory: p.root, env: p.env, log: captureLog().sink })).rejects.toBeInstanceOf(ConfigError);
  });
});

describe("config values the kernel uses", () => {
  test("timeouts.hook sets the hook timeout", async () => {
    const p = project();
    p.write("tessera.config.json", JSON.stringify({ timeouts: { hook: 30 } }));
    const { kernel } = await kernelFor(p, { plugins: [plugin("sleepy", (ctx) => ctx.tap("shell.env", () => never()))] });
    await expect(kernel.trigger("shell.env", { cwd: p.root, sessionID: "s" }, { env: {} })).rejects.toMatchObject({
      code: ErrorCodes.PLUGIN_TIMEOUT,
      message: expect.stringContaining("30 ms"),
    });
  }, 2000);

  test("strict: true in config makes a load failure throw", async () => {
    const p = project();
    p.write("tessera.config.json", JSON.stringify({ strict: true, plugins: ["tessera-plugin-that-does-not-exist"] }));
    await expect(createKernel({ directory: p.root, env: p.env, log: captureLog().sink })).rejects.toMatchObject({
      code: ErrorCodes.PLUGIN_RESOLVE,
    });
  });
});

describe("the JSON Schema", () => {
  test("the shipped schema/config.schema.json equals configJsonSchema()", () => {
    const shipped = JSON.parse(readFileSync(new URL("../schema/config.schema.json", import.meta.url), "utf8")) as unknown;
    expect(shipped).toEqual(JSON.parse(JSON.stringify(configJsonSchema())));
  });

  test("describes every top-level config key and rejects unknown ones", () => {
    const schema = configJsonSchema() as { properties: Record<string, unknown>; additionalProperties: unknown };
    expect(Object.keys(schema.properties).sort()).toEqual(
      [
        "$schema",
        "plugins",
        "strict",
        "disabled_plugins",
        "timeouts",
        "log_level",
        "model",
        "small_model",
        "provider",
        "agent",
        "permission",
      ].sort(),
    );
    expect(schema.additionalProperties).toBe(false);
  });
});
