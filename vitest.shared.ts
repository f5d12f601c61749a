import { fileURLToPath } from "node:url";
import { mergeConfig, type ViteUserConfig } from "vitest/config";

// Tests use the kernel the way users get it: the built package (turbo builds it before testing).
const kernelDist = fileURLToPath(new URL("./packages/kernel/dist/index.js", import.meta.url));

/**
 * The vitest config the packages share, merged with `overrides` (package-specific settings).
 * Tests run the built kernel natively (not through Vite's module runner), so the tests, the
 * plugins under test, @tessera/testing and anything jiti imports share one kernel module instance,
 * as they do for users.
 */
export function sharedConfig(overrides: ViteUserConfig = {}): ViteUserConfig {
  return mergeConfig(
    {
      resolve: {
        alias: { "@tessera/kernel": kernelDist },
      },
      test: {
        server: { deps: { external: [/\/packages\/kernel\/dist\//] } },
        include: ["test/**/*.test.ts"],
      },
    },
    overrides,
  );
}
