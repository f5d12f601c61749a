import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, type AskRequest, type Kernel, type PermissionReply, type ToolPart } from "@tessera/kernel";
import { mockProvider, recordEvents, scriptedModel, testKernel, testPlugin } from "./harness.js";

/** A `deploy` tool that declares `{ permission: "deploy", patterns: [target] }` and records each run. */
function deployTool(ran: string[]) {
  return testPlugin("deploy-tool", (ctx) => {
    ctx.tools.register(
      defineTool({
        id: "deploy",
        description: "Deploy to a target",
        parameters: z.object({ target: z.string() }),
        permission: (args) => [{ permission: "deploy", patterns: [args.target], metadata: { target: args.target } }],
        async execute({ target }, tctx) {
          ran.push(tctx.callID);
          return { title: `deployed ${target}`, output: `deployed to ${target}` };
        },
      }),
    );
  });
}

const toolParts = (kernel: Kernel, sessionID: string) =>
  kernel.sessions.store
    .listMessages(sessionID)
    .flatMap((m) => m.parts)
    .filter((p): p is ToolPart => p.type === "tool");
const stateOf = (kernel: Kernel, sessionID: string, callID: string) => toolParts(kernel, sessionID).find((p) => p.callID === callID)?.state;
const errorOf = (kernel: Kernel, sessionID: string, callID: string) => {
  const state = stateOf(kernel, sessionID, callID);
  return state?.status === "error" ? state.error : undefined;
};

async function deployOnce(plugins: Parameters<typeof testKernel>[0], setup?: (kernel: Kernel) => void) {
  const ran: string[] = [];
  const { model } = scriptedModel([{ toolCalls: [{ id: "call_deploy", name: "deploy", input: { target: "prod" } }] }, { text: "ok" }]);
  const { kernel, logs } = await testKernel([mockProvider(model), deployTool(ran), ...plugins]);
  setup?.(kernel);
  const events = recordEvents(kernel);
  const session = kernel.sessions.createSession();
  await kernel.sessions.prompt({ sessionID: session.id, text: "deploy" });
  return { kernel, session, ran, events, model, logs };
}

