/** Rule 3: plugins the kernel refuses — missing dependencies, duplicate names, unsupported kernel ranges. */
import { describe, expect, test } from "vitest";
import { createKernel, ErrorCodes, KERNEL_API_VERSION, PluginLoadError, type ChatSystemInput, type Kernel } from "@tessera/kernel";
import { kernelFor, kernelWith, plugin, project, rejectionOf } from "./helpers.js";

const input: ChatSystemInput = { sessionID: "s1", agent: "build", model: { providerID: "p", modelID: "m" } };
const loadedNames = (kernel: Kernel) => kernel.describe().plugins.map((p) => p.name);
const errorFor = (kernel: Kernel, name: string) => kernel.describe().errors.find((e) => e.plugin === name);

test("the kernel API version is 1.0.0", () => {
  expect(KERNEL_API_VERSION).toBe("1.0.0");
});

describe("dependencies", () => {
  test("a plugin whose dependency is not listed is rejected, and the error names both plugins", async () => {
    const { kernel } = await kernelWith([plugin("needs-auth", () => {}, { dependencies: ["auth"] }), plugin("bystander")]);
    expect(loadedNames(kernel)).toEqual(["bystander"]);
    const error = errorFor(kernel, "needs-auth");
    expect(error).toMatchObject({ stage: "validate", code: ErrorCodes.PLUGIN_INVALID });
    expect(error?.message).toContain('"needs-auth"');
    expect(error?.message).toContain('"auth"');
  });

  test("dependents of a plugin whose setup failed are rejected in cascade, each naming its dependency", async () => {
    const { kernel } = await kernelWith([
      plugin("top", () => {}, { dependencies: ["middle"] }),
      plugin("middle", () => {}, { dependencies: ["base"] }),
      plugin("base", () => {
        throw new Error("base cannot start");
      }),
      plugin("bystander"),
    ]);
    expect(loadedNames(kernel)).toEqual(["bystander"]);
    expect(errorFor(kernel, "base")).toMatchObject({ stage: "setup", code: ErrorCodes.PLUGIN_SETUP });
    expect(errorFor(kernel, "base")?.message).toContain("base cannot start");
    for (const [dependent, dependency] of [
      ["middle", "base"],
      ["top", "middle"],
    ] as const) {
      const error = errorFor(kernel, dependent);
      expect(error, dependent).toMatchObject({ stage: "validate" });
      expect(error?.message).toContain(`"${dependent}"`);
      expect(error?.message).toContain(`"${dependency}"`);
    }
  });

  test("dependents of a plugin rejected at validate are rejected, told that it failed to load", async () => {
    const { kernel } = await kernelWith([
      plugin("old", () => {}, { kernel: "^2.0.0" }),
      plugin("uses-old", () => {}, { dependencies: ["old"] }),
      plugin("uses-uses-old", () => {}, { dependencies: ["uses-old"] }),
    ]);
    expect(loadedNames(kernel)).toEqual([]);
    expect(errorFor(kernel, "old")?.stage).toBe("validate");
    expect(errorFor(kernel, "uses-old")?.message).toMatch(/requires plugin "old", which failed to load \(stage validate\)/);
    expect(errorFor(kernel, "uses-uses-old")?.message).toContain('requires plugin "uses-old"');
  });

  test("plugins in a dependency cycle are rejected, naming the cycle", async () => {
    const { kernel } = await kernelWith([
      plugin("chicken", () => {}, { dependencies: ["egg"] }),
      plugin("egg", () => {}, { dependencies: ["chicken"] }),
      plugin("bystander"),
    ]);
    expect(loadedNames(kernel)).toEqual(["bystander"]);
    for (const name of ["chicken", "egg"]) {
      expect(errorFor(kernel, name)?.message).toMatch(/cycle.*chicken.*egg/);
    }
  });

  test("a rejected dependent leaves no taps", async () => {
    const { kernel } = await kernelWith([
      plugin("needs-auth", (ctx) => ctx.tap("chat.system", (_i, o) => void o.system.push("needs-auth")), { dependencies: ["auth"] }),
    ]);
    expect(kernel.describe().hooks["chat.system"]).toEqual([]);
    expect((await kernel.trigger("chat.system", input, { system: [] })).system).toEqual([]);
  });
});

