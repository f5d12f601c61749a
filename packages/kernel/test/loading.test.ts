/**
 * Rule 8: loading plugins — npm names (project, then global), TypeScript paths with no build step,
 * inline objects, `[spec, options]` tuples, `.tessera/plugins` discovery, and failures reported by
 * stage while the other plugins keep loading (or thrown under `strict`).
 */
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { z } from "zod";
import {
  createKernel,
  definePlugin,
  ErrorCodes,
  PluginLoadError,
  type ChatSystemInput,
  type Kernel,
  type PluginInfo,
} from "@tessera/kernel";
import { captureLog, kernelFor, kernelWith, never, plugin, project, rejectionOf, type Project } from "./helpers.js";

const input: ChatSystemInput = { sessionID: "s1", agent: "build", model: { providerID: "p", modelID: "m" } };
const system = async (kernel: Kernel) => (await kernel.trigger("chat.system", input, { system: [] })).system;
const info = (kernel: Kernel, name: string): PluginInfo | undefined => kernel.describe().plugins.find((p) => p.name === name);

/** The `loading` fixture, with zod installed in the project as a plugin author would have it. */
function loadingProject(): Project {
  const p = project("loading");
  p.link("zod");
  return p;
}

describe("loading plugins (fixture: loading)", () => {
  test("every kind of plugin loads; taps run in config order, then global, then project discovered plugins", async () => {
    const p = loadingProject();
    const { kernel, log } = await kernelFor(p);
    expect(kernel.describe().errors).toEqual([]);
    expect(log.problems()).toEqual([]);
    expect(await system(kernel)).toEqual([
      "npm:project",
      "npm:global",
      "shadowed:project",
      "typed",
      "greeter:hellox2",
      "inline",
      "global-discovered",
      "discovered-js",
      "discovered (same kernel)",
    ]);
  });

  test("an npm name resolves from the project's node_modules through package.json exports", async () => {
    const p = loadingProject();
    const { kernel } = await kernelFor(p);
    expect(info(kernel, "tessera-plugin-local")).toMatchObject({
      version: "2.0.0",
      spec: "tessera-plugin-local",
      source: p.path("tessera.config.ts"),
      file: p.path("node_modules/tessera-plugin-local/dist/index.js"),
    });
  });

  test("an npm name missing from the project resolves from $XDG_CONFIG_HOME/tessera/node_modules", async () => {
    const p = loadingProject();
    const { kernel } = await kernelFor(p);
    expect(info(kernel, "@acme/tessera-plugin-global")).toMatchObject({
      version: "0.5.0",
      file: join(p.global, "node_modules/@acme/tessera-plugin-global/main.js"),
    });
  });

  test("the project's copy of a package wins over the global one", async () => {
    const p = loadingProject();
    const { kernel } = await kernelFor(p);
    expect(info(kernel, "tessera-plugin-shadowed")).toMatchObject({
      version: "1.0.0",
      file: p.path("node_modules/tessera-plugin-shadowed/index.js"),
    });
  });

  test("npm names and relative paths resolve from a subdirectory: up to the project's node_modules, against the config file", async () => {
    const p = loadingProject();
    const { kernel } = await kernelFor(p, { directory: p.mkdir("packages/app") });
    expect(kernel.describe().errors).toEqual([]);
    expect(info(kernel, "tessera-plugin-local")?.file).toBe(p.path("node_modules/tessera-plugin-local/dist/index.js"));
    expect(info(kernel, "typed")?.file).toBe(p.path("plugins/typed.ts"));
  });

  test("a TypeScript plugin file loads with no build step", async () => {
    const p = loadingProject();
    const { kernel } = await kernelFor(p);
    expect(info(kernel, "typed")).toMatchObject({ version: "1.2.3", spec: "./plugins/typed.ts", file: p.path("plugins/typed.ts") });
    const shout = kernel.tools.get("shout");
    await expect(shout?.execute({ text: "hi" }, undefined as never)).resolves.toEqual({ title: "shout", output: "HI" });
  });

  test("an inline plugin object in a TypeScript config loads", async () => {
    const p = loadingProject();
    const { kernel } = await kernelFor(p);
    const inline = info(kernel, "inline");
    expect(inline).toMatchObject({ version: "0.3.0", spec: "inline", source: p.path("tessera.config.ts") });
    expect(inline?.file).toBeUndefined();
  });

  test("[spec, options] passes the options, validated and with defaults, to setup", async () => {
    const p = loadingProject();
    const { kernel } = await kernelFor(p);
    expect(await system(kernel)).toContain("greeter:hellox2");
  });

  test("plugins in .tessera/plugins (ts and js) and in the global plugins folder are discovered; other files are ignored", async () => {
    const p = loadingProject();
    const { kernel } = await kernelFor(p);
    const discovered = p.path(".tessera/plugins");
    expect(info(kernel, "discovered")).toMatchObject({ source: discovered, file: join(discovered, "discovered.ts") });
    expect(info(kernel, "discovered-js")).toMatchObject({ source: discovered, file: join(discovered, "discovered-js.js") });
    expect(info(kernel, "global-discovered")).toMatchObject({ source: join(p.global, "plugins") });
  });

  test(".tessera/plugins folders from the repository root down to the working directory are all discovered, outer first", async () => {
    const p = loadingProject();
    p.write(
      "packages/app/.tessera/plugins/nested.ts",
      `import { definePlugin } from "@tessera/kernel";
export default definePlugin({ name: "nested", version: "1.0.0", kernel: "^1.0.0", setup(ctx) {
  ctx.tap("chat.system", (_input, output) => void output.system.push("nested"));
} });
`,
    );
    const { kernel } = await kernelFor(p, { directory: p.mkdir("packages/app/src") });
    expect(kernel.describe().errors).toEqual([]);
    expect(info(kernel, "nested")?.source).toBe(p.path("packages/app/.tessera/plugins"));
    expect((await system(kernel)).slice(-4)).toEqual(["global-discovered", "discovered-js", "discovered (same kernel)", "nested"]);
  });

  test("discover: false loads only what is listed", async () => {
    const p = loadingProject();
    const { kernel } = await kernelFor(p, { discover: false });
    const names = kernel.describe().plugins.map((x) => x.name);
    expect(names).not.toContain("discovered");
    expect(names).not.toContain("global-discovered");
    expect(names).toContain("typed");
  });

  test("a plugin file importing @tessera/kernel gets the kernel's own module, not a copy", async () => {
    const p = loadingProject();
    const { kernel } = await kernelFor(p);
    expect(await system(kernel)).toContain("discovered (same kernel)");
  });
});

