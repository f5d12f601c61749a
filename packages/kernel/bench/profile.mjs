// Investigation helper (not part of `pnpm bench`): CPU-profiles one cold and one warm kernel start
// (10 jiti plugins, as in start.mjs) and prints where the samples fall, by package / kernel file.
//   node bench/profile.mjs [--keep]   (--keep leaves the .cpuprofile files in bench/profiles/)
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { benchDir, cleanEnv, kernelDir, kernelEntry, round, runNode, table, tempRoot } from "./lib.mjs";
import { child, makePluginProject } from "./start.mjs";

const keep = process.argv.includes("--keep");
const root = tempRoot("tessera-bench-profile-");
const project = join(root.dir, "project");
makePluginProject(project);
const xdg = join(root.dir, "xdg");
mkdirSync(xdg);
const outDir = keep ? join(benchDir, "profiles") : join(root.dir, "profiles");
mkdirSync(outDir, { recursive: true });

/** Who a profile node's code belongs to. */
function owner(url, functionName) {
  if (!url) return functionName.startsWith("(") ? functionName : "(native/builtin)";
  if (url.startsWith("node:")) return "node internals";
  const path = url.replace(/^file:\/\//, "");
  const pnpm = path.match(/node_modules\/\.pnpm\/[^/]+\/node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/);
  const plain = path.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/);
  const m = pnpm ?? plain;
  if (m) return m[1] === "jiti" ? `jiti (${m[2].split("/").pop()})` : m[1];
  if (path.startsWith(join(kernelDir, "dist"))) return `kernel ${path.slice(kernelDir.length + 1)}`;
  if (path.includes("/.tessera/plugins/") || path.includes("/jiti/")) return "plugin files";
  if (path.startsWith(benchDir)) return "bench child";
  return path;
}

function analyse(file) {
  const profile = JSON.parse(readFileSync(file, "utf8"));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  // timeDeltas[i] is the time before sample i; attribute it to that sample's node.
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    const node = byId.get(id);
    const key = owner(node.callFrame.url, node.callFrame.functionName);
    self.set(key, (self.get(key) ?? 0) + dt);
    total += dt;
  });
  return { totalMs: total / 1000, rows: [...self.entries()].map(([k, us]) => [k, us / 1000]).sort((a, b) => b[1] - a[1]) };
}

function profileStart(label, tmp) {
  const dir = join(outDir, label);
  mkdirSync(dir, { recursive: true });
  const { data } = runNode(["--cpu-prof", "--cpu-prof-interval", "100", "--cpu-prof-dir", dir, child, kernelEntry, project, xdg], {
    env: cleanEnv({ TMPDIR: tmp }),
  });
  const file = join(dir, readdirSync(dir).find((f) => f.endsWith(".cpuprofile")));
  return { data, ...analyse(file) };
}

const warmTmp = join(root.dir, "tmp-warm");
mkdirSync(warmTmp);
runNode([child, kernelEntry, project, xdg], { env: cleanEnv({ TMPDIR: warmTmp }) }); // prime
const coldTmp = join(root.dir, "tmp-cold");
mkdirSync(coldTmp);
for (const [label, tmp] of [
  ["cold", coldTmp],
  ["warm", warmTmp],
]) {
  const { data, totalMs, rows } = profileStart(label, tmp);
  console.log(
    `\n${label}: import ${round(data.importMs)} ms, createKernel ${round(data.createKernelMs)} ms (profiled, so slower); ` +
      `${round(totalMs)} ms of samples, self time by owner:`,
  );
  console.log(table(["owner", "self ms", "%"], rows.slice(0, 18).map(([k, ms]) => [k, round(ms), round((100 * ms) / totalMs)])));
}
if (keep) console.log(`\nprofiles in ${outDir} (open in Chrome DevTools → Performance)`);
else rmSync(outDir, { recursive: true, force: true });
