import { z } from "zod";
import { defineEvent } from "./bus.js";

/** A plugin's tap failed and the failure was contained (observer hooks, or a guard that failed closed). */
export const PluginErrorEvent = defineEvent(
  "plugin.errored",
  z.object({ plugin: z.string(), hook: z.string(), code: z.string(), message: z.string() }),
);

/** The kernel finished loading plugins and sealed its registries. */
export const KernelReadyEvent = defineEvent(
  "kernel.ready",
  z.object({ plugins: z.array(z.string()), errors: z.number().int() }),
);
