import { createRequire } from "node:module";
import { Language, Parser, type Tree } from "web-tree-sitter";

export type { Node, Tree } from "web-tree-sitter";

let loading: Promise<Parser> | undefined;
let ready: Parser | undefined;

/** The wasm grammar shipped in the `tree-sitter-bash` npm package (works offline). */
export function bashGrammarPath(): string {
  return createRequire(import.meta.url).resolve("tree-sitter-bash/tree-sitter-bash.wasm");
}

/**
 * Loads web-tree-sitter and the bash grammar once per process. A failure is not cached, so a
 * later call retries; callers treat a failure as "cannot analyse" (ask).
 */
export function loadBashParser(): Promise<Parser> {
  if (ready) return Promise.resolve(ready);
  loading ??= (async () => {
    await Parser.init();
    const language = await Language.load(bashGrammarPath());
    const parser = new Parser();
    parser.setLanguage(language);
    ready = parser;
    return parser;
  })().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

/** The parser, when `loadBashParser()` has finished; otherwise undefined. */
export function loadedBashParser(): Parser | undefined {
  return ready;
}

/** Parses `source`; the caller must `delete()` the tree. */
export function parseBash(parser: Parser, source: string): Tree | null {
  return parser.parse(source);
}