describe("load failures (fixture: load-failures)", () => {
  function failuresProject(): Project {
    const p = project("load-failures");
    p.link("zod");
    return p;
  }

  test("each failure is reported with its stage, naming the plugin and the config file; the other plugins keep loading", async () => {
    const p = failuresProject();
    const { kernel } = await kernelFor(p);
    const configFile = p.path("tessera.config.json");
    const errors = kernel.describe().errors;
    expect(errors.map((e) => [e.plugin, e.stage, e.code])).toEqual([
      ["tessera-plugin-not-installed", "resolve", ErrorCodes.PLUGIN_RESOLVE],
      ["./plugins/no-such-file.ts", "resolve", ErrorCodes.PLUGIN_RESOLVE],
      ["./plugins/throws-on-import.js", "import", ErrorCodes.PLUGIN_IMPORT],
      ["./plugins/syntax-error.js", "import", ErrorCodes.PLUGIN_IMPORT],
      ["./plugins/not-a-plugin.ts", "validate", ErrorCodes.PLUGIN_INVALID],
      ["with-options", "validate", ErrorCodes.PLUGIN_INVALID],
      ["setup-throws", "setup", ErrorCodes.PLUGIN_SETUP],
    ]);
    for (const error of errors) {
      expect(error.source).toBe(configFile);
      expect(error.message).toContain(`plugin "${error.plugin}"`);
      expect(error.message).toContain(configFile);
      expect(error.message).toContain(`failed at ${error.stage}`);
    }
    expect(kernel.describe().plugins.map((x) => x.name)).toEqual(["healthy"]);
    expect(await system(kernel)).toEqual(["healthy"]);
  });

  test("every failure is logged as an error naming the plugin and stage", async () => {
    const p = failuresProject();
    const { log } = await kernelFor(p);
    const logged = log.records.filter((r) => r.level === "error").map((r) => [r.data?.plugin, r.data?.stage]);
    expect(logged).toHaveLength(7);
    expect(logged).toContainEqual(["setup-throws", "setup"]);
    expect(logged).toContainEqual(["./plugins/syntax-error.js", "import"]);
  });

  test("messages say what went wrong at each stage", async () => {
    const p = failuresProject();
    const { kernel } = await kernelFor(p);
    const message = (plugin: string) => kernel.describe().errors.find((e) => e.plugin === plugin)?.message ?? "";
    expect(message("tessera-plugin-not-installed")).toContain("npm install");
    expect(message("./plugins/no-such-file.ts")).toContain(p.path("plugins/no-such-file.ts"));
    expect(message("./plugins/throws-on-import.js")).toContain("cannot be imported today");
    expect(message("./plugins/not-a-plugin.ts")).toContain("does not export a plugin");
    expect(message("setup-throws")).toContain("database unreachable");
  });

  test("invalid tuple options name the config file and the key as plugins[i][1].key", async () => {
    const p = failuresProject();
    const { kernel } = await kernelFor(p);
    const error = kernel.describe().errors.find((e) => e.plugin === "with-options");
    expect(error?.message).toContain(p.path("tessera.config.json"));
    expect(error?.message).toContain('"plugins[6][1].level"');
  });

  test("a plugin whose setup throws leaves no taps or registrations", async () => {
    const p = failuresProject();
    const { kernel } = await kernelFor(p);
    const described = kernel.describe();
    expect(described.hooks["chat.system"]).toEqual([{ plugin: "healthy", order: "normal" }]);
    expect(described.hooks["permission.ask"]).toEqual([]);
    expect(kernel.tools.has("half-registered")).toBe(false);
    expect(kernel.commands.has("half-command")).toBe(false);
    await expect(
      kernel.trigger("permission.ask", { permission: "bash", patterns: ["*"], metadata: {}, sessionID: "s" }, { status: "ask" }),
    ).resolves.toEqual({ status: "ask" });
  });

  test("strict throws the first failure instead of reporting it", async () => {
    const p = failuresProject();
    const error = await rejectionOf(createKernel({ directory: p.root, env: p.env, strict: true, log: captureLog().sink }));
    expect(error).toBeInstanceOf(PluginLoadError);
    expect(error).toMatchObject({
      code: ErrorCodes.PLUGIN_RESOLVE,
      plugin: "tessera-plugin-not-installed",
      stage: "resolve",
      source: p.path("tessera.config.json"),
    });
  });

  test("strict throws a setup failure too", async () => {
    const p = project();
    const error = await rejectionOf(
      createKernel({
        directory: p.root,
        env: p.env,
        strict: true,
        discover: false,
        log: captureLog().sink,
        plugins: [
          plugin("broken", () => {
            throw new Error("nope");
          }),
        ],
      }),
    );
    expect(error).toMatchObject({ code: ErrorCodes.PLUGIN_SETUP, plugin: "broken", stage: "setup" });
  });
});

