import { isDangerousVariable } from "./bash/commands.js";
import { joinKey, type Guard, type Rule } from "./rules.js";
import type { Action } from "./types.js";

const hasOption = (argv: readonly string[], ...names: string[]) =>
  argv.find((a) => names.some((n) => a === n || a.startsWith(`${n}=`)));
const shortCluster = (argv: readonly string[], letter: string) =>
  argv.find((a) => /^-[A-Za-z]+$/.test(a) && a.includes(letter));

const findGuard: Guard = (argv) => {
  const hit = argv.find((a) => /^-(delete|exec|execdir|ok|okdir|fprint0?|fprintf|fls)$/.test(a));
  return hit ? `find ${hit} ${hit === "-delete" ? "deletes files" : hit.startsWith("-f") ? "writes a file" : "runs other commands"}` : undefined;
};
const gitOutputGuard: Guard = (argv) => {
  const hit = hasOption(argv, "--output", "-O", "--open-files-in-pager", "--ext-diff");
  return hit ? `git ${hit.split("=")[0]} writes a file or runs a program` : undefined;
};
const rgGuard: Guard = (argv) => (hasOption(argv, "--pre") ? "rg --pre runs a program on every file" : undefined);
const sortGuard: Guard = (argv) => (hasOption(argv, "--compress-program") ? "sort --compress-program runs a program" : undefined);
const dateGuard: Guard = (argv) => (hasOption(argv, "--set") || shortCluster(argv, "s") ? "date -s sets the clock" : undefined);
const filesFromGuard: Guard = (argv) => (hasOption(argv, "--files0-from") ? "--files0-from reads file names that cannot be checked" : undefined);
const declarationGuard: Guard = (argv) => {
  const name = argv.slice(1).map((a) => /^([A-Za-z_][A-Za-z0-9_]*)(=|$)/.exec(a)?.[1]).find((n) => n && isDangerousVariable(n));
  return name ? `sets ${name}, which changes what later commands run` : undefined;
};

/**
 * Read-only commands bash runs without asking (their file arguments and redirections are still
 * checked as reads and edits, and `external_directory` applies). Each entry is a bash rule
 * pattern; the guard turns "allow" into "ask" for the arguments that would write or run things.
 */
export const READ_ONLY_COMMANDS: ReadonlyArray<readonly [pattern: string, guard?: Guard]> = [
  ["ls *"], ["pwd *"], ["cat *"], ["head *"], ["tail *"], ["wc *", filesFromGuard], ["echo *"], ["printf *"],
  ["which *"], ["type *"], ["command -v *"], ["command -V *"], ["rg *", rgGuard], ["grep *"], ["egrep *"], ["fgrep *"],
  ["find *", findGuard], ["stat *"], ["file *"], ["du *", filesFromGuard], ["df *"], ["date *", dateGuard],
  ["whoami *"], ["uname *"], ["id *"], ["basename *"], ["dirname *"], ["realpath *"], ["readlink *"], ["true *"],
  ["false *"], ["test *"], ["[ *"], ["sort *", sortGuard], ["cut *"], ["tr *"], ["diff *"], ["cmp *"], ["comm *"],
  ["nl *"], ["strings *"], ["md5sum *"], ["sha1sum *"], ["sha256sum *"], ["sha512sum *"], ["shasum *"], ["sleep *"],
  ["cd *"], ["pushd *"], ["popd *"], ["dirs *"], ["set *"], ["read *"],
  ["export *", declarationGuard], ["declare *", declarationGuard], ["local *", declarationGuard], ["readonly *", declarationGuard],
  ["typeset *", declarationGuard], ["unset *"],
  ["git status *"], ["git diff *", gitOutputGuard], ["git log *", gitOutputGuard], ["git show *", gitOutputGuard],
  ["git blame *"], ["git rev-parse *"], ["git ls-files *"], ["git ls-tree *"], ["git describe *"], ["git shortlog *", gitOutputGuard],
  ["git grep *", gitOutputGuard], ["git cat-file *"], ["git show-ref *"], ["git merge-base *"], ["git stash list *", gitOutputGuard],
  ["git branch"], ["git branch -a"], ["git branch -r"], ["git branch -v"], ["git branch -vv"], ["git branch --show-current"],
  ["git branch --list *"], ["git tag"], ["git tag -l *"], ["git tag --list *"], ["git remote"], ["git remote -v"],
  ["git config --get *"], ["git config --list"], ["git --version"],
];

/** Permissions allowed by default: tools that only read, or only touch Tessera's own session state. */
export const READ_ONLY_PERMISSIONS = ["list", "grep", "glob", "todoread", "todowrite", "task"] as const;

/**
 * The defaults, in the config form (the first rules; everything the user writes comes later and
 * wins where it matches). Protected paths are not a rule: see the README.
 */
export const DEFAULT_PERMISSION = {
  "*": "ask",
  read: { "*": "allow", ".env*": "ask", ".env.example": "allow" },
  edit: "allow",
  ...Object.fromEntries(READ_ONLY_PERMISSIONS.map((p) => [p, "allow"])),
  webfetch: "ask",
  external_directory: "ask",
  doom_loop: "ask",
  bash: { "*": "ask", ...Object.fromEntries(READ_ONLY_COMMANDS.map(([pattern]) => [pattern, "allow"])) },
} as const satisfies Record<string, Action | Record<string, Action>>;

let cachedRules: Rule[] | undefined;

/** The default rules, with the source "default" and the guards attached. */
export function defaultRules(): readonly Rule[] {
  if (cachedRules) return cachedRules;
  const guards = new Map(READ_ONLY_COMMANDS.filter(([, g]) => g).map(([p, g]) => [p, g!]));
  const rules: Rule[] = [];
  for (const [permission, value] of Object.entries(DEFAULT_PERMISSION)) {
    const permKey = joinKey("permission", permission);
    if (typeof value === "string") {
      rules.push({ permission, pattern: "*", action: value, layer: "default", source: "default", key: permKey });
      continue;
    }
    for (const [pattern, action] of Object.entries(value as Record<string, Action>)) {
      const guard = permission === "bash" ? guards.get(pattern) : undefined;
      rules.push({ permission, pattern, action, layer: "default", source: "default", key: joinKey(permKey, pattern), ...(guard ? { guard } : {}) });
    }
  }
  cachedRules = rules;
  return rules;
}
