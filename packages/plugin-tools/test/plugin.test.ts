import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { PluginContext } from "@tessera/kernel";
import toolsPlugin, { createTools, PLUGIN_NAME, PLUGIN_VERSION, resolveOptions, shellEnvFrom, TOOL_IDS, toolSchemas } from "../src/index.js";
import { BUILTIN_LIKE_AGENTS } from "./fixtures.js";

describe("the plugin", () => {
  it("is named @tessera/plugin-tools, with the package's version", () => {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
    expect(toolsPlugin.name).toBe(PLUGIN_NAME);
    expect(pkg.name).toBe(PLUGIN_NAME);
    expect(toolsPlugin.version).toBe(PLUGIN_VERSION);
    expect(PLUGIN_VERSION).toBe(pkg.version);
  });

  it("fills in every option's default", () => {
    const options = resolveOptions({ bash: { defaultTimeoutMs: 5_000 } });
    expect(options.bash).toMatchObject({ defaultTimeoutMs: 5_000, maxTimeoutMs: 600_000 });
    expect(options.read).toEqual({ maxLines: 2000, maxLineChars: 2000, maxBytes: 51200, maxImageBytes: 10 * 1024 * 1024 });
    expect(options.disabled).toEqual([]);
  });

  it("rejects an invalid option", () => {
    expect(toolsPlugin.options!.safeParse({ bash: { defaultTimeoutMs: "soon" } }).success).toBe(false);
  });

  it("creates the tools in a fixed order, without the disabled ones", () => {
    expect(createTools().map((t) => t.id)).toEqual([...TOOL_IDS]);
    expect(createTools({ options: { disabled: ["task", "patch"] } }).map((t) => t.id)).not.toContain("patch");
  });

  it("sends the default tool set in at most 12,000 characters of JSON", () => {
    const json = JSON.stringify(toolSchemas(createTools({ agents: () => BUILTIN_LIKE_AGENTS })));
    expect(json.length).toBeLessThanOrEqual(12_000);
  });

  it("describes every parameter of every tool", () => {
    for (const schema of toolSchemas(createTools())) {
      const properties = (schema.parameters.properties ?? {}) as Record<string, { description?: string }>;
      for (const [name, property] of Object.entries(properties)) {
        if (schema.name === "todowrite") continue;
        expect(property.description, `${schema.name}.${name}`).toBeTruthy();
      }
    }
  });

  it("runs the shell.env hook through ctx.trigger", async () => {
    const calls: unknown[] = [];
    const ctx = {
      trigger: async (hook: string, input: unknown, output: { env: Record<string, string> }) => {
        calls.push([hook, input]);
        output.env.FROM_HOOK = "1";
        return output;
      },
    } as unknown as PluginContext;
    expect(await shellEnvFrom(ctx)({ cwd: "/p", sessionID: "s" })).toEqual({ FROM_HOOK: "1" });
    expect(calls).toEqual([["shell.env", { cwd: "/p", sessionID: "s" }]]);
  });
});
