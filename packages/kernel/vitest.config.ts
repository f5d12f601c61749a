import { sharedConfig } from "../../vitest.shared";

export default sharedConfig({
  test: {
    typecheck: {
      include: ["test/**/*.test-d.ts"],
      tsconfig: "./tsconfig.json",
    },
  },
});
