/**
 * What the kernel tests of this plugin need besides @tessera/testing: fake tools that declare
 * permissions exactly as @tessera/plugin-tools does, and the state of a tool call.
 */
import { join, relative } from "node:path";
import { z } from "zod";
import { defineTool, definePlugin, type Kernel, type PluginDefinition } from "@tessera/kernel";
import { toolParts } from "@tessera/testing";

/**
 * Fake file and shell tools with the permission contracts of @tessera/plugin-tools. They never
 * touch the disk or run anything: each run is recorded in `ran` as "tool:arg".
 */
export function fakeTools(ran: string[]): PluginDefinition {
  const fileTool = (id: string, permission: "read" | "edit") =>
    defineTool({
      id,
      description: `${id} a file`,
      parameters: z.object({ filePath: z.string() }),
      permission: (args, { directory }) => {
        const filepath = args.filePath.startsWith("/") ? args.filePath : join(directory, args.filePath);
        return [{ permission, patterns: [relative(directory, filepath).split("\\").join("/")], metadata: { filepath } }];
      },
      async execute(args) {
        ran.push(`${id}:${args.filePath}`);
        return { title: id, output: "ok" };
      },
    });
  return definePlugin({
    name: "fake-tools",
    version: "1.0.0",
    kernel: "^1.0.0",
    setup(ctx) {
      ctx.tools.register(fileTool("read", "read"));
      ctx.tools.register(fileTool("write", "edit"));
      ctx.tools.register(
        defineTool({
          id: "bash",
          description: "run a command",
          parameters: z.object({ command: z.string() }),
          permission: (args, { directory }) => [{ permission: "bash", patterns: [args.command], metadata: { command: args.command, cwd: directory } }],
          async execute(args) {
            ran.push(`bash:${args.command}`);
            return { title: "bash", output: "ok" };
          },
        }),
      );
      // A tool that declares nothing (like an MCP tool): the kernel asks for its id with "*".
      ctx.tools.register(
        defineTool({
          id: "mcp_deploy",
          description: "deploy",
          parameters: z.object({}),
          async execute() {
            ran.push("mcp_deploy");
            return { title: "deploy", output: "ok" };
          },
        }),
      );
    },
  });
}

export const stateOf = (kernel: Kernel, sessionID: string, callID: string) => toolParts(kernel, sessionID).find((p) => p.callID === callID)?.state;

export const errorOf = (kernel: Kernel, sessionID: string, callID: string) => {
  const state = stateOf(kernel, sessionID, callID);
  return state?.status === "error" ? state.error : undefined;
};
