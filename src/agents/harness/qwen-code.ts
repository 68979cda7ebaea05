/**
 * Qwen Code (@qwen-code/qwen-code): Chat Completions, streamed, with `--auth-type openai`.
 *
 * - Endpoint: OPENAI_BASE_URL = the session's base URL (ends in /v1), OPENAI_API_KEY = the token,
 *   OPENAI_MODEL = the session's model (env names from the pinned package's chunks; RESEARCH18.md).
 * - Settings (~/.qwen/settings.json): auth type openai, usage statistics, telemetry, auto-update
 *   and the update nag off. Qwen Code crashes when HOME does not exist; the runner makes it.
 * - Non-interactive: `qwen --auth-type openai --approval-mode yolo -o json PROMPT` (the positional
 *   prompt is one-shot; `-p` is deprecated). yolo approves every tool (the sandbox is the
 *   boundary). `--max-wall-time` carries the runner's timeout so Qwen stops on its own first.
 *   With `-o json` stdout is a JSON array of events; the answer is the `result` event's `result`.
 */
import type { HarnessDefinition } from "./types.js";

export const qwenCode: HarnessDefinition = {
  name: "qwen-code",
  package: "@qwen-code/qwen-code",
  version: "0.24.4",
  bin: "node_modules/.bin/qwen",
  dialect: "chat-completions",
  configure(ctx) {
    const settings = {
      security: { auth: { selectedType: "openai" } },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      general: { enableAutoUpdate: false, disableAutoUpdate: true, disableUpdateNag: true },
    };
    return {
      files: [{ path: ".qwen/settings.json", content: `${JSON.stringify(settings, null, 2)}\n` }],
      env: {
        OPENAI_BASE_URL: ctx.baseURL,
        OPENAI_API_KEY: ctx.apiKey,
        OPENAI_MODEL: ctx.model,
        QWEN_TELEMETRY_ENABLED: "false",
      },
    };
  },
  command(ctx) {
    return [
      `${ctx.installDir}/${this.bin}`,
      "--auth-type",
      "openai",
      "--approval-mode",
      "yolo",
      "--max-wall-time",
      String(Math.max(1, Math.floor(ctx.timeoutS))),
      "-o",
      "json",
      ctx.instruction,
    ];
  },
  finalMessage(stdout) {
    let events: unknown;
    try {
      events = JSON.parse(stdout.trim().slice(stdout.trim().indexOf("[")));
    } catch {
      return undefined;
    }
    if (!Array.isArray(events)) return undefined;
    const result = events.findLast(
      (e): e is { type: string; result: string } =>
        !!e && typeof e === "object" && e.type === "result" && typeof e.result === "string",
    );
    return result?.result;
  },
};
