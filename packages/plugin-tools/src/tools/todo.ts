import { readFile, unlink } from "node:fs/promises";
import { join } from "node:path";
import { defineEvent, defineTool, listEventDefinitions, tesseraPaths, type Bus, type EventDefinition } from "@tessera/kernel";
import { z } from "zod";
import { atomicWrite, errorCode } from "../util/fs.js";

export const TodoSchema = z.object({
  id: z.string(),
  content: z.string(),
  status: z.enum(["pending", "in_progress", "completed", "cancelled"]),
  priority: z.enum(["high", "medium", "low"]),
});
export type Todo = z.output<typeof TodoSchema>;

export const TodoWriteParameters = z.object({
  todos: z.array(TodoSchema).describe("The whole updated list"),
});
export const TodoReadParameters = z.object({});

const TodoUpdatedSchema = z.object({ sessionID: z.string(), todos: z.array(TodoSchema) });

/**
 * `todo.updated { sessionID, todos }`, published whenever a session's todo list is written.
 * Defined once per process: a second copy of this module (two installs) reuses the first
 * definition instead of failing on the kernel's "already defined" check.
 */
export const TodoUpdated: EventDefinition<"todo.updated", typeof TodoUpdatedSchema> =
  (listEventDefinitions().find((d) => d.type === "todo.updated") as EventDefinition<"todo.updated", typeof TodoUpdatedSchema> | undefined) ??
  defineEvent("todo.updated", TodoUpdatedSchema);

/** Session ids become file names: anything but letters, digits, `_` and `-` is replaced. */
function fileName(sessionID: string): string {
  return `${sessionID.replace(/[^A-Za-z0-9_-]/g, "_")}.json`;
}

/**
 * Todo lists per session, kept in memory and persisted to `<dir>/<sessionID>.json` (atomically),
 * so a restarted process finds them again.
 */
export class TodoStore {
  private readonly lists = new Map<string, Todo[]>();

  constructor(private readonly dir: string) {}

  async get(sessionID: string): Promise<Todo[]> {
    const cached = this.lists.get(sessionID);
    if (cached) return cached;
    let todos: Todo[] = [];
    try {
      const parsed = z.array(TodoSchema).safeParse(JSON.parse(await readFile(join(this.dir, fileName(sessionID)), "utf8")));
      if (parsed.success) todos = parsed.data;
    } catch (error) {
      if (errorCode(error) !== "ENOENT" && !(error instanceof SyntaxError)) throw error;
    }
    this.lists.set(sessionID, todos);
    return todos;
  }

  /** Drops a session's list, in memory and on disk (its session was deleted). */
  async forget(sessionID: string): Promise<void> {
    this.lists.delete(sessionID);
    await unlink(join(this.dir, fileName(sessionID))).catch(() => undefined);
  }

  async set(sessionID: string, todos: Todo[]): Promise<void> {
    this.lists.set(sessionID, todos);
    await atomicWrite(join(this.dir, fileName(sessionID)), `${JSON.stringify(todos, null, 2)}\n`);
  }
}

function summary(todos: readonly Todo[]): string {
  const open = todos.filter((t) => t.status === "pending" || t.status === "in_progress").length;
  return `${open} open of ${todos.length} todo${todos.length === 1 ? "" : "s"}`;
}

export interface TodoToolsInput {
  /** Where lists are persisted; default `<data>/todo`. */
  readonly dir?: string;
  readonly store?: TodoStore;
  /** Where `todo.updated` is published. */
  readonly bus?: Pick<Bus, "publish">;
}

/** The `todowrite` and `todoread` tools, sharing one store. Neither needs a permission. */
export function createTodoTools(input: TodoToolsInput = {}) {
  const store = input.store ?? new TodoStore(input.dir ?? join(tesseraPaths().data, "todo"));
  const todowrite = defineTool({
    id: "todowrite",
    description:
      "Write the session's todo list (the whole list each time) to plan and track multi-step work. Keep one item in_progress; mark items completed as soon as they are done.",
    parameters: TodoWriteParameters,
    permission: () => [],
    async execute(args, ctx) {
      const ids = new Set<string>();
      for (const t of args.todos) {
        if (ids.has(t.id)) throw new Error(`Two todos have the id "${t.id}"; give each a unique id.`);
        ids.add(t.id);
      }
      await store.set(ctx.sessionID, args.todos);
      input.bus?.publish(TodoUpdated, { sessionID: ctx.sessionID, todos: args.todos });
      return { title: summary(args.todos), output: JSON.stringify(args.todos, null, 2), metadata: { todos: args.todos } };
    },
  });
  const todoread = defineTool({
    id: "todoread",
    description: "Read the session's todo list.",
    parameters: TodoReadParameters,
    permission: () => [],
    async execute(_args, ctx) {
      const todos = await store.get(ctx.sessionID);
      return { title: summary(todos), output: JSON.stringify(todos, null, 2), metadata: { todos } };
    },
  });
  return { todowrite, todoread, store };
}
