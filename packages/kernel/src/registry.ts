import { ErrorCodes, TesseraError } from "./errors.js";

export interface Registered<T> {
  readonly value: T;
  /** The plugin that registered it. */
  readonly plugin: string;
}

/**
 * A named collection of things plugins contribute (tools, providers, agents, commands …).
 * Refuses surprises: a duplicate id throws naming both plugins, and so does registering after
 * the kernel is ready.
 */
export class Registry<T extends { readonly id: string }> {
  private readonly entries = new Map<string, Registered<T>>();
  private sealed = false;

  constructor(readonly kind: string) {}

  register(plugin: string, value: T): void {
    if (this.sealed) {
      throw new TesseraError(
        ErrorCodes.KERNEL_SEALED,
        `plugin "${plugin}" tried to register ${this.kind} "${value.id}" after the kernel was ready; register in setup()`,
      );
    }
    const existing = this.entries.get(value.id);
    if (existing) {
      throw new TesseraError(
        ErrorCodes.REGISTRY_DUPLICATE,
        `${this.kind} "${value.id}" is registered by both "${existing.plugin}" and "${plugin}"`,
      );
    }
    this.entries.set(value.id, { value, plugin });
  }

  get(id: string): T | undefined {
    return this.entries.get(id)?.value;
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  /** Which plugin registered `id`. */
  owner(id: string): string | undefined {
    return this.entries.get(id)?.plugin;
  }

  list(): T[] {
    return [...this.entries.values()].map((e) => e.value);
  }

  entriesWithOwner(): Registered<T>[] {
    return [...this.entries.values()];
  }

  seal(): void {
    this.sealed = true;
  }

  get isSealed(): boolean {
    return this.sealed;
  }
}
