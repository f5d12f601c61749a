/**
 * What the analyser knows about commands: which arguments are files (and whether they are read or
 * written), which options take a value, how many words name a command for "always" approvals.
 */

export type Access = "read" | "write";

export interface FileSpec {
  /** Access of positional arguments; "none" means they are not files. */
  readonly positional: Access | "none";
  /** Leading positionals that are not files (grep's pattern, chmod's mode, chown's owner). */
  readonly skip?: number;
  /** Options that supply what `skip` skips (grep -e/-f): when present, nothing is skipped. */
  readonly skipUnless?: readonly string[];
  /** Access of the last positional when there are two or more (cp/ln/install's destination). */
  readonly last?: Access;
  /** Short options (letters) that take a value. */
  readonly valueShort?: string;
  /** Long options (without `--`) that take a value as the next word when not given with `=`. */
  readonly valueLong?: readonly string[];
  /** Options whose value is a file: `o`, `output`, … → access. */
  readonly optionPaths?: Readonly<Record<string, Access>>;
}

const READ: FileSpec = { positional: "read" };
const WRITE: FileSpec = { positional: "write" };

export const FILE_COMMANDS: Readonly<Record<string, FileSpec>> = {
  cat: { positional: "read", valueShort: "" },
  tac: READ,
  head: { positional: "read", valueShort: "nc", valueLong: ["lines", "bytes"] },
  tail: { positional: "read", valueShort: "ncs", valueLong: ["lines", "bytes", "pid", "sleep-interval", "max-unchanged-stats"] },
  less: READ,
  more: READ,
  wc: { positional: "read", optionPaths: { "files0-from": "read" } },
  nl: READ,
  ls: { positional: "read", valueShort: "IwT", valueLong: ["ignore", "hide", "width", "tabsize", "format", "sort", "time", "time-style", "block-size", "quoting-style", "indicator-style", "color"] },
  dir: READ,
  stat: { positional: "read", valueShort: "c", valueLong: ["format", "printf"] },
  file: { positional: "read", valueShort: "mfFe", optionPaths: { f: "read", m: "read", "files-from": "read", "magic-file": "read" } },
  du: { positional: "read", valueShort: "dBtX", valueLong: ["max-depth", "block-size", "threshold", "exclude", "exclude-from", "files0-from", "time-style"], optionPaths: { X: "read", "exclude-from": "read", "files0-from": "read" } },
  grep: {
    positional: "read",
    skip: 1,
    skipUnless: ["e", "f", "regexp", "file"],
    valueShort: "efmABCdD",
    valueLong: ["regexp", "file", "max-count", "after-context", "before-context", "context", "devices", "directories", "include", "exclude", "exclude-dir", "exclude-from", "label", "binary-files"],
    optionPaths: { f: "read", file: "read", "exclude-from": "read" },
  },
  rg: {
    positional: "read",
    skip: 1,
    skipUnless: ["e", "f", "regexp", "file", "files", "type-list"],
    valueShort: "efgtTmABCMjErd",
    valueLong: [
      "regexp", "file", "glob", "iglob", "type", "type-not", "max-count", "after-context", "before-context", "context",
      "max-columns", "threads", "encoding", "replace", "max-depth", "max-filesize", "path-separator", "type-add",
      "type-clear", "ignore-file", "pre", "pre-glob", "sort", "sortr", "colors", "color", "engine", "context-separator",
      "field-context-separator", "field-match-separator", "dfa-size-limit", "regex-size-limit",
    ],
    optionPaths: { f: "read", file: "read", "ignore-file": "read" },
  },
  diff: { positional: "read", valueShort: "CUFLIxXS", valueLong: ["label", "ignore-matching-lines", "exclude", "exclude-from", "from-file", "to-file", "starting-file", "horizon-lines"], optionPaths: { X: "read", "exclude-from": "read", "from-file": "read", "to-file": "read" } },
  cmp: READ,
  comm: READ,
  sort: { positional: "read", valueShort: "kotST", valueLong: ["key", "field-separator", "output", "buffer-size", "temporary-directory", "parallel", "compress-program", "files0-from", "random-source", "batch-size"], optionPaths: { o: "write", output: "write", "files0-from": "read", "random-source": "read" } },
  uniq: { positional: "read", last: "write", valueShort: "fsw", valueLong: ["skip-fields", "skip-chars", "check-chars", "group", "all-repeated"] },
  cut: { positional: "read", valueShort: "bcdf", valueLong: ["bytes", "characters", "delimiter", "fields", "output-delimiter"] },
  strings: { positional: "read", valueShort: "nte", valueLong: ["bytes", "radix", "encoding"] },
  od: { positional: "read", valueShort: "AjNtw", valueLong: ["address-radix", "skip-bytes", "read-bytes", "format", "width"] },
  base64: { positional: "read", valueShort: "w", valueLong: ["wrap"] },
  md5sum: READ,
  sha1sum: READ,
  sha256sum: READ,
  sha512sum: READ,
  shasum: { positional: "read", valueShort: "a", valueLong: ["algorithm"] },
  column: { positional: "read", valueShort: "csto", valueLong: ["separator", "output-separator", "table-columns"] },
  awk: { positional: "read", skip: 1, skipUnless: ["f", "file"], valueShort: "fvF", optionPaths: { f: "read", file: "read" } },
  sed: { positional: "read", skip: 1, skipUnless: ["e", "f", "expression", "file"], valueShort: "efl", valueLong: ["expression", "file", "line-length"], optionPaths: { f: "read", file: "read" } },
  source: READ,
  ".": READ,
  tee: WRITE,
  rm: WRITE,
  rmdir: WRITE,
  unlink: WRITE,
  shred: { positional: "write", valueShort: "ns", valueLong: ["iterations", "size", "random-source"] },
  touch: { positional: "write", valueShort: "dtr", valueLong: ["date", "reference", "time"], optionPaths: { r: "read", reference: "read" } },
  mkdir: { positional: "write", valueShort: "m", valueLong: ["mode", "context"] },
  truncate: { positional: "write", valueShort: "sr", valueLong: ["size", "reference"], optionPaths: { r: "read", reference: "read" } },
  chmod: { positional: "write", skip: 1, skipUnless: ["reference"] },
  chown: { positional: "write", skip: 1, skipUnless: ["reference"], valueLong: ["from"] },
  chgrp: { positional: "write", skip: 1, skipUnless: ["reference"] },
  ln: { positional: "read", last: "write", valueShort: "tS", valueLong: ["target-directory", "suffix"], optionPaths: { t: "write", "target-directory": "write" } },
  cp: { positional: "read", last: "write", valueShort: "tS", valueLong: ["target-directory", "suffix"], optionPaths: { t: "write", "target-directory": "write" } },
  mv: { positional: "write", valueShort: "tS", valueLong: ["target-directory", "suffix"], optionPaths: { t: "write", "target-directory": "write" } },
  install: { positional: "read", last: "write", valueShort: "tSmogC", valueLong: ["target-directory", "suffix", "mode", "owner", "group"], optionPaths: { t: "write", "target-directory": "write" } },
  date: { positional: "none", valueShort: "dfr", valueLong: ["date", "file", "reference", "set"], optionPaths: { f: "read", file: "read", r: "read", reference: "read" } },
  curl: { positional: "none", valueShort: "oTKc", optionPaths: { o: "write", output: "write", T: "read", "upload-file": "read", K: "read", config: "read", c: "write", "cookie-jar": "write" } },
  wget: { positional: "none", valueShort: "OPaoi", optionPaths: { O: "write", "output-document": "write", P: "write", "directory-prefix": "write", o: "write", "output-file": "write", a: "write", i: "read", "input-file": "read" } },
};

