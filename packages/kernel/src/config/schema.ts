import { z } from "zod";

const permissionAction = z.enum(["allow", "ask", "deny"]);

/** A plugin listed in config: an npm name or path, a `[spec, options]` tuple, or (TS/JS configs) an inline plugin object. */
export const PluginSpecSchema = z.union([
  z.string().min(1).describe("An npm package name, or a path relative to this config file"),
  z.tuple([z.string().min(1), z.record(z.string(), z.unknown())]).describe("[spec, options]"),
  z
    .custom<InlinePlugin>(
      (value) =>
        typeof value === "object" && value !== null && typeof (value as { setup?: unknown }).setup === "function",
      { message: "expected an npm name, a path, a [spec, options] tuple or a plugin object with setup()" },
    )
    .describe("An inline plugin object (TypeScript and JavaScript configs only)"),
]);

/** The minimum an inline plugin must look like to be accepted by the config schema; the loader validates the rest. */
export interface InlinePlugin {
  name?: unknown;
  setup: (...args: never[]) => unknown;
}

const costSchema = z.object({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cache_read: z.number().nonnegative().optional(),
  cache_write: z.number().nonnegative().optional(),
});

const ModelConfigSchema = z.looseObject({
  /** The id sent to the provider's API, when it differs from the key. */
  id: z.string().optional(),
  name: z.string().optional(),
  limit: z.object({ context: z.number().int().positive(), output: z.number().int().positive() }).optional(),
  cost: costSchema
    .extend({ context_over_200k: costSchema.optional().describe("Prices once the prompt exceeds 200k tokens") })
    .optional()
    .describe("USD per million tokens"),
  tool_call: z.boolean().optional(),
  reasoning: z.boolean().optional(),
  attachment: z.boolean().optional(),
  temperature: z.union([z.number(), z.boolean()]).optional(),
  options: z.record(z.string(), z.unknown()).optional().describe("Provider options sent with every call of this model"),
  reasoning_effort: z.enum(["none", "minimal", "low", "medium", "high", "xhigh", "max"]).optional(),
  thinking_budget: z.number().int().positive().optional(),
});

const ProviderConfigSchema = z.looseObject({
  npm: z.string().optional().describe("The AI SDK provider package, e.g. @ai-sdk/openai-compatible"),
  name: z.string().optional(),
  options: z.record(z.string(), z.unknown()).optional(),
  models: z.record(z.string(), ModelConfigSchema).optional(),
  /** `@ai-sdk/openai` only: the Responses API (default) or Chat Completions. */
  api: z.enum(["responses", "chat"]).optional(),
  env: z.array(z.string()).optional().describe("Environment variables that hold the API key"),
  reasoning_effort: z.enum(["none", "minimal", "low", "medium", "high", "xhigh", "max"]).optional(),
  thinking_budget: z.number().int().positive().optional(),
});

const AgentConfigSchema = z.looseObject({
  description: z.string().optional(),
  mode: z.enum(["primary", "subagent", "all"]).optional(),
  model: z.string().optional(),
  prompt: z.string().optional(),
  temperature: z.number().optional(),
  top_p: z.number().optional(),
  tools: z.record(z.string(), z.boolean()).optional(),
  permission: z.record(z.string(), z.union([permissionAction, z.record(z.string(), permissionAction)])).optional(),
  max_steps: z.number().int().positive().optional(),
  disable: z.boolean().optional(),
});

const modelRef = z.string().regex(/^[^/\s]+\/\S+$/, 'expected "provider/model"');

export const ConfigSchema = z
  .strictObject({
    $schema: z.string().optional().describe("JSON Schema for editor completion"),
    plugins: z.array(PluginSpecSchema).optional().describe("Plugins to load, in order"),
    strict: z.boolean().optional().describe("Fail on the first plugin that does not load, instead of reporting it"),
    disabled_plugins: z
      .array(z.string().min(1))
      .optional()
      .describe("Names of plugins not to load, e.g. a standard plugin the CLI loads by default"),
    timeouts: z
      .strictObject({
        hook: z.number().int().positive().optional().describe("Milliseconds one tap may take per call (default 10000)"),
        setup: z.number().int().positive().optional().describe("Milliseconds a plugin's setup may take (default 30000)"),
      })
      .optional(),
    log_level: z.enum(["debug", "info", "warn", "error"]).optional(),
    model: modelRef.optional().describe('The default model, "provider/model"'),
    small_model: modelRef.optional().describe("A cheap model for titles and summaries"),
    provider: z.record(z.string(), ProviderConfigSchema).optional(),
    agent: z.record(z.string(), AgentConfigSchema).optional(),
    permission: z
      .record(z.string(), z.union([permissionAction, z.record(z.string(), permissionAction)]))
      .optional()
      .describe("Permission rules: { permission: action | { pattern: action } }; the last matching rule wins"),
  })
  .describe("Tessera configuration");

export type Config = z.output<typeof ConfigSchema>;
export type PluginSpec = z.output<typeof PluginSpecSchema>;

/** The JSON Schema shipped as `@tessera/kernel/config.schema.json`, generated from the same zod schema. */
export function configJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(ConfigSchema, { unrepresentable: "any", io: "input" }) as Record<string, unknown>;
}
