/**
 * Codex (@openai/codex): the OpenAI Responses API only, streamed, at `${base_url}/responses`
 * (0.169.0 rejects `wire_api = "chat"`; RESEARCH18.md §2).
 *
 * - Endpoint: a custom model provider in `$CODEX_HOME/config.toml` (`[model_providers.rllm]`,
 *   base_url = the session's /v1 URL, `env_key` = the NAME of the variable holding the token,
 *   which Codex sends as `Authorization: Bearer`). A custom provider id, because overriding the
 *   built-in `openai` one in TOML is ignored (openai/codex#11698). CODEX_HOME is under the
 *   sandbox's HOME.
 * - What Codex sends and the gateway translates (src/gateway/adapters/responses/): function tools
 *   (exec_command, write_stdin, …), a `namespace` tool (multi_agent_v1), custom tools on models
 *   Codex knows (apply_patch), `store: false`, `include: ["reasoning.encrypted_content"]`, the
 *   whole history as input every turn (no previous_response_id). The hosted `web_search` tool is
 *   turned off (`web_search = "disabled"`): a Chat Completions upstream cannot run it.
 * - Retries off (request_max_retries, stream_max_retries = 0): the gateway already retries across
 *   upstreams, and a failed call then shows in the episode instead of repeating in the traces.
 * - Quiet: check_for_update_on_startup = false, `[analytics] enabled = false` (OTel export is off
 *   by default). `--strict-config` makes a key this version does not know an error, not a no-op.
 * - Non-interactive: `codex exec --json` prints JSONL events; the answer is the text of the last
 *   `item.completed` of type `agent_message`. `--dangerously-bypass-approvals-and-sandbox`:
 *   Codex's own sandbox (bwrap/landlock) would nest inside ours; the task's sandbox is the
 *   boundary. `--skip-git-repo-check` (task dirs are not repositories), `--ephemeral` (no session
 *   files), `-C` the task's cwd. Codex appends a piped stdin to the prompt: the runner gives it
 *   none.
 * Flags and keys as read from the pinned binary (`codex exec --help`, its strings).
 */
import { stringify } from "smol-toml";
import type { HarnessDefinition } from "./types.js";

/** The variable Codex reads the session token from (config.toml's `env_key`). */
export const CODEX_TOKEN_ENV = "RLLM_API_KEY";

export const codex: HarnessDefinition = {
  name: "codex",
  package: "@openai/codex",
  version: "0.169.0",
  bin: "node_modules/.bin/codex",
  dialect: "responses",
  configure(ctx) {
    const config = {
      model: ctx.model,
      model_provider: "rllm",
      check_for_update_on_startup: false,
      web_search: "disabled",
      analytics: { enabled: false },
      model_providers: {
        rllm: {
          name: "rllm",
          base_url: ctx.baseURL,
          env_key: CODEX_TOKEN_ENV,
          wire_api: "responses",
          request_max_retries: 0,
          stream_max_retries: 0,
        },
      },
    };
    return {
      files: [{ path: ".codex/config.toml", content: `${stringify(config)}\n` }],
      env: { CODEX_HOME: `${ctx.home}/.codex`, [CODEX_TOKEN_ENV]: ctx.apiKey },
    };
  },
  command(ctx) {
    return [
      `${ctx.installDir}/${this.bin}`,
      "exec",
      "--json",
      "--strict-config",
      "--skip-git-repo-check",
      "--ephemeral",
      "--dangerously-bypass-approvals-and-sandbox",
      "-C",
      ctx.cwd,
      "-m",
      ctx.model,
      "--",
      ctx.instruction,
    ];
  },
  finalMessage(stdout) {
    let answer: string | undefined;
    for (const line of stdout.split("\n")) {
      const event = jsonLine(line) as
        | { type?: unknown; item?: { type?: unknown; text?: unknown } }
        | undefined;
      const item = event?.type === "item.completed" ? event.item : undefined;
      if (item?.type === "agent_message" && typeof item.text === "string") answer = item.text;
    }
    return answer;
  },
};

/** One line of JSONL as a value, or undefined when it is not JSON. */
function jsonLine(line: string): unknown {
  if (!line.trim().startsWith("{")) return undefined;
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}