describe("the permission flow", () => {
  describe("permission.ask plugins", () => {
    it("runs the tool when a plugin allows, publishing permission.decided with the plugin as decider", async () => {
      const policy = testPlugin("policy", (ctx) => {
        ctx.tap("permission.ask", (input, output) => {
          if (input.permission === "deploy") {
            output.status = "allow";
            output.reason = "deploys are open";
          }
        });
      });
      const { kernel, session, ran, events } = await deployOnce([policy]);

      expect(ran).toEqual(["call_deploy"]);
      expect(stateOf(kernel, session.id, "call_deploy")?.status).toBe("completed");
      expect(events.of("permission.decided")).toEqual([
        expect.objectContaining({
          permission: "deploy",
          patterns: ["prod"],
          status: "allow",
          decidedBy: "policy",
          reason: "deploys are open",
          tool: expect.objectContaining({ callID: "call_deploy" }),
        }),
      ]);
      expect(events.of("permission.asked")).toEqual([]);
      await kernel.dispose();
    });

    it("turns a plugin's denial into a tool error with the reason and who decided, and never runs the tool", async () => {
      const policy = testPlugin("freeze-policy", (ctx) => {
        ctx.tap("permission.ask", (_input, output) => {
          output.status = "deny";
          output.reason = "deploys are frozen until Monday";
        });
      });
      const { kernel, session, ran, events, model } = await deployOnce([policy]);

      expect(ran).toEqual([]);
      const error = errorOf(kernel, session.id, "call_deploy");
      expect(error).toContain("deploy (prod)");
      expect(error).toContain("deploys are frozen until Monday");
      expect(error).toContain("freeze-policy");
      expect(JSON.stringify(model.doStreamCalls[1]?.prompt)).toContain("deploys are frozen until Monday");
      expect(events.of("permission.decided")).toEqual([
        expect.objectContaining({ status: "deny", decidedBy: "freeze-policy", reason: "deploys are frozen until Monday" }),
      ]);
      await kernel.dispose();
    });

    it("fails closed: a throwing permission.ask tap denies the call", async () => {
      const broken = testPlugin("broken-policy", (ctx) => {
        ctx.tap("permission.ask", () => {
          throw new Error("policy server down");
        });
      });
      let asked = 0;
      const { kernel, session, ran, events } = await deployOnce([broken], (k) =>
        k.sessions.setAsker(async () => {
          asked++;
          return "once";
        }),
      );

      expect(ran).toEqual([]);
      expect(asked).toBe(0);
      const error = errorOf(kernel, session.id, "call_deploy");
      expect(error).toContain("Permission denied");
      expect(error).toContain("policy server down");
      expect(events.of("permission.decided")).toEqual([expect.objectContaining({ status: "deny", decidedBy: "broken-policy" })]);
      await kernel.dispose();
    });
  });

  it("denies in a headless run (no plugin decides, no asker) with an error naming the rule to add", async () => {
    const { kernel, session, ran, events } = await deployOnce([]);

    expect(ran).toEqual([]);
    const error = errorOf(kernel, session.id, "call_deploy");
    expect(error).toContain("headless");
    expect(error).toContain('"permission": { "deploy": { "prod": "allow" } }');
    expect(events.of("permission.decided")).toEqual([expect.objectContaining({ status: "deny", decidedBy: "headless" })]);
    await kernel.dispose();
  });

  describe("the interactive asker", () => {
    async function withReply(reply: PermissionReply) {
      const requests: AskRequest[] = [];
      const result = await deployOnce([], (kernel) =>
        kernel.sessions.setAsker(async (request) => {
          requests.push(request);
          return reply;
        }),
      );
      return { ...result, requests };
    }

    it('"once" allows the call', async () => {
      const { kernel, session, ran, events, requests } = await withReply("once");

      expect(ran).toEqual(["call_deploy"]);
      expect(requests).toEqual([
        expect.objectContaining({ permission: "deploy", patterns: ["prod"], sessionID: session.id, tool: expect.objectContaining({ callID: "call_deploy" }) }),
      ]);
      expect(events.of("permission.asked")).toEqual([expect.objectContaining({ id: requests[0]!.id, permission: "deploy" })]);
      expect(events.of("permission.replied")).toEqual([expect.objectContaining({ id: requests[0]!.id, reply: "once" })]);
      expect(events.of("permission.decided")).toEqual([expect.objectContaining({ status: "allow", decidedBy: "user" })]);
      await kernel.dispose();
    });

    it("the asker and permission.asked carry the agent and why a plugin left the request at ask", async () => {
      const requests: AskRequest[] = [];
      const explainer = testPlugin("explainer", (ctx) => {
        ctx.tap("permission.ask", (_input, output) => {
          output.reason = 'deploy to prod asks; "always" would store deploy prod';
        });
      });
      const { kernel, ran, events } = await deployOnce([explainer], (k) =>
        k.sessions.setAsker(async (request) => {
          requests.push(request);
          return "once";
        }),
      );
      expect(ran).toEqual(["call_deploy"]);
      const reason = 'deploy to prod asks; "always" would store deploy prod';
      expect(requests).toEqual([expect.objectContaining({ reason, agent: "build" })]);
      expect(events.of("permission.asked")).toEqual([expect.objectContaining({ id: requests[0]!.id, reason, agent: "build" })]);
      await kernel.dispose();
    });

    it('"always" allows the call and publishes permission.replied with "always"', async () => {
      const { kernel, ran, events, requests } = await withReply("always");

      expect(ran).toEqual(["call_deploy"]);
      expect(events.of("permission.replied")).toEqual([
        expect.objectContaining({
          id: requests[0]!.id,
          reply: "always",
          request: expect.objectContaining({ permission: "deploy", patterns: ["prod"] }),
        }),
      ]);
      await kernel.dispose();
    });

    it('"reject" denies the call and cancels the session\'s other pending asks without the asker answering them', async () => {
      const ran: string[] = [];
      const { model } = scriptedModel([
        {
          toolCalls: [
            { id: "call_first", name: "deploy", input: { target: "staging" } },
            { id: "call_second", name: "deploy", input: { target: "prod" } },
          ],
        },
        { text: "ok, I will not deploy" },
      ]);
      const { kernel } = await testKernel([mockProvider(model), deployTool(ran)]);
      const events = recordEvents(kernel);
      const asks: Array<{ request: AskRequest; signal: AbortSignal; answer: (reply: PermissionReply) => void }> = [];
      let bothPending!: () => void;
      const pending = new Promise<void>((resolve) => (bothPending = resolve));
      kernel.sessions.setAsker(
        (request, signal) =>
          new Promise<PermissionReply>((resolve) => {
            asks.push({ request, signal, answer: resolve });
            if (asks.length === 2) bothPending();
          }),
      );
      const session = kernel.sessions.createSession();
      const prompt = kernel.sessions.prompt({ sessionID: session.id, text: "deploy both" });
      await pending;
      const first = asks.find((a) => a.request.tool?.callID === "call_first")!;
      const second = asks.find((a) => a.request.tool?.callID === "call_second")!;
      expect(second.signal.aborted).toBe(false);
      first.answer("reject");
      await prompt;

      expect(ran).toEqual([]);
      expect(second.signal.aborted).toBe(true);
      expect(errorOf(kernel, session.id, "call_first")).toContain("rejected");
      expect(errorOf(kernel, session.id, "call_second")).toContain("cancelled");
      expect(events.of("permission.replied").map((e) => e.reply)).toEqual(["reject"]);
      expect(events.of("permission.decided")).toEqual([expect.objectContaining({ status: "deny", decidedBy: "user", tool: expect.objectContaining({ callID: "call_first" }) })]);
      await kernel.dispose();
    });
  });
});