describe("setup", () => {
  test("a setup that never finishes fails at stage setup after setupTimeoutMs, leaving nothing behind", async () => {
    const start = performance.now();
    const { kernel } = await kernelWith(
      [
        plugin("hangs", (ctx) => {
          ctx.tap("chat.system", (_i, o) => void o.system.push("hangs"));
          return never();
        }),
        plugin("after", (ctx) => ctx.tap("chat.system", (_i, o) => void o.system.push("after"))),
      ],
      { setupTimeoutMs: 50 },
    );
    expect(performance.now() - start).toBeLessThan(1000);
    expect(kernel.describe().errors).toEqual([
      expect.objectContaining({ plugin: "hangs", stage: "setup", code: ErrorCodes.PLUGIN_SETUP, message: expect.stringContaining("50 ms") }),
    ]);
    expect(await system(kernel)).toEqual(["after"]);
  });

  test("options for a plugin given to the kernel are validated; errors name options.key", async () => {
    const withOptions = definePlugin({
      name: "with-options",
      version: "1.0.0",
      kernel: "^1.0.0",
      options: z.object({ retries: z.number().int() }),
      setup: () => {},
    });
    const { kernel } = await kernelWith([{ plugin: withOptions, options: { retries: "many" } }]);
    expect(kernel.describe().errors[0]).toMatchObject({ plugin: "with-options", stage: "validate", source: "kernel options" });
    expect(kernel.describe().errors[0]?.message).toContain('"options.retries"');
  });

  test("a plugin without an options schema rejects options given to it", async () => {
    const { kernel } = await kernelWith([{ plugin: plugin("no-options"), options: { surprise: true } }]);
    expect(kernel.describe().errors[0]).toMatchObject({ plugin: "no-options", stage: "validate" });
  });

  test.each([
    ["a name that is not npm-style", { name: "Not A Name!" }],
    ["a version that is not semver", { version: "one" }],
    ["setup that is not a function", { setup: "yes" }],
  ])("%s is rejected at validate", async (_what, override) => {
    const { kernel } = await kernelWith([{ ...plugin("shape"), ...override } as never]);
    expect(kernel.describe().plugins).toEqual([]);
    expect(kernel.describe().errors[0]?.stage).toBe("validate");
  });
});
