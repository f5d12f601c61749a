import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// Tests use the kernel the way users get it: the built package (turbo builds it before testing).
const kernelDist = fileURLToPath(new URL("../kernel/dist/index.js", import.meta.url));

export default defineConfig({
  resolve: {
    alias: { "@tessera/kernel": kernelDist },
  },
  test: {
    // The built kernel runs natively (not through Vite's module runner), as it does for users.
    server: { deps: { external: [/\/packages\/kernel\/dist\//] } },
    include: ["test/**/*.test.ts"],
    testTimeout: 20_000,
  },
});
