// Benchmark for @tessera/plugin-permissions (prints figures, asserts nothing). Needs a build.
//   node bench/run.mjs [--rounds=N]
// Decisions per second for 1,000 mixed bash command lines through the whole engine: tree-sitter
// parse, unwrapping, path resolution (realpath on a real temp project), rules. After a warm-up.
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const TARGET_PER_SECOND = 5_000;
const entry = fileURLToPath(new URL("../dist/index.js", import.meta.url));
if (!existsSync(entry)) {
  console.error(`${entry} is missing; build first: pnpm --filter @tessera/plugin-permissions build`);
  process.exit(1);
}
const { Policy, loadBashParser } = await import(pathToFileURL(entry).href);

const roundsArg = process.argv.find((a) => a.startsWith("--rounds="));
const rounds = roundsArg ? Number(roundsArg.slice(9)) : 5;

const root = mkdtempSync(join(tmpdir(), "tessera-perm-bench-"));
const dir = join(root, "project");
mkdirSync(join(dir, ".git", "hooks"), { recursive: true });
mkdirSync(join(dir, "src", "lib"), { recursive: true });
writeFileSync(join(dir, "src", "index.ts"), "export {};\n");
writeFileSync(join(dir, ".env"), "X=1\n");
symlinkSync("/etc", join(dir, "etc-link"));

const templates = [
  (i) => "git status",
  (i) => `git log --oneline -${i % 20} -- src`,
  (i) => `git diff HEAD~${i % 5} -- src/index.ts | head -n ${i % 50}`,
  (i) => `ls -la src/lib 2>/dev/null && cat src/index.ts | wc -l`,
  (i) => `grep -rn "TODO ${i}" src --include='*.ts'`,
  (i) => `rg -n 'fn_${i}|other' src`,
  (i) => `find . -name '*.ts' -not -path './node_modules/*' | head -${i % 30}`,
  (i) => `npm run build -- --filter pkg-${i}`,
  (i) => `pnpm --filter @scope/pkg-${i} test`,
  (i) => `git status && rm -rf build-${i}`,
  (i) => `echo $(rm -rf build-${i})`,
  (i) => `bash -c "rm -rf /tmp/x${i}"`,
  (i) => `env FOO=${i} timeout 5 nice -n 2 rm x${i}`,
  (i) => `cat /etc/passwd ${i}`,
  (i) => `echo key${i} >> ~/.ssh/authorized_keys`,
  (i) => `find . -name x${i} -delete`,
  (i) => `echo "unterminated ${i}`,
  (i) => `cat etc-link/hosts a/../.env > out-${i}.txt`,
  (i) => `cd src && for f in *.ts; do echo "$f ${i}"; done`,
  (i) => `docker compose up -d service-${i} && kubectl get pods -n ns-${i}`,
  (i) => `cat <<EOF > notes-${i}.md\nline ${i}\nEOF`,
  (i) => `sh -c 'git log -${i} | sort | uniq -c'`,
  (i) => `curl -s https://example.com/${i} | jq .data`,
  (i) => `python3 -m pytest tests/test_${i}.py -q`,
  (i) => `echo x > .git/hooks/pre-commit-${i}`,
];
const commands = Array.from({ length: 1_000 }, (_, i) => templates[i % templates.length](i));

await loadBashParser();
const policy = new Policy({ directory: dir, root: dir, home: join(root, "home"), permission: { bash: { "npm run *": "allow", "rm -rf /*": "deny" } } });
const request = (command) => ({ permission: "bash", patterns: [command], metadata: { command, cwd: dir } });

// Warm-up: JIT, caches of compiled rule patterns.
for (let r = 0; r < 2; r++) for (const c of commands) policy.decideSync(request(c));

const perSecond = [];
const tally = { allow: 0, ask: 0, deny: 0 };
for (let r = 0; r < rounds; r++) {
  const start = performance.now();
  for (const c of commands) {
    const d = policy.decideSync(request(c));
    if (r === 0) tally[d.status]++;
  }
  const ms = performance.now() - start;
  perSecond.push((commands.length / ms) * 1000);
}
perSecond.sort((a, b) => a - b);
const median = perSecond[Math.floor(perSecond.length / 2)];

console.log(`\n@tessera/plugin-permissions — bash decisions (${process.version}, ${process.platform}-${process.arch})`);
console.log(`  commands per round      ${commands.length} (${templates.length} templates; ${tally.allow} allow, ${tally.ask} ask, ${tally.deny} deny)`);
console.log(`  rounds                  ${rounds} (after 2 warm-up rounds)`);
console.log(`  decisions per second    ${Math.round(median).toLocaleString("en-US")} median (min ${Math.round(perSecond[0]).toLocaleString("en-US")}, max ${Math.round(perSecond.at(-1)).toLocaleString("en-US")})`);
console.log(`  per decision            ${(1000 / median).toFixed(3)} ms`);
console.log(`  target                  ≥ ${TARGET_PER_SECOND.toLocaleString("en-US")}/s: ${median >= TARGET_PER_SECOND ? "ok" : "MISSED"}`);

rmSync(root, { recursive: true, force: true });
