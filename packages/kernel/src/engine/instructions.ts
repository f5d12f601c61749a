/**
 * Instruction files: the project's standing orders to agents, sent in the system prompt.
 *
 * In each directory from the project directory up to the repository root, `AGENTS.md`, or
 * `CLAUDE.md` when the directory has no readable `AGENTS.md` (so projects set up for Claude Code work
 * unchanged); then the global `<configDir>/AGENTS.md`. Every file found is included.
 *
 * Order: nearest first. The project directory's file comes before its parents', and the global
 * file comes last, so the model reads the most specific guidance first. Each section names its
 * file, which lets the model tell a subfolder's rule from a repository-wide one.
 *
 * An empty `AGENTS.md` adds nothing but still counts as present, which is how a directory opts out
 * of its `CLAUDE.md`. Missing and unreadable files are skipped silently: instructions are advice,
 * and a broken file must not stop a session.
 */
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { directoriesBetween } from "../config/load.js";

export const INSTRUCTION_FILE = "AGENTS.md";
export const COMPAT_INSTRUCTION_FILE = "CLAUDE.md";

export interface InstructionFile {
  /** Absolute path. */
  readonly path: string;
  readonly content: string;
}

export interface FindInstructionsInput {
  readonly directory: string;
  readonly root: string;
  readonly configDir: string;
}

/** The instruction files that apply to a project, nearest first, global last. */
export async function findInstructions(input: FindInstructionsInput): Promise<InstructionFile[]> {
  const projectDirs = directoriesBetween(resolve(input.root), resolve(input.directory)).reverse();
  const found = await Promise.all([
    ...projectDirs.map((dir) => readDirectoryInstructions(dir)),
    readText(join(resolve(input.configDir), INSTRUCTION_FILE)),
  ]);
  const files: InstructionFile[] = [];
  const seen = new Set<string>();
  for (const file of found) {
    // Skip repeats (the global folder inside the project): the same text twice only costs tokens.
    if (!file || seen.has(file.path)) continue;
    seen.add(file.path);
    if (file.content.trim() !== "") files.push(file);
  }
  return files;
}

/** One system prompt section per file. */
export function formatInstruction(file: InstructionFile): string {
  return `Instructions from: ${file.path}\n${file.content.trim()}`;
}

async function readDirectoryInstructions(dir: string): Promise<InstructionFile | undefined> {
  return (await readText(join(dir, INSTRUCTION_FILE))) ?? readText(join(dir, COMPAT_INSTRUCTION_FILE));
}

async function readText(path: string): Promise<InstructionFile | undefined> {
  try {
    return { path, content: await readFile(path, "utf8") };
  } catch {
    return undefined; // missing, a directory, or no permission: all mean "no instructions here"
  }
}
