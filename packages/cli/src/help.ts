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

Usage: tessera <command> [flags]

Commands:
  plugins               list loaded plugins, the hooks they tap, and load errors
  config                print the resolved config and the file each key came from

${GLOBAL_FLAGS}
Exit codes: 0 success, 1 error, 2 usage, 130 interrupted.
Docs: packages/kernel/README.md (plugins, hooks, config), packages/cli/README.md.
`;
}

const details: Record<string, string> = {
  plugins: `Usage: tessera plugins [--json]

Loads the kernel with the plugins named in config (and .tessera/plugins/*) and prints each
plugin's name, version, where it came from and the hooks it taps, followed by the plugins that
failed to load, with the stage (resolve, import, validate, setup) and the reason.

--json prints { plugins: [{ name, version, source, hooks }], errors: [{ plugin, stage, message }] }.
`,
  config: `Usage: tessera config [--json]

Prints the resolved config: the files read (global first, then from the repository root down to
the working directory) and every key with the file it came from. Values of keys that look like
secrets (apiKey, token, password …) are masked.

--json prints { files, config, sources }.
`,
};

export function commandHelp(name: string): string {
  return `${details[name] ?? ""}\n${GLOBAL_FLAGS}`;
}
