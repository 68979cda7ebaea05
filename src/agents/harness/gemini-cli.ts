/**
 * Gemini CLI (@google/gemini-cli): the Gemini API only, streamed, at
 * `${GOOGLE_GEMINI_BASE_URL}/v1beta/models/{model}:streamGenerateContent?alt=sse`, the key in
 * `x-goog-api-key` (the gateway's Gemini dialect, src/gateway/adapters/gemini/).
 *
 * - Endpoint: GOOGLE_GEMINI_BASE_URL = the session URL (no /v1), GEMINI_API_KEY = the token. The
 *   pinned bundle reads the variable in createContentGenerator and hands it to @google/genai as
 *   `httpOptions.baseUrl` (bundle/chunk-5FZXKDXH.js). With the variable set, the auth type it
 *   derives from the environment is "gateway", which validateAuthMethod refuses (exit 41); the
 *   settings file therefore selects `gemini-api-key` (RESEARCH18.md §2).
 * - Settings (~/.gemini/settings.json): that auth type; usage statistics, telemetry, auto-update
 *   and its notification off; the tools that call Google's hosted services through the model API
 *   excluded (google_web_search sends a googleSearch tool, web_fetch fetches the web): a chat
 *   upstream cannot run hosted tools and the sandbox has no network.
 * - GEMINI_CLI_TRUST_WORKSPACE: in an untrusted folder YOLO is downgraded to "default" and the run
 *   stalls on approvals. GEMINI_CLI_NO_RELAUNCH: no child-process relaunch.
 * - Non-interactive: `gemini -p PROMPT -m MODEL --approval-mode yolo -o json` prints one JSON
 *   object whose `response` is the final answer. yolo approves every tool (the sandbox is the
 *   boundary).
 */
import type { HarnessDefinition } from "./types.js";

export const geminiCli: HarnessDefinition = {
  name: "gemini-cli",
  package: "@google/gemini-cli",
  version: "0.61.0",
  bin: "node_modules/.bin/gemini",
  dialect: "gemini",
  configure(ctx) {
    const settings = {
      security: { auth: { selectedType: "gemini-api-key" } },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
      tools: { exclude: ["google_web_search", "web_fetch"] },
    };
    return {
      files: [{ path: ".gemini/settings.json", content: `${JSON.stringify(settings, null, 2)}\n` }],
      env: {
        GOOGLE_GEMINI_BASE_URL: ctx.sessionURL,
        GEMINI_API_KEY: ctx.apiKey,
        GEMINI_CLI_TRUST_WORKSPACE: "true",
        GEMINI_CLI_NO_RELAUNCH: "true",
        GEMINI_TELEMETRY_ENABLED: "false",
      },
    };
  },
  command(ctx) {
    return [
      `${ctx.installDir}/${this.bin}`,
      "-p",
      ctx.instruction,
      "-m",
      ctx.model,
      "--approval-mode",
      "yolo",
      "-o",
      "json",
    ];
  },
  finalMessage(stdout) {
    const start = stdout.indexOf("{");
    if (start < 0) return undefined;
    try {
      const out = JSON.parse(stdout.slice(start)) as { response?: unknown };
      return typeof out.response === "string" ? out.response : undefined;
    } catch {
      return undefined;
    }
  },
};
