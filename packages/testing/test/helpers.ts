import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModel, StreamTextResult, TextStreamPart, ToolSet } from "ai";
import type { ScriptedServer } from "../src/index.js";

/** A chat model pointed at the scripted server, through the real provider package. */
export function modelFor(server: ScriptedServer, options: { includeUsage?: boolean; modelId?: string } = {},
): LanguageModel {
  const provider = createOpenAICompatible({
    name: "mock",
    baseURL: server.url,
    apiKey: "test",
    includeUsage: options.includeUsage ?? true,
  });
  return provider.chatModel(options.modelId ?? "mock-model");
}

export interface Collected<TOOLS extends ToolSet> {
  parts: TextStreamPart<TOOLS>[];
  /** What iterating `result.stream` threw, if anything (mid-stream network errors are thrown). */
  thrown: unknown;
}

/** Drains `result.stream`, keeping every part and the thrown error. */
export async function collect<TOOLS extends ToolSet>(
  result: Pick<StreamTextResult<TOOLS, any, any>, "stream">,
): Promise<Collected<TOOLS>> {
  const parts: TextStreamPart<TOOLS>[] = [];
  let thrown: unknown;
  try {
    for await (const part of result.stream) parts.push(part);
  } catch (error) {
    thrown = error;
  }
  return { parts, thrown };
}

export function partsOfType<TOOLS extends ToolSet, T extends TextStreamPart<TOOLS>["type"]>(
  parts: TextStreamPart<TOOLS>[],
  type: T,
): Extract<TextStreamPart<TOOLS>, { type: T }>[] {
  return parts.filter((part): part is Extract<TextStreamPart<TOOLS>, { type: T }> => part.type === type);
}

/** Reads a raw SSE response into its `data:` payloads. */
export async function readSse(response: Response): Promise<string[]> {
  const text = await response.text();
  return text
    .split("\n\n")
    .filter((event) => event.length > 0)
    .map((event) => {
      if (!event.startsWith("data: ")) throw new Error(`not an SSE data event: ${JSON.stringify(event)}`);
      return event.slice("data: ".length);
    });
}
