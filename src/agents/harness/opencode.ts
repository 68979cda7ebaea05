/**
 * opencode (opencode-ai): Chat Completions, streamed, through the @ai-sdk/openai-compatible
 * provider compiled into its binary (nothing is fetched at run time).
 *
 * - Config: one JSON file (OPENCODE_CONFIG) declaring a provider "rllm" at the session's base URL
 *   with the token as apiKey, the session's model as both `model` and `small_model` (opencode's
 *   side calls name no other provider), edit, bash and external_directory "allow" (a Harbor
 *   task's /app is a link out of the project's real dir, which opencode counts as external), and
 *   sharing and autoupdate off. `--auto` approves any other permission a tool asks for: the
 *   sandbox is the boundary, and in `run` mode an unanswered ask is a rejection. Format: https://opencode.ai/config.json (RESEARCH18.md §2).
 * - Non-interactive: `opencode run --auto --format json --title rllm -m rllm/MODEL PROMPT`; a title given
 *   on the command line spares the session-title model call. With `--format json` stdout is one
 *   JSON event per line; the answer is the text of the last `text` event.
 * - Quiet: OPENCODE_DISABLE_AUTOUPDATE, _MODELS_FETCH (models.dev), _LSP_DOWNLOAD,
 *   _DEFAULT_PLUGINS, _SHARE, _CLAUDE_CODE (no reading ~/.claude) — names from the pinned binary.
 */
import type { HarnessDefinition } from "./types.js";

const CONFIG = ".config/opencode/rllm.json";

export const opencode: HarnessDefinition = {
  name: "opencode",
  package: "opencode-ai",
  version: "1.18.33",
  bin: "node_modules/.bin/opencode",
  dialect: "chat-completions",
  configure(ctx) {
    const config = {
      $schema: "https://opencode.ai/config.json",
      provider: {
        rllm: {
          npm: "@ai-sdk/openai-compatible",
          name: "rllm",
          options: { baseURL: ctx.baseURL, apiKey: ctx.apiKey },
          models: { [ctx.model]: { name: ctx.model } },
        },
      },
      model: `rllm/${ctx.model}`,
      small_model: `rllm/${ctx.model}`,
      permission: { edit: "allow", bash: "allow", external_directory: "allow", webfetch: "deny" },
      share: "disabled",
      autoupdate: false,
    };
    return {
      files: [{ path: CONFIG, content: `${JSON.stringify(config, null, 2)}\n` }],
      env: {
        OPENCODE_CONFIG: `${ctx.home}/${CONFIG}`,
        OPENCODE_DISABLE_AUTOUPDATE: "1",
        OPENCODE_DISABLE_MODELS_FETCH: "1",
        OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
        OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
        OPENCODE_DISABLE_SHARE: "1",
        OPENCODE_DISABLE_CLAUDE_CODE: "1",
      },
    };
  },
  command(ctx) {
    return [
      `${ctx.installDir}/${this.bin}`,
      "run",
      "--auto",
      "--format",
      "json",
      "--title",
      "rllm",
      "-m",
      `rllm/${ctx.model}`,
      ctx.instruction,
    ];
  },
  finalMessage(stdout) {
    let last: string | undefined;
    for (const line of stdout.split("\n")) {
      if (!line.startsWith("{")) continue;
      try {
        const event = JSON.parse(line) as { type?: unknown; part?: { text?: unknown } };
        if (event.type === "text" && typeof event.part?.text === "string") last = event.part.text;
      } catch {
        // a partial or foreign line
      }
    }
    return last;
  },
};
