/**
 * Claude Code (@anthropic-ai/claude-code): Anthropic Messages, streamed, at
 * `${ANTHROPIC_BASE_URL}/v1/messages?beta=true`.
 *
 * - Endpoint: ANTHROPIC_BASE_URL = the session URL (no /v1), the token as ANTHROPIC_AUTH_TOKEN
 *   (sent as `Authorization: Bearer`). Every model slot (main, haiku/sonnet/opus defaults,
 *   subagents) is the session's model, so no call names a model the gateway does not serve.
 * - Non-interactive: `claude -p PROMPT --output-format stream-json --verbose` prints the session
 *   as JSON events, one per line (kept clipped in info.harness: the transcript of what the tools
 *   did); the last, `type: "result"`, has the final answer as `result`. Not `--bare`: it trims
 *   the tools to Bash, Edit and Read (no Write), and `--tools` does not bring them back under it;
 *   the run is the CLI as users run it. `--dangerously-skip-permissions` grants every tool (the
 *   sandbox is the boundary); as root Claude Code refuses it unless IS_SANDBOX=1, which is set.
 *   `--no-session-persistence` writes no transcript. CLAUDE_CONFIG_DIR keeps its state under the
 *   sandbox's HOME.
 * - Quiet: CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC (telemetry, error reports, update checks),
 *   DISABLE_AUTOUPDATER, CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS.
 * Flags and variables as read from the pinned binary (`claude --help`; RESEARCH18.md §2).
 */
import type { HarnessDefinition } from "./types.js";

export const claudeCode: HarnessDefinition = {
  name: "claude-code",
  package: "@anthropic-ai/claude-code",
  version: "2.1.328",
  bin: "node_modules/.bin/claude",
  dialect: "anthropic-messages",
  configure(ctx) {
    return {
      files: [],
      env: {
        ANTHROPIC_BASE_URL: ctx.sessionURL,
        ANTHROPIC_AUTH_TOKEN: ctx.apiKey,
        ANTHROPIC_MODEL: ctx.model,
        ANTHROPIC_DEFAULT_HAIKU_MODEL: ctx.model,
        ANTHROPIC_DEFAULT_SONNET_MODEL: ctx.model,
        ANTHROPIC_DEFAULT_OPUS_MODEL: ctx.model,
        ANTHROPIC_SMALL_FAST_MODEL: ctx.model,
        CLAUDE_CODE_SUBAGENT_MODEL: ctx.model,
        CLAUDE_CONFIG_DIR: `${ctx.home}/.claude`,
        IS_SANDBOX: "1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS: "1",
        DISABLE_AUTOUPDATER: "1",
        DISABLE_TELEMETRY: "1",
        DISABLE_ERROR_REPORTING: "1",
      },
    };
  },
  command(ctx) {
    return [
      `${ctx.installDir}/${this.bin}`,
      "-p",
      ctx.instruction,
      "--dangerously-skip-permissions",
      "--no-session-persistence",
      "--model",
      ctx.model,
      "--output-format",
      "stream-json",
      "--verbose",
    ];
  },
  finalMessage(stdout) {
    const result = lastJsonLine(stdout)?.result;
    return typeof result === "string" ? result : undefined;
  },
};

/** The last line of `text` that parses as a JSON object, or undefined. */
export function lastJsonLine(text: string): Record<string, unknown> | undefined {
  const lines = text.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!.trim();
    if (!line.startsWith("{")) continue;
    try {
      const value: unknown = JSON.parse(line);
      if (value && typeof value === "object" && !Array.isArray(value))
        return value as Record<string, unknown>;
    } catch {
      // not JSON: an earlier line may be
    }
  }
  return undefined;
}
