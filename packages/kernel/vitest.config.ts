import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// Tests import the kernel the way users get it: the built package (turbo builds before testing).
const kernelDist = fileURLToPath(new URL("./dist/index.js", import.meta.url));

export default defineConfig({
  resolve: {
    alias: { "@tessera/kernel": kernelDist },
  },
  test: {
    // Run the built kernel natively (not through Vite's module runner), so plugins that jiti
    // imports get the very same module instance as the tests, as they do for users.
    server: { deps: { external: [/\/packages\/kernel\/dist\//] } },
    include: ["test/**/*.test.ts"],
    typecheck: {
      include: ["test/**/*.test-d.ts"],
      tsconfig: "./tsconfig.json",
    },
  },
});
