import type { AgentDefinition } from "@tessera/kernel";

/** Agents like the kernel's built-in ones (descriptions of the same length), for prompt-size checks. */
export const BUILTIN_LIKE_AGENTS: AgentDefinition[] = [
  { id: "build", mode: "primary", description: "The default agent: reads, edits and runs code with every tool." },
  {
    id: "explore",
    mode: "subagent",
    description:
      "Fast read-only agent for searching the codebase: finds files by pattern, searches code for keywords and answers questions about how the code works. Say how thorough it should be: quick, medium or very thorough.",
  },
  {
    id: "general",
    mode: "subagent",
    description:
      "General-purpose agent for researching complex questions and carrying out multi-step tasks. Use it to search when you are not confident the first few tries will find the right match, or to run several steps on its own.",
  },
];
