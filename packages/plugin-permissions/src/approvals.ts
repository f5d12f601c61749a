import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { Rule } from "./rules.js";

/** One "always" answer: allow `pattern` for `permission` in this project from now on. */
export interface Approval {
  readonly permission: string;
  readonly pattern: string;
  /** When it was given (ms since the epoch). */
  readonly time: number;
}

const FileSchema = z.object({
  version: z.literal(1),
  root: z.string(),
  approvals: z.array(z.object({ permission: z.string().min(1), pattern: z.string().min(1), time: z.number() })),
});

/** `<data>/permissions/<sha256 of the project root, 16 hex>.json` */
export function approvalsFile(dataDir: string, root: string): string {
  const hash = createHash("sha256").update(root).digest("hex").slice(0, 16);
  return join(dataDir, "permissions", `${hash}.json`);
}

/**
 * The project's "always" approvals, kept in memory and persisted to one JSON file per project
 * (written atomically: a temp file, then a rename). A missing or unreadable file is an empty
 * list; an unreadable one is reported through `warn` and replaced on the next write.
 */
export class ApprovalStore {
  private list: Approval[] = [];
  private rulesCache: Rule[] | undefined;

  constructor(
    /** The JSON file; undefined keeps approvals in memory only. */
    readonly file: string | undefined,
    readonly root: string,
    private readonly warn: (message: string) => void = () => {},
  ) {}

  load(): this {
    if (this.file === undefined) return this;
    let text: string;
    try {
      text = readFileSync(this.file, "utf8");
    } catch {
      this.list = [];
      this.rulesCache = undefined;
      return this;
    }
    try {
      const parsed = FileSchema.parse(JSON.parse(text));
      this.list = parsed.approvals;
    } catch (error) {
      this.warn(`ignoring unreadable approvals file ${this.file}: ${(error as Error).message}`);
      this.list = [];
    }
    this.rulesCache = undefined;
    return this;
  }

  get approvals(): readonly Approval[] {
    return this.list;
  }

  /** The approvals as rules (layer "approval", source the file, key `approvals[i]`). */
  rules(): readonly Rule[] {
    this.rulesCache ??= this.list.map((a, i) => ({
      permission: a.permission,
      pattern: a.pattern,
      action: "allow" as const,
      layer: "approval" as const,
      source: this.file ?? "approvals of this run",
      key: `approvals[${i}]`,
    }));
    return this.rulesCache;
  }

  /** Adds approvals (duplicates are skipped) and writes the file. Returns the ones added. */
  add(entries: ReadonlyArray<{ permission: string; pattern: string }>, now = Date.now()): Approval[] {
    const added: Approval[] = [];
    for (const e of entries) {
      if (this.list.some((a) => a.permission === e.permission && a.pattern === e.pattern)) continue;
      if (added.some((a) => a.permission === e.permission && a.pattern === e.pattern)) continue;
      added.push({ permission: e.permission, pattern: e.pattern, time: now });
    }
    if (added.length === 0) return added;
    this.list = [...this.list, ...added];
    this.rulesCache = undefined;
    this.save();
    return added;
  }

  private save(): void {
    if (this.file === undefined) return;
    mkdirSync(join(this.file, ".."), { recursive: true });
    const tmp = `${this.file}.${process.pid}.${Date.now()}.tmp`;
    writeFileSync(tmp, `${JSON.stringify({ version: 1, root: this.root, approvals: this.list }, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, this.file);
  }
}
