/**
 * The version of the plugin API. Plugins declare the range they support in `kernel`; it moves
 * with breaking changes to hooks, the plugin context or the registries, not with every release.
 */
export const KERNEL_API_VERSION = "1.0.0";
