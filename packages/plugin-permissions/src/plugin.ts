import { join } from "node:path";
import {
  definePlugin,
  MessageUpdated,
  PermissionReplied,
  type PermissionAskOutput,
  type PermissionRequest,
} from "@tessera/kernel";
import { z } from "zod";
import { ApprovalStore, approvalsFile } from "./approvals.js";
import { physicalPath } from "./paths.js";
import { Policy } from "./policy.js";
import type { PermissionConfig } from "./rules.js";
import type { Decision } from "./types.js";

export const PLUGIN_NAME = "@tessera/plugin-permissions";
export const PLUGIN_VERSION = "0.1.0";

export const PermissionsOptionsSchema = z.object({
  /** Approve every request that would ask (the CLI's `--auto`). Denials stay denials. */
  auto: z.boolean().default(false),
  /**
   * Deny what would ask, with the exact rule to add in the tool error (for headless runs, where
   * the kernel's own denial can only suggest a generic rule). Ignored with `auto`.
   */
  headless: z.boolean().default(false),
  /** Config key path → file; defaults to the kernel's (`ctx.configSources`). */
  sources: z.record(z.string(), z.string()).optional(),
  /** Store "always" answers in `<data>/permissions/` (default true); false keeps them for this run only. */
  persist: z.boolean().default(true),
});
export type PermissionsOptions = z.input<typeof PermissionsOptionsSchema>;

/** Which agent a request comes from: the assistant message's agent (from `message.updated`). */
class AgentTracker {
  private readonly byMessage = new Map<string, string>();
  private readonly bySession = new Map<string, string>();

  record(info: { id: string; sessionID: string; agent?: string }): void {
    if (!info.agent) return;
    this.byMessage.set(info.id, info.agent);
    this.bySession.set(info.sessionID, info.agent);
    if (this.byMessage.size > 20_000) this.byMessage.delete(this.byMessage.keys().next().value!);
    if (this.bySession.size > 5_000) this.bySession.delete(this.bySession.keys().next().value!);
  }

  forget(sessionID: string): void {
    this.bySession.delete(sessionID);
  }

  /** The message's agent; else `metadata.agent` (interim contract); else the session's last agent. */
  agentFor(request: Pick<PermissionRequest, "sessionID" | "tool" | "metadata" | "agent">): string | undefined {
    if (request.agent) return request.agent;
    const byMessage = request.tool ? this.byMessage.get(request.tool.messageID) : undefined;
    if (byMessage) return byMessage;
    const meta = request.metadata?.agent;
    if (typeof meta === "string" && meta !== "") return meta;
    return this.bySession.get(request.sessionID);
  }
}

/**
 * Taps `permission.ask`: decides allow / ask / deny for every request from the rules (defaults,
 * config `permission`, the agent's `permission`), the project's "always" approvals, protected
 * paths, the project boundary and, for bash, a tree-sitter analysis of the whole command line.
 */
export const permissionsPlugin = definePlugin({
  name: PLUGIN_NAME,
  version: PLUGIN_VERSION,
  kernel: "^1.0.0",
  options: PermissionsOptionsSchema,
  setup(ctx, options) {
    const root = physicalPath(ctx.root);
    const approvalsDir = join(ctx.paths.data, "permissions");
    const store = new ApprovalStore(approvalsFile(ctx.paths.data, root), root, (m) => ctx.log.warn(m)).load();
    const session = new ApprovalStore(undefined, root);
    const approvals = options.persist ? store : session;
    const tracker = new AgentTracker();
    // `~` in commands is the shell's home: the kernel's environment (what the bash tool inherits).
    const env: Readonly<NodeJS.ProcessEnv> = ctx.env ?? process.env;
    const policy = new Policy({
      directory: ctx.directory,
      root: ctx.root,
      ...(env.HOME ? { home: env.HOME } : {}),
      permission: ctx.config.permission as PermissionConfig | undefined,
      agent: (id) => ctx.agents.get(id),
      sources: options.sources ?? ctx.configSources,
      approvals: () => approvals.rules(),
      protectedDirs: [ctx.paths.config, approvalsDir],
    });

    ctx.bus.subscribe(MessageUpdated, (event) => tracker.record(event.properties.info));
    ctx.bus.subscribe("session.deleted", (event) => tracker.forget((event.properties as { sessionID: string }).sessionID));

    ctx.tap("permission.ask", async (input, output) => {
      // An earlier tap's denial stands: this plugin only ever adds restrictions to it.
      if (output.status === "deny") return;
      const agent = tracker.agentFor(input);
      let decision: Decision;
      try {
        // The bash grammar loads on the first bash request (tens of ms), not at start-up.
        decision = await policy.decide(input, agent);
      } catch (error) {
        output.status = "ask";
        output.reason = `${PLUGIN_NAME} could not decide (${(error as Error)?.message ?? String(error)}), so it asks`;
        return;
      }
      apply(decision, output, options);
    });

    ctx.bus.subscribe(PermissionReplied, (event) => {
      const { reply, request } = event.properties;
      if (reply !== "always") return;
      const agent = tracker.agentFor(request);
      const remember = (decision: Decision) => {
        const entries = decision.checks.filter((c) => c.action === "ask" && c.approval).map((c) => c.approval!);
        try {
          const added = approvals.add(entries);
          if (added.length > 0) ctx.log.info("stored always approvals", { file: approvals.file, approvals: added });
        } catch (error) {
          ctx.log.warn(`could not store approvals in ${approvals.file}: ${(error as Error).message}`);
        }
      };
      // The parser is loaded (the tap ran for this request), so this is synchronous and the
      // approval applies to the very next request.
      remember(policy.decideSync(request, agent));
    });
  },
});

function apply(decision: Decision, output: PermissionAskOutput, options: z.output<typeof PermissionsOptionsSchema>): void {
  if (decision.status === "ask" && options.auto) {
    output.status = "allow";
    output.reason = `Auto-approved (--auto). ${decision.reason}`;
    return;
  }
  if (decision.status === "ask" && options.headless) {
    output.status = "deny";
    output.reason = `${decision.reason} Nobody can approve it in this headless run.`;
    return;
  }
  output.status = decision.status;
  output.reason = decision.reason;
}

