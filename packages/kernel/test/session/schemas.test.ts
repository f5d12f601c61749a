import { describe, expect, it } from "vitest";
import {
  AssistantMessageSchema,
  MessageErrorSchema,
  newId,
  PartSchema,
  type Part,
} from "../../src/session/index.js";

const base = () => ({ id: newId("part"), sessionID: newId("session"), messageID: newId("message") });
const tokens = { input: 10, output: 5, reasoning: 1, cache: { read: 2, write: 0 } };

const everyPart: Part[] = [
  { ...base(), type: "text", text: "hi", synthetic: true, ignored: false, time: { start: 1, end: 2 } },
  { ...base(), type: "reasoning", text: "thinking", time: { start: 1 } },
  {
    ...base(),
    type: "file",
    mediaType: "text/plain",
    url: "file:///a.ts",
    filename: "a.ts",
    source: { type: "file", path: "a.ts", text: { value: "@a.ts", start: 0, end: 5 } },
  },
  { ...base(), type: "tool", callID: "c1", tool: "bash", state: { status: "pending", input: {}, raw: '{"comm' } },
  {
    ...base(),
    type: "tool",
    callID: "c2",
    tool: "bash",
    state: { status: "running", input: { command: "ls" }, title: "ls", metadata: {}, time: { start: 1 } },
  },
  {
    ...base(),
    type: "tool",
    callID: "c3",
    tool: "read",
    state: {
      status: "completed",
      input: { path: "a" },
      output: "x",
      title: "a",
      metadata: { truncated: false },
      time: { start: 1, end: 2, compacted: 3 },
      attachments: [{ ...base(), type: "file", mediaType: "image/png", url: "data:image/png;base64,AA==" }],
    },
  },
  {
    ...base(),
    type: "tool",
    callID: "c4",
    tool: "edit",
    state: { status: "error", input: {}, error: "no such file", time: { start: 1, end: 2 } },
  },
  { ...base(), type: "step-start", snapshot: "abc" },
  { ...base(), type: "step-finish", reason: "tool-calls", tokens, cost: 0.01, snapshot: "def" },
  { ...base(), type: "patch", hash: "abc", files: ["src/a.ts"] },
  { ...base(), type: "agent", name: "explore", source: { value: "@explore", start: 0, end: 8 } },
  { ...base(), type: "subtask", prompt: "find x", description: "find", agent: "explore", model: { providerID: "p", modelID: "m" } },
  { ...base(), type: "compaction", auto: true },
  { ...base(), type: "retry", attempt: 2, error: { name: "APIError", message: "overloaded", retryable: true, statusCode: 529 }, time: { created: 1 } },
];

describe("schemas", () => {
  it("every part type survives a parse unchanged", () => {
    for (const part of everyPart) expect(PartSchema.parse(part)).toEqual(part);
  });

  it("a tool state must carry what its status promises", () => {
    const completedWithoutOutput = {
      ...base(),
      type: "tool",
      callID: "c",
      tool: "bash",
      state: { status: "completed", input: {}, title: "t", metadata: {}, time: { start: 1, end: 2 } },
    };
    expect(PartSchema.safeParse(completedWithoutOutput).success).toBe(false);
  });

  it("message errors are told apart by name, and unknown names are rejected", () => {
    expect(MessageErrorSchema.parse({ name: "ProviderAuthError", message: "bad key", providerID: "openai" })).toEqual({
      name: "ProviderAuthError",
      message: "bad key",
      providerID: "openai",
    });
    expect(MessageErrorSchema.safeParse({ name: "ProviderAuthError", message: "bad key" }).success).toBe(false);
    expect(MessageErrorSchema.safeParse({ name: "Whatever", message: "x" }).success).toBe(false);
  });

  it("an assistant message without completion time, finish or error is valid (it is still streaming)", () => {
    const message = {
      id: newId("message"),
      sessionID: newId("session"),
      role: "assistant",
      parentID: newId("message"),
      providerID: "p",
      modelID: "m",
      agent: "build",
      time: { created: 1 },
      cost: 0,
      tokens,
    };
    expect(AssistantMessageSchema.parse(message)).toEqual(message);
  });
});
