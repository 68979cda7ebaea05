/**
 * A fake model server for tests and benchmarks: speaks the wire shapes of vLLM's OpenAI server,
 * SGLang's native `/generate` (plus its OpenAI endpoints) and a hosted OpenAI-compatible API, with a
 * deterministic "model", deterministic token ids and logprobs, and fault injection.
 *
 * WIRE SHAPES (what was confirmed, and where)
 * -------------------------------------------
 * vLLM (github.com/vllm-project/vllm, main branch 2026):
 *  - vllm/entrypoints/openai/chat_completion/protocol.py, .../serving.py:
 *    - request: `logprobs: bool`, `top_logprobs: int`, `max_tokens` | `max_completion_tokens`, `n`,
 *      `stop`, `stop_token_ids`, `include_stop_str_in_output`, `seed`, `stream_options.include_usage`,
 *      `return_token_ids: bool`.
 *    - non-streaming: top-level `prompt_token_ids` (null unless return_token_ids), per choice
 *      `token_ids` (sampled ids, the EOS id included when it finished on EOS), `stop_reason` (stop
 *      string / stop token id; null for EOS and length), `finish_reason` ("stop" | "length" |
 *      "tool_calls"), `logprobs: {content: [{token, logprob, bytes, top_logprobs: [{token, logprob,
 *      bytes}]}]}` (an entry for the EOS token too), message `{role, content, reasoning,
 *      tool_calls?}` (`tool_calls` dropped when empty).
 *    - streaming (`data: {json}\n\n` ... `data: [DONE]\n\n`): first chunk per choice has
 *      `delta: {role: "assistant", content: ""}`, `logprobs: null`, `finish_reason: null` and the
 *      top-level `prompt_token_ids` (null unless requested); then one chunk per engine step per
 *      choice with `delta`, `logprobs` (only that chunk's tokens), `finish_reason`, and `token_ids`
 *      (only that chunk's ids, null unless requested); the last one of a choice adds `finish_reason`
 *      and `stop_reason`. Chunks whose delta parses to nothing are skipped unless token ids / logprobs
 *      are requested or it is the finishing chunk (then `delta: {}`). With include_usage a final
 *      chunk `{..., choices: [], usage}` precedes `[DONE]`. n>1 chunks are interleaved by step.
 *    - tool calls (hermes-style parser): non-streaming `tool_calls: [{id: "chatcmpl-tool-<hex>",
 *      type: "function", function: {name, arguments}}]`, `finish_reason: "tool_calls"`; streaming:
 *      first delta `{tool_calls: [{index, id, type: "function", function: {name}}]}`, later deltas
 *      `{tool_calls: [{index, function: {arguments: "<fragment>"}}]}`.
 *    - reasoning: vLLM renamed `reasoning_content` to `reasoning` (PR #27752, Nov 2025, both
 *      emitted for a while) and removed `reasoning_content` (PR #33402, Jan 2026). Current vLLM
 *      emits only `message.reasoning` / `delta.reasoning`. Option `reasoningField` picks.
 *  - vllm/entrypoints/openai/completion/protocol.py, .../serving.py: `prompt` may be str, list[str],
 *    list[int] or list[list[int]]; `logprobs: int` (top-N; the dict per position holds the sampled
 *    token plus the top N); `max_tokens` default 16; logprobs `{text_offset, token_logprobs, tokens,
 *    top_logprobs: [{token: logprob}]}`; with return_token_ids `prompt_token_ids` and `token_ids`
 *    are PER CHOICE (not top level), in streaming `prompt_token_ids` only on a choice's first chunk.
 *    Streaming chunks carry `{index, text, logprobs, finish_reason, stop_reason, prompt_token_ids,
 *    token_ids}` (nulls included); choice index = prompt_index * n + j.
 *  - errors: since v0.10.1 (PR #22099) `{"error": {"message", "type": "BadRequestError", "param",
 *    "code": 400}}`; before that flat `{"object": "error", "message", "type", "param", "code"}`
 *    (option `errorFormat: "legacy"`). Streaming errors: `data: {"error": {...}}` then [DONE].
 *  - `/v1/models`: `{object: "list", data: [{id, object: "model", created, owned_by: "vllm", root,
 *    parent, max_model_len, permission: [...]}]}`; `/health`: 200 with an empty body.
 *
 * SGLang (github.com/sgl-project/sglang):
 *  - python/sglang/srt/entrypoints/http_server.py: `/generate` streams `data: {json}\n\n` and ends
 *    with `data: [DONE]\n\n`; errors `{"error": {"message"}}` (400); `/health` 200 empty body;
 *    `/get_model_info` `{model_path, tokenizer_path, is_generation}`.
 *  - python/sglang/srt/managers/tokenizer_manager_components/output_processor.py: a result is
 *    `{text, output_ids, meta_info: {id, finish_reason, prompt_tokens, completion_tokens,
 *    cached_tokens, weight_version, ..., e2e_latency (when finished)}}`. Streaming is CUMULATIVE by
 *    default (`text`, `output_ids`, logprob lists hold everything so far); with the server flag
 *    `--incremental-streaming-output` they are deltas (option `sglangIncrementalStreaming`).
 *  - tokenizer_manager.py: batch input (list of texts / list of id lists) or `sampling_params.n > 1`
 *    returns a JSON list (order: prompt-major, then sample); when streaming, each chunk carries an
 *    `index` into that list and chunks of different requests interleave.
 *  - logprobs: `meta_info.output_token_logprobs: [[logprob, token_id, text|null], ...]` (text only
 *    with `return_text_in_logprobs`), `input_token_logprobs` likewise (first logprob null),
 *    `output_top_logprobs`/`input_top_logprobs` with `top_logprobs_num`. `logprob_start_len: -1`
 *    (default) returns only the last prompt position (older schedulers) — newer ones may return none.
 *  - schedule_batch.py finish reasons: `{type: "stop", matched: <eos id | stop string>}`,
 *    `{type: "length", length: N}`, `{type: "abort", message, ...}`.
 *  - sampling_params: max_new_tokens (default 128 here), stop, stop_token_ids, temperature, top_p,
 *    top_k, n, ignore_eos, skip_special_tokens, no_stop_trim.
 *
 * NOT CONFIRMED (choices made here): whether SGLang's `output_ids` includes the EOS id (assumed
 * yes, like vLLM's token_ids); SGLang OpenAI-endpoint error shape (flat `{object: "error", ...}`
 * assumed); SGLang OpenAI endpoints supporting `return_token_ids` (not emitted). Hosted OpenAI shapes
 * follow the public API reference (usage details, `system_fingerprint`, `refusal`, `usage: null` on
 * every chunk when include_usage is set).
 *
 * THE FAKE MODEL
 * --------------
 * The completion text comes from `opts.respond` (default `Echo: <last user text>`); reasoning is
 * rendered as `<think>\n…\n</think>\n\n` and tool calls as hermes `<tool_call>` markup, and the token
 * ids cover that raw text, as a real model's would. Without `opts.tokenizer`, a byte-level tokenizer
 * is used (`byteTokenizer`: id = byte + 3, `<|im_start|>` = 1, `<|im_end|>` = 2 = EOS) and chat
 * prompts are rendered as ChatML, so a multi-turn prompt extends the previous prompt + completion ids.
 * Per-token logprob = `fakeLogprob(id, position, seed)`.
 *
 * THE CODE (fake-upstream/)
 * -------------------------
 * types.ts (options, the scripted model's inputs and outputs, faults) · tokenizer.ts (byte
 * tokenizer, logprobs) · render.ts (ChatML prompts) · engine.ts (generation: raw text, ids, stops,
 * parsing back) · context.ts (per-server state and dialect) · params.ts (shared request fields) ·
 * chat.ts, completions.ts, sglang.ts (one endpoint each, whole and streamed) · admin.ts (health,
 * models, tokenize) · faults.ts · wire.ts (JSON, errors, SSE writing) · server.ts (the HTTP
 * server and dispatch) · ../replay-front.ts (the `replay` option).
 */

import { startGenerator } from "./fake-upstream/server.js";
import type { FakeUpstream, FakeUpstreamOptions } from "./fake-upstream/types.js";
import { startReplayFront } from "./replay-front.js";

export { renderChatML } from "./fake-upstream/render.js";
export {
  byteTokenizer,
  fakeLogprob,
  IM_END_TOKEN_ID,
  IM_START_TOKEN_ID,
  PAD_TOKEN_ID,
} from "./fake-upstream/tokenizer.js";
export type {
  FakeCompletion,
  FakeFault,
  FakeRequestInfo,
  FakeRespond,
  FakeTokenizer,
  FakeToolCall,
  FakeUpstream,
  FakeUpstreamConfig,
  FakeUpstreamKind,
  FakeUpstreamOptions,
  RecordedRequest,
} from "./fake-upstream/types.js";

export async function startFakeUpstream(opts: FakeUpstreamOptions): Promise<FakeUpstream> {
  if (!opts.replay) return startGenerator(opts);
  // The generator listens on a port of its own; the replay front takes the asked-for one.
  const inner = await startGenerator({ ...opts, replay: false, port: 0 });
  return startReplayFront(inner, opts.port ?? 0, opts.host ?? "127.0.0.1");
}
