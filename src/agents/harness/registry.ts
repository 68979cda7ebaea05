/**
 * The harnesses `--harness NAME` knows: one definition per CLI, each in its own file. An unknown
 * name is an error listing the known ones.
 */
import { claudeCode } from "./claude-code.js";
import { codex } from "./codex.js";
import { geminiCli } from "./gemini-cli.js";
import { opencode } from "./opencode.js";
import { qwenCode } from "./qwen-code.js";
import type { HarnessDefinition } from "./types.js";

export const HARNESSES: Record<string, HarnessDefinition> = Object.fromEntries(
  [claudeCode, codex, geminiCli, opencode, qwenCode].map((d) => [d.name, d]),
);

export function harnessNames(): string[] {
  return Object.keys(HARNESSES).sort();
}

export function harnessDefinition(name: string): HarnessDefinition {
  const definition = HARNESSES[name];
  if (!definition) {
    throw new TypeError(
      `unknown harness "${name}"; the harnesses are ${harnessNames().join(", ")}`,
    );
  }
  return definition;
}