/** Commands whose arguments are never files and are safe whatever their value (`echo $HOME`). */
export const ARGS_SAFE: ReadonlySet<string> = new Set([
  "echo", "printf", "true", "false", ":", "test", "[", "which", "type", "basename", "dirname", "sleep", "pwd",
]);

/** Commands that never take files: their arguments are not checked as paths at all. */
export const NO_FILE_ARGS: ReadonlySet<string> = new Set([
  "echo", "printf", "true", "false", ":", "which", "type", "sleep", "pwd", "whoami", "uname", "id", "tr", "seq",
  "export", "declare", "local", "readonly", "typeset", "unset", "set", "read", "exit", "return", "kill", "hash", "alias",
]);

/** Shells whose `-c` string is parsed and checked like the command line itself. */
export const SHELLS: ReadonlySet<string> = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "fish"]);

/**
 * Variables that change what a command runs or loads. Setting one (`PATH=. ls`, `export
 * LD_PRELOAD=…`) makes the command ask, whatever the rules say about the command itself.
 */
export function isDangerousVariable(name: string): boolean {
  return (
    DANGEROUS_VARIABLES.has(name) ||
    /^(LD_|DYLD_|GIT_|BASH_FUNC_|PYTHON|PERL|RUBY|NODE_|NPM_CONFIG_|LESS)/.test(name) ||
    /PAGER$|EDITOR$/.test(name)
  );
}

