// Kernel start with 10 TypeScript plugins discovered in `.tessera/plugins` and loaded through jiti.
// Every start runs in a fresh `node` process so module caches are cold. jiti's transpile cache
// lives in `$XDG_CACHE_HOME/tessera/jiti`, so each child gets its own XDG_CACHE_HOME (and TMPDIR):
// an empty one for "cold" starts, a shared, primed one for "warm" starts.
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { benchDir, cleanEnv, kernelDir, kernelEntry, runNode, summary, tempRoot } from "./lib.mjs";

const PLUGINS = 10;
export const child = join(benchDir, "start-child.mjs");

function pluginSource(i, withZod) {
  const parameters = withZod
    ? `z.object({ path: z.string().describe("a file"), limit: z.number().int().positive().optional() })`
    : `{ safeParse: (value: unknown) => ({ success: true as const, data: value }) } as never`;
  return `import { definePlugin, defineTool, type ChatParamsInput, type ChatParamsOutput } from "@tessera/kernel";
${withZod ? `import { z } from "zod";\n` : ""}
interface Settings {
  readonly temperature: number;
}

const settings: Settings = { temperature: 0.${i} };

export default definePlugin({
  name: "bench-plugin-${i}",
  version: "1.0.0",
  kernel: "^1.0.0",
  setup(ctx) {
    ctx.tap("chat.params", async (input: ChatParamsInput, output: ChatParamsOutput) => {
      output.options["p${i}"] = input.agent === "build" ? settings.temperature : 0;
    });
    ctx.tools.register(
      defineTool({
        id: "bench_tool_${i}",
        description: "benchmark tool ${i}",
        parameters: ${parameters},
        async execute(args) {
          return { title: "bench ${i}", output: JSON.stringify(args) };
        },
      }),
    );
  },
});
`;
}

/** A project with `.git`, `.tessera/plugins/p0.ts … p9.ts` and (when found) zod installed via a symlink. */
export function makePluginProject(dir) {
  mkdirSync(join(dir, ".git"), { recursive: true });
  mkdirSync(join(dir, ".tessera", "plugins"), { recursive: true });
  let zodDir;
  try {
    zodDir = dirname(createRequire(join(kernelDir, "package.json")).resolve("zod/package.json"));
    mkdirSync(join(dir, "node_modules"));
    symlinkSync(zodDir, join(dir, "node_modules", "zod"), "dir");
  } catch {
    zodDir = undefined; // no zod to link: the plugins use a stand-in schema instead
  }
  for (let i = 0; i < PLUGINS; i++) writeFileSync(join(dir, ".tessera", "plugins", `p${i}.ts`), pluginSource(i, Boolean(zodDir)));
  return { withZod: Boolean(zodDir) };
}

function startOnce(project, xdg, cacheTmp) {
  const { wallMs, data } = runNode([child, kernelEntry, project, xdg], { env: cleanEnv({ TMPDIR: cacheTmp, XDG_CACHE_HOME: cacheTmp }) });
  if (!data) throw new Error("start child printed no result");
  if (data.errors.length > 0 || data.plugins !== PLUGINS || data.tapsRan !== PLUGINS) {
    throw new Error(`start child loaded ${data.plugins}/${PLUGINS} plugins: ${data.errors.join("; ")}`);
  }
  return { wallMs, ...data };
}

const cacheFiles = (tmp) => {
  try {
    return readdirSync(join(tmp, "tessera", "jiti")).length;
  } catch {
    return 0;
  }
};

export function runStart({ runs = 9 } = {}) {
  const root = tempRoot("tessera-bench-start-");
  const project = join(root.dir, "project");
  const { withZod } = makePluginProject(project);
  const xdg = join(root.dir, "xdg");
  mkdirSync(xdg);

  // Node's own start-up, for reference: the part of the wall time that is not Tessera's.
  const nodeOnly = [];
  for (let i = 0; i < runs; i++) nodeOnly.push(runNode(["--input-type=module", "-e", ""], { env: cleanEnv() }).wallMs);

  const warmTmp = join(root.dir, "tmp-warm");
  mkdirSync(warmTmp);
  startOnce(project, xdg, warmTmp); // primes the warm cache (not counted)
  const warmCacheFiles = cacheFiles(warmTmp);

  const cold = [];
  const warm = [];
  let coldCacheFiles = 0;
  for (let i = 0; i < runs; i++) {
    // Interleaved, so drift in machine load affects both alike.
    const coldTmp = join(root.dir, `tmp-cold-${i}`);
    mkdirSync(coldTmp);
    cold.push(startOnce(project, xdg, coldTmp));
    coldCacheFiles = cacheFiles(coldTmp);
    warm.push(startOnce(project, xdg, warmTmp));
  }
  root.cleanup();

  const pick = (list, key) => summary(list.map((r) => r[key]));
  const describe = (list) => ({
    bootMs: pick(list, "beforeImportMs"),
    importMs: pick(list, "importMs"),
    createKernelMs: pick(list, "createKernelMs"),
    firstTriggerMs: pick(list, "firstTriggerMs"),
    readyMs: pick(list, "readyMs"),
    readyToExitMs: summary(list.map((r) => r.exitMs - r.readyMs)),
    wallMs: pick(list, "wallMs"),
  });
  return {
    plugins: PLUGINS,
    pluginsUseZod: withZod,
    runs,
    jitiCacheFiles: { cold: coldCacheFiles, warm: warmCacheFiles },
    nodeStartupWallMs: summary(nodeOnly),
    cold: describe(cold),
    warm: describe(warm),
  };
}
