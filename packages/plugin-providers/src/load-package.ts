import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { globalModuleDirs, resolvePackageFile } from "@tessera/kernel";

export interface PackageSearch {
  /** The project directory; `node_modules` folders are searched from here up. */
  readonly directory: string;
  /** Folders of globally installed packages, searched after the project. */
  readonly globalModules: readonly string[];
}

export { globalModuleDirs };

/** The entry file of package `name`, from the project's node_modules up, then the global folders (the kernel's resolver). */
export function resolvePackage(name: string, search: PackageSearch): string {
  return resolvePackageFile(name, { ...search, source: join(search.directory, "tessera.config.json") });
}

/** Imports a provider package and returns its `create*` factory. */
export async function loadProviderFactory(
  name: string,
  search: PackageSearch,
): Promise<{ factory: (options: Record<string, unknown>) => unknown; exportName: string; file: string }> {
  const file = resolvePackage(name, search);
  const module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  const { fn, exportName } = pickFactory(name, module);
  return { factory: fn, exportName, file };
}

/**
 * The package's provider factory: among exports named `create…` that are functions, the one
 * matching the package name (`@ai-sdk/amazon-bedrock` → `createAmazonBedrock`), else the only
 * or first one; a default export that has one is searched as well.
 */
export function pickFactory(
  name: string,
  module: Record<string, unknown>,
): { fn: (options: Record<string, unknown>) => unknown; exportName: string } {
  const candidates = Object.entries(module).filter(
    ([key, value]) => /^create[A-Z]/.test(key) && typeof value === "function",
  ) as Array<[string, (options: Record<string, unknown>) => unknown]>;
  if (candidates.length === 0 && module.default && typeof module.default === "object") {
    return pickFactory(name, module.default as Record<string, unknown>);
  }
  if (candidates.length === 0) {
    throw new Error(`package "${name}" exports no create… factory (exports: ${Object.keys(module).join(", ") || "none"})`);
  }
  const base = (name.split("/").pop() ?? name).replace(/^ai-sdk-provider-|^ai-sdk-|-ai-provider$|-provider$/g, "");
  const wanted = `create${base.split(/[-_.]/).map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join("")}`.toLowerCase();
  const exact = candidates.find(([key]) => key.toLowerCase() === wanted);
  const [exportName, fn] = exact ?? candidates[0]!;
  return { fn, exportName };
}
