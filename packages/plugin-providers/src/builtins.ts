/** The AI SDK packages bundled with this plugin; any other package is loaded from the project. */
export const BUNDLED_PACKAGES = ["@ai-sdk/openai", "@ai-sdk/anthropic", "@ai-sdk/google", "@ai-sdk/openai-compatible"] as const;
export type BundledPackage = (typeof BUNDLED_PACKAGES)[number];

/** Which transforms and error patterns apply: decided by the package that talks to the API. */
export type ProviderKind = "openai" | "anthropic" | "google" | "openai-compatible" | "other";

/** A provider Tessera knows without config: its package, key variables and endpoint. */
export interface BuiltinProvider {
  readonly id: string;
  readonly name: string;
  readonly npm: BundledPackage;
  /** Environment variables holding the API key, the preferred one first. Empty: no key needed. */
  readonly env: readonly string[];
  /** Default endpoint (openai-compatible hosts). */
  readonly baseURL?: string;
  /** Registered without config when a key variable is set. Local servers need a config entry. */
  readonly auto: boolean;
}

export const BUILTIN_PROVIDERS: readonly BuiltinProvider[] = [
  { id: "openai", name: "OpenAI", npm: "@ai-sdk/openai", env: ["OPENAI_API_KEY"], auto: true },
  { id: "anthropic", name: "Anthropic", npm: "@ai-sdk/anthropic", env: ["ANTHROPIC_API_KEY"], auto: true },
  { id: "google", name: "Google", npm: "@ai-sdk/google", env: ["GOOGLE_GENERATIVE_AI_API_KEY", "GEMINI_API_KEY"], auto: true },
  {
    id: "deepseek",
    name: "DeepSeek",
    npm: "@ai-sdk/openai-compatible",
    env: ["DEEPSEEK_API_KEY"],
    baseURL: "https://api.deepseek.com/v1",
    auto: true,
  },
  {
    id: "groq",
    name: "Groq",
    npm: "@ai-sdk/openai-compatible",
    env: ["GROQ_API_KEY"],
    baseURL: "https://api.groq.com/openai/v1",
    auto: true,
  },
  {
    id: "openrouter",
    name: "OpenRouter",
    npm: "@ai-sdk/openai-compatible",
    env: ["OPENROUTER_API_KEY"],
    baseURL: "https://openrouter.ai/api/v1",
    auto: true,
  },
  {
    id: "together",
    name: "Together AI",
    npm: "@ai-sdk/openai-compatible",
    env: ["TOGETHER_API_KEY"],
    baseURL: "https://api.together.xyz/v1",
    auto: true,
  },
  { id: "xai", name: "xAI", npm: "@ai-sdk/openai-compatible", env: ["XAI_API_KEY"], baseURL: "https://api.x.ai/v1", auto: true },
  { id: "ollama", name: "Ollama", npm: "@ai-sdk/openai-compatible", env: [], baseURL: "http://127.0.0.1:11434/v1", auto: false },
  { id: "lmstudio", name: "LM Studio", npm: "@ai-sdk/openai-compatible", env: [], baseURL: "http://127.0.0.1:1234/v1", auto: false },
  { id: "vllm", name: "vLLM", npm: "@ai-sdk/openai-compatible", env: [], baseURL: "http://127.0.0.1:8000/v1", auto: false },
];

export function builtinProvider(id: string): BuiltinProvider | undefined {
  return BUILTIN_PROVIDERS.find((p) => p.id === id);
}

export function kindOf(npm: string): ProviderKind {
  switch (npm) {
    case "@ai-sdk/openai":
      return "openai";
    case "@ai-sdk/anthropic":
      return "anthropic";
    case "@ai-sdk/google":
      return "google";
    case "@ai-sdk/openai-compatible":
      return "openai-compatible";
    default:
      return "other";
  }
}

/**
 * The `providerOptions` namespace the package reads: "openai", "anthropic", "google"; the
 * provider id for openai-compatible (created with `name: id`); for other packages, the last
 * segment of the package name ("@ai-sdk/mistral" → "mistral").
 */
export function optionsNamespace(npm: string, providerID: string): string {
  const kind = kindOf(npm);
  if (kind === "openai-compatible") return providerID;
  if (kind !== "other") return kind;
  const last = npm.split("/").pop() ?? npm;
  return last.replace(/^ai-sdk-provider-|-ai-provider$|^ai-sdk-/g, "");
}
