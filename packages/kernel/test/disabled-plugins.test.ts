import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { kernelFor, plugin, project } from "./helpers.js";

describe("disabled_plugins", () => {
  test("a plugin named in disabled_plugins is not set up, and a plugin that depends on it is rejected naming it", async () => {
    const p = project();
    writeFileSync(join(p.root, "tessera.config.json"), JSON.stringify({ disabled_plugins: ["standard-tools"] }));
    let toolsSetUp = false;
    const { kernel } = await kernelFor(p, {
      discover: false,
      plugins: [
        plugin("standard-tools", () => {
          toolsSetUp = true;
        }),
        plugin("needs-tools", () => {}, { dependencies: ["standard-tools"] }),
        plugin("other", () => {}),
      ],
    });
    expect(toolsSetUp).toBe(false);
    const described = kernel.describe();
    expect(described.plugins.map((x) => x.name)).toEqual(["other"]);
    expect(described.errors).toHaveLength(1);
    expect(described.errors[0]).toMatchObject({ plugin: "needs-tools", stage: "validate" });
    expect(described.errors[0]!.message).toContain('requires plugin "standard-tools", which is disabled in config (disabled_plugins)');
  });
});
