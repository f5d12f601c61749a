const GLOBAL_FLAGS = `Flags for every command:
  --dir <path>          run as if started in <path> (default: the current directory)
  --json                print machine-readable JSON where the command prints data
  --log-level <level>   debug | info | warn | error (default: info)
  --print-logs          also print logs to stderr (they always go to $XDG_STATE_HOME/tessera/log)
  -h, --help            help for a command
  -v, --version         print the version
`;

export function globalHelp(version: string): string {
  return `tessera ${version} — a coding agent built as a plugin-first microkernel

Usage: tessera [command] [flags]

Commands:
  (none)                chat in the terminal (-m <provider/model>, --agent <name>, --auto; /help inside)
  run [message..]       run one prompt and stream the answer
  sessions              list, show, export, delete or fork sessions
  models                list the models usable now
  plugins               list loaded plugins, the hooks they tap, and load errors
  config                print the resolved config and the file each key came from
  permissions explain   show how a permission request would be decided, and by which rule

${GLOBAL_FLAGS}
Exit codes: 0 success, 1 error, 2 usage, 130 interrupted.
With no provider configured, run and chat use an offline demo model.
`;
}

const details: Record<string, string> = {
  run: `Usage: tessera run [message..] [flags]

Runs one prompt in the project and streams the answer to stdout; tool calls, diffs, retries and
the closing token/cost line go to stderr. The message comes from the arguments, or from stdin
when it is piped. With no provider configured, the offline demo model answers.

  -m, --model <provider/model>   the model (default: config "model")
      --agent <name>             build (default), plan, or your own
  -c, --continue                 continue the latest session in this directory
  -s, --session <id>             continue a session
      --fork                     with -c or -s: fork the session first
      --title <title>            title a new session (or rename the one continued)
  -f, --file <path>              attach a file (repeatable)
      --format text|json         json: one event per line (see packages/cli/README.md)
      --auto                     approve permission asks that no rule denies
`,
  sessions: `Usage: tessera sessions [list | show <id> | export <id> | delete <id> | fork <id>] [flags]

  list                 sessions of this directory, newest first (--all: every directory)
  show <id>            the transcript (markdown; --json for the stored data)
  export <id>          --format json | markdown (default markdown)
  delete <id>          delete a session and its subagent sessions
  fork <id>            copy a session into a new one
`,
  models: `Usage: tessera models [--json]

Lists the models of every provider usable now: providers from config, and built-in providers
whose API key variable is set. --json prints { providerID, modelID, ref, name, limit, cost, … }.
`,
  plugins: `Usage: tessera plugins [--json]

Loads the kernel with the standard plugins, the plugins named in config and .tessera/plugins/*,
and prints each plugin's name, version, where it came from and the hooks it taps, followed by the
plugins that failed to load, with the stage (resolve, import, validate, setup) and the reason.

--json prints { plugins: [{ name, version, source, hooks }], errors: [{ plugin, stage, message }] }.
`,
  config: `Usage: tessera config [--json]

Prints the resolved config: the files read (global first, then from the repository root down to
the working directory) and every key with the file it came from. Values of keys that look like
secrets (apiKey, token, password …) are masked.

--json prints { files, config, sources }.
`,
  permissions: `Usage: tessera permissions explain <permission> <input> [--agent <name>] [--json]

Shows the decision (allow, ask, deny) the permissions plugin would make for a request, and the rule
that made it (config file, key, pattern) or the default. Examples:
  tessera permissions explain bash "git push origin main"
  tessera permissions explain edit src/index.ts
  tessera permissions explain read ../secrets.txt
`,
};

export function commandHelp(name: string): string {
  return `${details[name] ?? ""}\n${GLOBAL_FLAGS}`;
}
