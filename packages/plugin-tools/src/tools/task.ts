import type { AgentDefinition, ToolDefinition } from "@tessera/kernel";
import { z } from "zod";
import { truncateOutput } from "../util/truncate.js";

export const TaskParameters = z.object({
  description: z.string().describe("The task in 3-5 words"),
  prompt: z.string().describe("Everything the subagent needs to know and what to report back"),
  subagent_type: z.string().describe("Subagent to use"),
});

/** Agents the task tool offers: subagents (mode `subagent` or `all`) that are not hidden. */
export function subagentsOf(agents: readonly AgentDefinition[]): AgentDefinition[] {
  return agents.filter((a) => (a.mode === "subagent" || a.mode === "all") && !a.hidden);
}

function describe(agents: readonly AgentDefinition[]): string {
  const list = agents.map((a) => `- ${a.id}: ${(a.description ?? "").split("\n")[0]!.slice(0, 200)}`).join("\n");
  return (
    "Run a subagent on a self-contained task and get its final answer (it sees only your prompt, not this conversation). " +
    "Use it for broad searches or multi-step work; launch several at once when independent.\nSubagents:\n" +
    (list || "(none)")
  );
}

export interface TaskToolInput {
  /** The agents there are (the plugin passes `ctx.agents.list`); the description lists the subagents among them. */
  readonly agents?: () => readonly AgentDefinition[];
  /** Most bytes of the subagent's answer returned. */
  readonly maxOutputBytes?: number;
}

/**
 * The `task` tool: runs a subagent in a child session through `ctx.subtask` and returns its final
 * answer, with the child session's id in `metadata.sessionID`. Its description lists the
 * subagents, read from the agent registry each time it is sent (so agents registered by plugins
 * set up later are included).
 */
export function createTaskTool(input: TaskToolInput = {}): ToolDefinition<typeof TaskParameters> {
  const agents = () => subagentsOf(input.agents?.() ?? []);
  const maxBytes = input.maxOutputBytes ?? 50 * 1024;
  return {
    id: "task",
    get description() {
      return describe(agents());
    },
    parameters: TaskParameters,
    permission: (args) => [{ permission: "task", patterns: [args.subagent_type] }],
    async execute(args, ctx) {
      if (input.agents) {
        const known = agents();
        if (!known.some((a) => a.id === args.subagent_type)) {
          throw new Error(`Unknown subagent "${args.subagent_type}". Use one of: ${known.map((a) => a.id).join(", ") || "(none)"}.`);
        }
      }
      ctx.metadata({ title: args.description, metadata: { agent: args.subagent_type } });
      const result = await ctx.subtask({ agent: args.subagent_type, prompt: args.prompt, description: args.description });
      const text = result.text.trim() === "" ? "(The subagent finished without an answer.)" : result.text;
      const cut = truncateOutput(text, { maxBytes, maxLines: 5000 });
      return {
        title: args.description,
        output: cut.text,
        metadata: { sessionID: result.sessionID, agent: args.subagent_type, truncated: cut.truncated },
      };
    },
  };
}