const DANGEROUS_VARIABLES = new Set([
  "PATH", "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND", "IFS", "HOME", "CDPATH", "VISUAL",
  "GLOBIGNORE", "ZDOTDIR", "SHELL", "TMPDIR", "XDG_CONFIG_HOME", "JAVA_TOOL_OPTIONS", "RUSTC_WRAPPER", "CC", "CXX",
]);

/**
 * How many leading words name a command, for "always" approvals: `git checkout main` is stored
 * as `git checkout *`, `npm run dev --port 1` as `npm run dev *`, `rm -rf build` as `rm *`.
 * Two-word keys (`npm run`) take precedence over one-word keys (`npm`). Unlisted commands: 1.
 */
export const ARITY: Readonly<Record<string, number>> = {
  git: 2, npm: 2, pnpm: 2, yarn: 2, bun: 2, npx: 2, deno: 2, docker: 2, podman: 2, kubectl: 2, helm: 2,
  cargo: 2, go: 2, pip: 2, pip3: 2, uv: 2, poetry: 2, brew: 2, apt: 2, "apt-get": 2, dnf: 2, yum: 2, gh: 2,
  make: 2, terraform: 2, systemctl: 2, dotnet: 2, mvn: 2, gradle: 2, composer: 2, gem: 2, bundle: 2, rustup: 2,
  conda: 2, turbo: 2, nx: 2, aws: 3, gcloud: 3, az: 3,
  "npm run": 3, "npm exec": 3, "pnpm run": 3, "pnpm exec": 3, "pnpm dlx": 3, "yarn run": 3, "yarn dlx": 3,
  "bun run": 3, "bun x": 3, "docker compose": 3, "docker container": 3, "docker image": 3, "docker volume": 3,
  "docker network": 3, "podman compose": 3, "git remote": 3, "git stash": 3, "git worktree": 3, "git submodule": 3,
  "kubectl config": 3, "kubectl rollout": 3, "gh pr": 3, "gh issue": 3, "gh repo": 3, "go mod": 3, "cargo +nightly": 3,
};

/**
 * The rule an "always" answer stores for a command: its first `arity` words and " *". When one of
 * those words is an option or only known at run time, the exact command is stored instead.
 */
export function arityPattern(words: readonly { value: string; dynamic: boolean }[]): string {
  const values = words.map((w) => w.value);
  const two = values.length >= 2 ? ARITY[`${values[0]} ${values[1]}`] : undefined;
  const arity = two ?? ARITY[values[0] ?? ""] ?? 1;
  const prefix = words.slice(0, arity);
  if (prefix.some((w, i) => w.dynamic || (i > 0 && w.value.startsWith("-")))) return values.join(" ");
  return `${prefix.map((w) => w.value).join(" ")} *`;
}
