import type { Tool } from "ai";
import { z } from "zod";
import type { AgentDefinition, ToolDefinition } from "../definitions.js";
import type { HookInput, HookName, HookOutput, JsonSchema } from "../hooks/types.js";
import type { Registry } from "../registry.js";
import { isToolEnabled } from "./agents.js";

const schemas = new WeakMap<ToolDefinition, JsonSchema>();

/** The JSON Schema of a tool's parameters, computed once per tool. */
export function toolJsonSchema(tool: ToolDefinition): JsonSchema {
  let schema = schemas.get(tool);
  if (!schema) {
    const { $schema: _ignored, ...rest } = z.toJSONSchema(tool.parameters, { io: "input", unrepresentable: "any" }) as JsonSchema;
    schema = rest;
    schemas.set(tool, schema);
  }
  return schema;
}

export interface ResolveToolsInput {
  readonly agent: AgentDefinition;
  /** The user message's switches, which win over the agent's. */
  readonly messageTools?: Readonly<Record<string, boolean>>;
}

type Trigger = <K extends HookName>(hook: K, input: HookInput<K>, output: HookOutput<K>) => Promise<HookOutput<K>>;

/**
 * The tools offered to the model for one step: the registry filtered by the agent's and the
 * message's switches, each definition passed through `tool.definition`. The tools carry no
 * `execute`: the processor runs every call through the kernel's chokepoint itself.
 */
export async function resolveTools(
  registry: Registry<ToolDefinition>,
  trigger: Trigger,
  input: ResolveToolsInput,
): Promise<Record<string, Tool>> {
  // `ai` loads with the first step, not with the kernel (it costs ~100 ms to import).
  const { jsonSchema } = await import("ai");
  const tools: Record<string, Tool> = {};
  for (const tool of registry.list()) {
    if (!isToolEnabled(input.agent, tool.id, input.messageTools)) continue;
    const definition = await trigger(
      "tool.definition",
      { toolID: tool.id },
      { description: tool.description, parameters: structuredClone(toolJsonSchema(tool)) },
    );
    tools[tool.id] = { description: definition.description, inputSchema: jsonSchema(definition.parameters) } as Tool;
  }
  return tools;
}
