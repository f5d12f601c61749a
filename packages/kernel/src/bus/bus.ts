import { z } from "zod";
import { ErrorCodes, TesseraError } from "../errors.js";

/** An event type: a dotted, past-tense name and the zod schema of its properties. */
export interface EventDefinition<Type extends string = string, Schema extends z.ZodType = z.ZodType> {
  readonly type: Type;
  readonly schema: Schema;
}

export type EventProperties<E extends EventDefinition> = z.output<E["schema"]>;

export interface BusEvent<E extends EventDefinition = EventDefinition> {
  readonly type: E["type"];
  readonly properties: EventProperties<E>;
}

const definitions = new Map<string, EventDefinition>();

/** Defines an event type once; defining the same name with another schema throws. */
export function defineEvent<Type extends string, Schema extends z.ZodType>(
  type: Type,
  schema: Schema,
): EventDefinition<Type, Schema> {
  const existing = definitions.get(type);
  // A second copy of the same module (two installs, a test runner re-importing) defines the same
  // shape again; only a different shape is a conflict.
  if (existing && existing.schema !== schema && shapeOf(existing.schema) !== shapeOf(schema)) {
    throw new TesseraError(ErrorCodes.EVENT_INVALID, `event "${type}" is already defined with another schema`);
  }
  const definition = Object.freeze({ type, schema });
  definitions.set(type, definition);
  return definition;
}

let incomparable = 0;
function shapeOf(schema: z.ZodType): string {
  try {
    return JSON.stringify(z.toJSONSchema(schema, { unrepresentable: "any" }));
  } catch {
    return `incomparable:${incomparable++}`; // cannot compare: treat as different
  }
}

/** Every event type defined so far in this process (for docs and JSON Schema export). */
export function listEventDefinitions(): EventDefinition[] {
  return [...definitions.values()];
}

export type Unsubscribe = () => void;

export interface BusOptions {
  /** Called for each published event after subscribers; the kernel wires the `event` hook here. */
  forward?: (event: BusEvent) => void;
  /** A subscriber threw; the publisher is never affected. */
  onSubscriberError?: (error: unknown, event: BusEvent) => void;
}

type Handler = (event: BusEvent) => void;

/**
 * Typed publish/subscribe. Payloads are validated against the event's schema on publish, so a
 * subscriber can trust what it receives. Subscribers run synchronously in subscription order.
 */
export class Bus {
  private readonly byType = new Map<string, Set<Handler>>();
  private readonly all = new Set<Handler>();

  constructor(private readonly options: BusOptions = {}) {}

  /**
   * Publishes an event. Properties are validated against the schema, unless `trusted` says they
   * were built by typed code on a hot path (the kernel's streaming deltas): then they go as they are.
   */
  publish<E extends EventDefinition>(
    definition: E,
    properties: z.input<E["schema"]>,
    options: { trusted?: boolean } = {},
  ): void {
    let data: unknown = properties;
    if (!options.trusted) {
      const parsed = definition.schema.safeParse(properties);
      if (!parsed.success) {
        throw new TesseraError(
          ErrorCodes.EVENT_INVALID,
          `event "${definition.type}" has invalid properties: ${z.prettifyError(parsed.error)}`,
        );
      }
      data = parsed.data;
    }
    const event: BusEvent = { type: definition.type, properties: data };
    const handlers = this.byType.get(definition.type);
    if (handlers) for (const handler of [...handlers]) this.deliver(handler, event);
    for (const handler of [...this.all]) this.deliver(handler, event);
    this.options.forward?.(event);
  }

  subscribe<E extends EventDefinition>(type: E | E["type"], handler: (event: BusEvent<E>) => void): Unsubscribe {
    const name = typeof type === "string" ? type : type.type;
    let set = this.byType.get(name);
    if (!set) this.byType.set(name, (set = new Set()));
    const h = handler as Handler;
    set.add(h);
    return () => set.delete(h);
  }

  subscribeAll(handler: (event: BusEvent) => void): Unsubscribe {
    this.all.add(handler);
    return () => this.all.delete(handler);
  }

  private deliver(handler: Handler, event: BusEvent): void {
    try {
      handler(event);
    } catch (error) {
      this.options.onSubscriberError?.(error, event);
    }
  }
}
