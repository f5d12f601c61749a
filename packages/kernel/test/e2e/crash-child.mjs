// The "before the crash" half of the restart test, run in its own process so the test can SIGKILL
// it: a kernel on a file-backed store, prompted against the scripted server, whose model calls
// `wait_forever`. When the tool is running (its part is stored as "running"), the child prints
// `RUNNING <sessionID>` on stdout and waits to be killed.
//   node crash-child.mjs '{"url":…,"storePath":…,"dir":…,"env":{…}}'
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { z } from "zod";
import { createKernel, definePlugin, defineTool } from "../../dist/index.js";

const { url, storePath, dir, env } = JSON.parse(process.argv[2]);
const provider = createOpenAICompatible({ name: "mock", baseURL: url, apiKey: "test-key", includeUsage: true });

let sessionID = "";
const plugin = definePlugin({
  name: "crash-child",
  version: "1.0.0",
  kernel: "^1.0.0",
  setup(ctx) {
    ctx.providers.register({
      id: "mock",
      languageModel: (id) => provider.chatModel(id),
      model: (id) => ({ id, limit: { context: 100_000, output: 4_000 }, cost: { input: 1, output: 2 } }),
    });
    ctx.tools.register(
      defineTool({
        id: "wait_forever",
        description: "Waits until aborted",
        parameters: z.object({}),
        permission: () => [],
        execute: (_args, tool) =>
          new Promise((_resolve, reject) => {
            process.stdout.write(`RUNNING ${sessionID}\n`);
            tool.abort.addEventListener("abort", () => reject(tool.abort.reason), { once: true });
          }),
      }),
    );
  },
});

const kernel = await createKernel({
  directory: dir,
  config: { config: { model: "mock/scripted-model" }, files: [], sources: {}, plugins: [], directory: dir, root: dir },
  plugins: [plugin],
  discover: false,
  env,
  storePath,
  log: () => {},
});
const session = kernel.sessions.createSession({ title: "crash test" });
sessionID = session.id;
await kernel.sessions.prompt({ sessionID, text: "wait for me" });
// Never reached: the tool never finishes and the parent kills this process.
process.stdout.write("FINISHED\n");