describe("duplicate plugin names", () => {
  test("the second plugin with a name is rejected; the error names both sources", async () => {
    const p = project("rejections");
    const { kernel } = await kernelFor(p);
    const configFile = p.path("tessera.config.json");
    const discovered = p.path(".tessera", "plugins");

    const dup = kernel.describe().plugins.find((x) => x.name === "dup");
    expect(dup).toMatchObject({ version: "1.0.0", source: configFile });
    const error = errorFor(kernel, "dup");
    expect(error).toMatchObject({ stage: "validate", code: ErrorCodes.PLUGIN_INVALID, source: discovered });
    expect(error?.message).toContain(configFile);
    expect(error?.message).toContain(discovered);
    expect((await kernel.trigger("chat.system", input, { system: [] })).system).toEqual(["dup from config"]);
  });

  test("a duplicate between the kernel's own plugins and config names both sources", async () => {
    const p = project("rejections");
    const { kernel } = await kernelFor(p, { plugins: [plugin("dup")], discover: false });
    const error = errorFor(kernel, "dup");
    expect(error?.source).toBe(p.path("tessera.config.json"));
    expect(error?.message).toContain("kernel options");
    expect(error?.message).toContain(p.path("tessera.config.json"));
  });
});

describe("kernel API range", () => {
  test.each(["^2.0.0", "<1.0.0", "~0.9.0", ">1.0.0"])("a plugin for kernel %s is rejected at validate", async (range) => {
    const { kernel } = await kernelWith([plugin("ranged", () => {}, { kernel: range })]);
    expect(loadedNames(kernel)).toEqual([]);
    const error = errorFor(kernel, "ranged");
    expect(error).toMatchObject({ stage: "validate", code: ErrorCodes.PLUGIN_INVALID });
    expect(error?.message).toContain(range);
    expect(error?.message).toContain(KERNEL_API_VERSION);
  });

  test.each(["^1.0.0", "1.x", ">=1.0.0 <2.0.0", "*"])("a plugin for kernel %s loads", async (range) => {
    const { kernel } = await kernelWith([plugin("ranged", () => {}, { kernel: range })]);
    expect(kernel.describe().errors).toEqual([]);
    expect(loadedNames(kernel)).toEqual(["ranged"]);
  });

  test("a kernel range that is not semver is rejected at validate", async () => {
    const { kernel } = await kernelWith([plugin("ranged", () => {}, { kernel: "the latest one" })]);
    expect(errorFor(kernel, "ranged")).toMatchObject({ stage: "validate" });
    expect(errorFor(kernel, "ranged")?.message).toContain("kernel");
  });
});

describe("file plugins (fixture: rejections)", () => {
  test("a file plugin for another kernel API is rejected by name, and its dependents are told it failed to load", async () => {
    const p = project("rejections");
    const { kernel } = await kernelFor(p);
    const configFile = p.path("tessera.config.json");
    expect(loadedNames(kernel)).toEqual(["dup"]);

    const legacy = errorFor(kernel, "legacy");
    expect(legacy).toMatchObject({ stage: "validate", source: configFile });
    expect(legacy?.message).toContain("^2.0.0");
    const dependent = errorFor(kernel, "uses-legacy");
    expect(dependent).toMatchObject({ stage: "validate", source: configFile });
    expect(dependent?.message).toMatch(/requires plugin "legacy", which failed to load/);
  });

  test("under strict, the first rejection is thrown", async () => {
    const p = project("rejections");
    const error = await rejectionOf(createKernel({ directory: p.root, env: p.env, strict: true, log: () => {} }));
    expect(error).toBeInstanceOf(PluginLoadError);
    expect(error).toMatchObject({ stage: "validate", source: p.path("tessera.config.json") });
    expect((error as Error).message).toContain("^2.0.0");
  });
});
