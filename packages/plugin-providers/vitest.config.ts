import { sharedConfig } from "../../vitest.shared";

export default sharedConfig({
  test: {
    testTimeout: 15_000,
  },
});
