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
 */

import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { ChatMessage } from "../types/chat.js";
import type {
  FakeCompletion,
  FakeFault,
  FakeRequestInfo,
  FakeRespond,
  FakeTokenizer,
  FakeUpstream,
  FakeUpstreamConfig,
  FakeUpstreamKind,
  FakeUpstreamOptions,
  RecordedRequest,
} from "./fake-upstream/types.js";
import { startReplayFront } from "./replay-front.js";

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

// ---------------------------------------------------------------------------------------------
// Byte-level fallback tokenizer
// ---------------------------------------------------------------------------------------------

const BYTE_OFFSET = 3;
export const PAD_TOKEN_ID = 0;
export const IM_START_TOKEN_ID = 1;
export const IM_END_TOKEN_ID = 2;
const IM_START = "<|im_start|>";
const IM_END = "<|im_end|>";

function specialText(id: number): string {
  if (id === IM_START_TOKEN_ID) return IM_START;
  if (id === IM_END_TOKEN_ID) return IM_END;
  if (id === PAD_TOKEN_ID) return "<pad>";
  return "<unk>";
}

function pushBytes(out: number[], s: string): void {
  const b = Buffer.from(s, "utf8");
  for (let k = 0; k < b.length; k++) out.push(b[k]! + BYTE_OFFSET);
}

function byteEncode(text: string): number[] {
  const out: number[] = [];
  let i = 0;
  while (i < text.length) {
    const j = text.indexOf("<|im_", i);
    const end = j === -1 ? text.length : j;
    if (end > i) pushBytes(out, i === 0 && end === text.length ? text : text.slice(i, end));
    if (j === -1) break;
    if (text.startsWith(IM_START, j)) {
      out.push(IM_START_TOKEN_ID);
      i = j + IM_START.length;
    } else if (text.startsWith(IM_END, j)) {
      out.push(IM_END_TOKEN_ID);
      i = j + IM_END.length;
    } else {
      pushBytes(out, "<|im_");
      i = j + 5;
    }
  }
  return out;
}

function byteDecode(ids: readonly number[], skipSpecial = false): string {
  let s = "";
  let bytes: number[] = [];
  for (const id of ids) {
    if (id >= BYTE_OFFSET && id < 256 + BYTE_OFFSET) {
      bytes.push(id - BYTE_OFFSET);
    } else {
      if (bytes.length > 0) {
        s += Buffer.from(bytes).toString("utf8");
        bytes = [];
      }
      if (!skipSpecial) s += specialText(id);
    }
  }
  if (bytes.length > 0) s += Buffer.from(bytes).toString("utf8");
  return s;
}

/** Count of byteEncode(text) without building it. */
function byteCount(text: string): number {
  let n = Buffer.byteLength(text, "utf8");
  let i = text.indexOf("<|im_");
  while (i !== -1) {
    if (text.startsWith(IM_START, i)) n -= IM_START.length - 1;
    else if (text.startsWith(IM_END, i)) n -= IM_END.length - 1;
    i = text.indexOf("<|im_", i + 5);
  }
  return n;
}

function byteTokenText(id: number): string {
  if (id >= BYTE_OFFSET && id < 256 + BYTE_OFFSET) {
    const b = id - BYTE_OFFSET;
    return b < 0x80
      ? String.fromCharCode(b)
      : `<0x${b.toString(16).toUpperCase().padStart(2, "0")}>`;
  }
  return specialText(id);
}

/**
 * The fallback tokenizer: one token per UTF-8 byte (id = byte + 3), `<|im_start|>` = 1,
 * `<|im_end|>` = 2 (the EOS), 0 = pad.
 */
export const byteTokenizer: FakeTokenizer & {
  readonly eosTokenId: number;
  readonly vocabSize: number;
  tokenText(id: number): string;
} = {
  encode: byteEncode,
  decode: (ids: number[]) => byteDecode(ids),
  eosTokenId: IM_END_TOKEN_ID,
  vocabSize: 256 + BYTE_OFFSET,
  tokenText: byteTokenText,
};

/** The fake model's logprob for token `id` sampled at completion position `pos`. */
export function fakeLogprob(id: number, pos: number, seed = 0): number {
  const s = Math.abs(Math.trunc(seed)) % 97;
  return -(((id * 7 + pos * 13 + s * 31) % 97) / 50) - 0.01;
}

function topAlternative(id: number, rank: number): number {
  return id >= rank ? id - rank : id + rank;
}

// ---------------------------------------------------------------------------------------------
// Rendering
// ---------------------------------------------------------------------------------------------

function contentText(content: unknown): string {
  if (content == null) return "";
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  let s = "";
  for (const p of content) {
    if (p && typeof p === "object" && (p as { type?: unknown }).type === "text") {
      const t = (p as { text?: unknown }).text;
      if (typeof t === "string") s += t;
    }
  }
  return s;
}

function toolCallMarkup(name: string, args: string): string {
  return `<tool_call>\n{"name": ${JSON.stringify(name)}, "arguments": ${args}}\n</tool_call>`;
}

function argsString(a: unknown): string {
  if (typeof a === "string") return a;
  return JSON.stringify(a ?? {});
}

/** ChatML rendering of a conversation (assistant turns rendered exactly as the fake generates them). */
export function renderChatML(messages: readonly ChatMessage[], addGenerationPrompt = true): string {
  let s = "";
  for (const m of messages) {
    let body = contentText(m.content);
    if (m.role === "assistant") {
      const r =
        typeof m.reasoning_content === "string"
          ? m.reasoning_content
          : typeof m.reasoning === "string"
            ? m.reasoning
            : null;
      const calls = Array.isArray(m.tool_calls) ? m.tool_calls : [];
      let tools = "";
      for (let t = 0; t < calls.length; t++) {
        const c = calls[t]!;
        tools +=
          (t > 0 || body ? "\n" : "") +
          toolCallMarkup(c.function?.name ?? "", argsString(c.function?.arguments));
      }
      body = (r != null ? `<think>\n${r}\n</think>\n\n` : "") + body + tools;
    }
    s += `${IM_START}${m.role}\n${body}${IM_END}\n`;
  }
  if (addGenerationPrompt) s += `${IM_START}assistant\n`;
  return s;
}

// ---------------------------------------------------------------------------------------------
// Generation
// ---------------------------------------------------------------------------------------------

type SpanKind = "markup" | "reasoning" | "content" | "toolName" | "toolArgs";
interface Span {
  start: number;
  end: number;
  kind: SpanKind;
  tool: number;
}
interface NormCall {
  name: string;
  args: string;
  id: string;
  end: number;
}

interface GenParams {
  maxTokens: number;
  stops: string[];
  stopIds: number[] | null;
  includeStop: boolean;
  ignoreEos: boolean;
  seed: number;
}

interface Gen {
  raw: string;
  spans: Span[];
  calls: NormCall[];
  hasReasoning: boolean;
  /** Output ids (EOS / stop token included). */
  ids: number[];
  /** Visible text length: the output text is raw.slice(0, L). */
  L: number;
  /** Per token: end offset of its visible text in raw (null until needed). */
  ends: number[] | null;
  /** How many leading ids encode raw text (the rest: an appended EOS). */
  nText: number;
  finish: "stop" | "length";
  stopReason: string | number | null;
  matched: string | number | null;
  seed: number;
}

class Engine {
  readonly eosId: number | undefined;
  constructor(
    readonly tokenizer: FakeTokenizer | undefined,
    eosTokenId: number | undefined,
  ) {
    this.eosId = eosTokenId ?? (tokenizer ? undefined : IM_END_TOKEN_ID);
  }

  encode(text: string): number[] {
    return this.tokenizer ? this.tokenizer.encode(text) : byteEncode(text);
  }
  decode(ids: number[]): string {
    return this.tokenizer ? this.tokenizer.decode(ids) : byteDecode(ids);
  }
  count(text: string): number {
    return this.tokenizer ? this.tokenizer.encode(text).length : byteCount(text);
  }
  tokenText(id: number): string {
    if (!this.tokenizer) return byteTokenText(id);
    try {
      return this.tokenizer.decode([id]);
    } catch {
      return "";
    }
  }

  /** Token ids of raw, plus per-token visible end offsets (byte path: both at once). */
  private encodeRaw(raw: string): { ids: number[]; ends: number[] | null } {
    if (this.tokenizer) return { ids: this.tokenizer.encode(raw), ends: null };
    const ids: number[] = [];
    const ends: number[] = [];
    let i = 0;
    while (i < raw.length) {
      const c = raw.charCodeAt(i);
      if (c < 0x80) {
        if (c === 60 && raw.startsWith("<|im_", i)) {
          if (raw.startsWith(IM_START, i)) {
            ids.push(IM_START_TOKEN_ID);
            i += IM_START.length;
            ends.push(i);
            continue;
          }
          if (raw.startsWith(IM_END, i)) {
            ids.push(IM_END_TOKEN_ID);
            i += IM_END.length;
            ends.push(i);
            continue;
          }
        }
        ids.push(c + BYTE_OFFSET);
        i++;
        ends.push(i);
        continue;
      }
      let cp = raw.codePointAt(i)!;
      const units = cp > 0xffff ? 2 : 1;
      if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;
      const start = i;
      i += units;
      let bytes: number[];
      if (cp < 0x800) bytes = [0xc0 | (cp >> 6), 0x80 | (cp & 63)];
      else if (cp < 0x10000) bytes = [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63)];
      else
        bytes = [
          0xf0 | (cp >> 18),
          0x80 | ((cp >> 12) & 63),
          0x80 | ((cp >> 6) & 63),
          0x80 | (cp & 63),
        ];
      for (let k = 0; k < bytes.length; k++) {
        ids.push(bytes[k]! + BYTE_OFFSET);
        ends.push(k === bytes.length - 1 ? i : start);
      }
    }
    return { ids, ends };
  }

  private computeEnds(raw: string, ids: number[]): number[] {
    const tok = this.tokenizer!;
    const ends: number[] = [];
    let prev = 0;
    for (let i = 0; i < ids.length; i++) {
      let d = "";
      try {
        d = tok.decode(ids.slice(0, i + 1));
      } catch {
        d = "";
      }
      if (!d.endsWith("\uFFFD")) prev = Math.min(Math.max(prev, d.length), raw.length);
      ends.push(prev);
    }
    if (ends.length > 0) ends[ends.length - 1] = Math.max(ends[ends.length - 1]!, raw.length);
    return ends;
  }

  ensureEnds(g: Gen): number[] {
    if (g.ends) return g.ends;
    const ends = this.computeEnds(g.raw, g.ids.slice(0, g.nText));
    for (let i = 0; i < ends.length; i++) if (ends[i]! > g.L) ends[i] = g.L;
    for (let i = ends.length; i < g.ids.length; i++) ends.push(g.L);
    g.ends = ends;
    return ends;
  }

  generate(
    result: string | FakeCompletion,
    p: GenParams,
    appendEos: boolean,
    toolIdFor: (i: number) => string,
  ): Gen {
    const r: FakeCompletion = typeof result === "string" ? { text: result } : result;
    const text = r.text ?? "";
    // Raw text with spans.
    let raw = "";
    const spans: Span[] = [];
    const push = (s: string, kind: SpanKind, tool = -1) => {
      if (!s) return;
      spans.push({ start: raw.length, end: raw.length + s.length, kind, tool });
      raw += s;
    };
    const hasReasoning = typeof r.reasoning === "string";
    if (hasReasoning) {
      push("<think>\n", "markup");
      push(r.reasoning!, "reasoning");
      push("\n</think>\n\n", "markup");
    }
    push(text, "content");
    const calls: NormCall[] = [];
    const tc = r.toolCalls ?? [];
    for (let t = 0; t < tc.length; t++) {
      const c = tc[t]!;
      const args = argsString(c.arguments);
      push(`${t > 0 || text ? "\n" : ""}<tool_call>\n{"name": "`, "markup", t);
      push(JSON.stringify(c.name).slice(1, -1), "toolName", t);
      push('", "arguments": ', "markup", t);
      push(args, "toolArgs", t);
      push("}\n</tool_call>", "markup", t);
      calls.push({ name: c.name, args, id: c.id ?? toolIdFor(t), end: raw.length });
    }

    const enc = this.encodeRaw(raw);
    let ids = enc.ids;
    const g: Gen = {
      raw,
      spans,
      calls,
      hasReasoning,
      ids,
      L: raw.length,
      ends: enc.ends,
      nText: ids.length,
      finish: "stop",
      stopReason: null,
      matched: null,
      seed: p.seed,
    };
    const max = p.maxTokens;
    let n = ids.length;
    let stopped = false;
    if (p.stops.length > 0 || (p.stopIds && p.stopIds.length > 0)) {
      const ends = this.ensureEnds(g);
      let maxStop = 0;
      for (const s of p.stops) maxStop = Math.max(maxStop, s.length);
      let prevEnd = 0;
      const lim = Math.min(n, max);
      for (let i = 0; i < lim; i++) {
        if (p.stopIds?.includes(ids[i]!)) {
          n = i + 1;
          g.L = i > 0 ? ends[i - 1]! : 0;
          g.stopReason = ids[i]!;
          g.matched = ids[i]!;
          stopped = true;
          break;
        }
        const e = ends[i]!;
        if (p.stops.length > 0 && e > prevEnd) {
          const from = Math.max(0, prevEnd - maxStop + 1);
          const window = raw.slice(from, e);
          let best = -1;
          let bestStop = "";
          for (const s of p.stops) {
            if (!s) continue;
            const k = window.indexOf(s);
            if (k !== -1 && (best === -1 || k < best)) {
              best = k;
              bestStop = s;
            }
          }
          if (best !== -1) {
            n = i + 1;
            const abs = from + best;
            g.L = p.includeStop ? abs + bestStop.length : abs;
            g.stopReason = bestStop;
            g.matched = bestStop;
            stopped = true;
            break;
          }
        }
        prevEnd = e;
      }
      if (stopped) {
        ids = ids.slice(0, n);
        const cut = ends.slice(0, n);
        for (let i = 0; i < cut.length; i++) if (cut[i]! > g.L) cut[i] = g.L;
        g.ends = cut;
        g.ids = ids;
        g.nText = n;
      }
    }
    if (!stopped) {
      if (n > max) {
        const ends = this.ensureEnds(g);
        g.ids = ids.slice(0, max);
        g.ends = ends.slice(0, max);
        g.nText = max;
        g.L = max > 0 ? g.ends[max - 1]! : 0;
        g.finish = "length";
      } else if (r.finishReason === "length" || p.ignoreEos) {
        g.finish = "length";
      } else if (appendEos && this.eosId !== undefined) {
        if (n < max) {
          // ids and ends are fresh arrays from encodeRaw.
          g.ids.push(this.eosId);
          if (g.ends) g.ends.push(g.L);
          g.matched = this.eosId;
        } else {
          g.finish = "length";
        }
      }
    }
    return g;
  }

  logprob(g: Gen, i: number): number {
    return fakeLogprob(g.ids[i]!, i, g.seed);
  }
}

/** The parsed message of a finished generation (vLLM-style parsers). */
function parseMessage(
  g: Gen,
  parseTools: boolean,
): { reasoning: string | null; content: string; calls: NormCall[] } {
  const L = g.L;
  let reasoning: string | null = null;
  let content = "";
  const calls: NormCall[] = [];
  let partialToolFrom = -1;
  for (const s of g.spans) {
    if (s.start >= L) break;
    const end = Math.min(s.end, L);
    if (s.kind === "reasoning") reasoning = (reasoning ?? "") + g.raw.slice(s.start, end);
    else if (s.kind === "content") content += g.raw.slice(s.start, end);
    else if (s.tool >= 0 && !parseTools) content += g.raw.slice(s.start, end);
  }
  if (g.hasReasoning && reasoning === null && L > 0) reasoning = "";
  if (parseTools) {
    for (const c of g.calls) {
      if (c.end <= L) calls.push(c);
      else {
        partialToolFrom = g.spans.find((s) => s.tool === calls.length)?.start ?? -1;
        break;
      }
    }
    if (partialToolFrom !== -1 && partialToolFrom < L) content += g.raw.slice(partialToolFrom, L);
  }
  return { reasoning, content, calls };
}

/** A prompt's text and its token ids, encoded on first use. */
class LazyPrompt {
  constructor(
    private readonly engine: Engine,
    readonly text: string,
    private ids: number[] | undefined,
  ) {}
  get promptIds(): number[] {
    if (!this.ids) this.ids = this.engine.encode(this.text);
    return this.ids;
  }
}

class RequestInfo implements FakeRequestInfo {
  readonly promptText: string;
  constructor(
    readonly kind: FakeUpstreamKind,
    readonly endpoint: FakeRequestInfo["endpoint"],
    readonly messages: ChatMessage[] | undefined,
    readonly tools: unknown[] | undefined,
    private readonly prompt: LazyPrompt,
    readonly params: Record<string, unknown>,
    readonly choiceIndex: number,
    readonly promptIndex: number,
  ) {
    this.promptText = prompt.text;
  }
  get promptIds(): number[] {
    return this.prompt.promptIds;
  }
}

// ---------------------------------------------------------------------------------------------
// Server
// ---------------------------------------------------------------------------------------------

type Json = Record<string, unknown>;

function isObj(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function intParam(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? Math.trunc(v) : undefined;
}

class BadRequest extends Error {
  constructor(
    message: string,
    readonly status = 400,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
};
const DONE = "data: [DONE]\n\n";
const GEN_PATHS = new Set(["/v1/chat/completions", "/v1/completions", "/generate"]);

function utf8Bytes(s: string): number[] {
  return Array.from(Buffer.from(s, "utf8"));
}

/**
 * Walks several token streams in engine-step order (one step of each in turn, as vLLM and SGLang
 * interleave n>1 / batch outputs), `per` tokens a step. An empty stream still gets one (final) step.
 */
function interleave(
  totals: readonly number[],
  per: number,
  cb: (idx: number, from: number, to: number, last: boolean) => void,
): void {
  const cursors = totals.map(() => 0);
  const done = totals.map(() => false);
  let active = true;
  while (active) {
    active = false;
    for (let i = 0; i < totals.length; i++) {
      if (done[i]) continue;
      active = true;
      const from = cursors[i]!;
      const to = Math.min(totals[i]!, from + per);
      cursors[i] = to;
      const last = to >= totals[i]!;
      if (last) done[i] = true;
      cb(i, from, to, last);
    }
  }
}

/** [start, end) of the visible text of tokens [from, to). */
function textRange(g: Gen, ends: readonly number[], from: number, to: number): [number, number] {
  const a = from > 0 ? Math.min(ends[from - 1]!, g.L) : 0;
  const b = to > 0 ? Math.min(ends[to - 1]!, g.L) : 0;
  return [a, Math.max(a, b)];
}

interface Dialect {
  tokenIds: boolean;
  reasoning: "reasoning" | "reasoning_content" | "both";
  openaiExtras: boolean;
  appendEos: boolean;
  matchedStop: boolean;
}

export async function startFakeUpstream(opts: FakeUpstreamOptions): Promise<FakeUpstream> {
  if (opts.replay) {
    // The generator listens on a port of its own; the replay front takes the asked-for one.
    const inner = await startFakeUpstream({ ...opts, replay: false, port: 0 });
    return startReplayFront(inner, opts.port ?? 0, opts.host ?? "127.0.0.1");
  }
  const kind = opts.kind;
  const model = opts.model ?? "fake-model";
  const engine = new Engine(opts.tokenizer, opts.eosTokenId);
  const respond: FakeRespond = opts.respond ?? defaultRespond;
  const record = opts.record ?? true;
  const maxRecorded = Math.max(1, opts.maxRecorded ?? 1000);
  const maxModelLen = opts.maxModelLen ?? 32768;
  const defaultSeed = opts.seed ?? 0;
  const dialect: Dialect = {
    tokenIds: kind === "vllm",
    reasoning: opts.reasoningField ?? (kind === "vllm" ? "reasoning" : "reasoning_content"),
    openaiExtras: kind === "openai",
    appendEos: kind !== "openai",
    matchedStop: kind === "sglang",
  };
  const config: FakeUpstreamConfig = {
    latencyMs: opts.latencyMs ?? 0,
    tokenDelayMs: opts.tokenDelayMs ?? 0,
    tokensPerChunk: Math.max(1, opts.tokensPerChunk ?? 1),
    weightVersion: opts.weightVersion ?? "default",
    healthy: true,
  };
  const requests: RecordedRequest[] = [];
  const faults: FakeFault[] = [];
  const pending = new Set<http.ServerResponse>();
  let inFlight = 0;
  let totalRequests = 0;
  let seq = 0;
  const idBase = randomBytes(4).toString("hex");
  let createdCache = 0;
  let createdAt = 0;
  const created = () => {
    const now = Date.now();
    if (now - createdAt >= 1000) {
      createdAt = now;
      createdCache = Math.floor(now / 1000);
    }
    return createdCache;
  };
  const nextHex = (len: number) => idBase + (++seq).toString(16).padStart(len - idBase.length, "0");

  // ---------------------------------------------------------------- errors
  const errorBody = (status: number, message: string, endpoint: string, param: string | null) => {
    const type =
      status === 404
        ? "NotFoundError"
        : status >= 500
          ? "InternalServerError"
          : status === 429
            ? "TooManyRequestsError"
            : "BadRequestError";
    if (kind === "openai")
      return {
        error: {
          message,
          type: status >= 500 ? "server_error" : "invalid_request_error",
          param,
          code: null,
        },
      };
    if (kind === "sglang") {
      if (endpoint === "/generate") return { error: { message } };
      return { object: "error", message, type, param, code: status };
    }
    if (opts.errorFormat === "legacy")
      return { object: "error", message, type, param, code: status };
    return { error: { message, type, param, code: status } };
  };

  const sendJson = (
    res: http.ServerResponse,
    status: number,
    obj: unknown,
    headers?: Record<string, string>,
  ) => {
    if (res.destroyed) return;
    const body = JSON.stringify(obj);
    const h: http.OutgoingHttpHeaders = {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
    };
    if (headers) Object.assign(h, headers);
    res.writeHead(status, h);
    res.end(body);
  };

  // ---------------------------------------------------------------- streaming
  const writeStream = (res: http.ServerResponse, chunks: string[], destroyAfter: number) => {
    if (res.destroyed) return;
    res.writeHead(200, SSE_HEADERS);
    let i = 0;
    const step = () => {
      while (!res.destroyed) {
        if (i === destroyAfter) {
          if (i === 0) res.flushHeaders();
          setImmediate(() => res.socket?.destroy());
          return;
        }
        if (i >= chunks.length) {
          res.end();
          return;
        }
        const last = i + 1 === destroyAfter;
        if (last) {
          res.write(chunks[i++]!, () => setImmediate(() => res.socket?.destroy()));
          return;
        }
        res.write(chunks[i++]!);
        if (config.tokenDelayMs > 0) {
          setTimeout(step, config.tokenDelayMs);
          return;
        }
      }
    };
    step();
  };

  // ---------------------------------------------------------------- common params
  const readStops = (v: unknown): string[] => {
    if (typeof v === "string") return v ? [v] : [];
    if (Array.isArray(v))
      return v.filter((s): s is string => typeof s === "string" && s.length > 0);
    return [];
  };
  const readStopIds = (v: unknown): number[] | null =>
    Array.isArray(v) && v.length > 0 ? v.filter((x): x is number => typeof x === "number") : null;
  const positiveInt = (v: unknown, name: string): number | undefined => {
    if (v === undefined || v === null) return undefined;
    const n = intParam(v);
    if (n === undefined || n < 1)
      throw new BadRequest(`${name} must be at least 1, got ${String(v)}.`, 400, name);
    return n;
  };
  const seedOf = (v: unknown) => intParam(v) ?? defaultSeed;
  /** `stream` and `n` of a chat or completions request, refused where vLLM (or OpenAI) refuses. */
  const readStreamAndN = (body: Json) => {
    const stream = body.stream === true;
    if (body.stream_options != null && !stream)
      throw new BadRequest(
        "Stream options can only be defined when `stream=True`.",
        400,
        "stream_options",
      );
    if (kind === "openai" && opts.rejectUnknownParams && body.return_token_ids !== undefined)
      throw new BadRequest(
        "Unrecognized request argument supplied: return_token_ids",
        400,
        "return_token_ids",
      );
    const n = positiveInt(body.n, "n") ?? 1;
    const includeUsage =
      stream && isObj(body.stream_options) && body.stream_options.include_usage === true;
    return { stream, includeUsage, n };
  };
  /** Sampling of a chat or completions request; the endpoints differ only in the token limit. */
  const openaiGenParams = (body: Json, maxTokens: number): GenParams => ({
    maxTokens,
    stops: readStops(body.stop),
    stopIds: readStopIds(body.stop_token_ids),
    includeStop: body.include_stop_str_in_output === true,
    ignoreEos: body.ignore_eos === true,
    seed: seedOf(body.seed),
  });

  const makeInfo = (
    endpoint: FakeRequestInfo["endpoint"],
    base: { messages?: ChatMessage[]; tools?: unknown[]; promptText: string; promptIds?: number[] },
    params: Json,
    promptIndex: number,
  ): ((choiceIndex: number) => FakeRequestInfo) => {
    const prompt = new LazyPrompt(engine, base.promptText, base.promptIds);
    return (choiceIndex: number) =>
      new RequestInfo(
        kind,
        endpoint,
        base.messages,
        base.tools,
        prompt,
        params,
        choiceIndex,
        promptIndex,
      );
  };

  const setReasoning = (target: Json, v: string | null) => {
    if (dialect.reasoning === "reasoning_content") target.reasoning_content = v;
    else {
      target.reasoning = v;
      if (dialect.reasoning === "both") target.reasoning_content = v;
    }
  };

  // ---------------------------------------------------------------- chat completions
  const topChat = (id: number, lp: number, k: number) => {
    const out: { token: string; logprob: number; bytes: number[] }[] = [];
    for (let r = 0; r < k; r++) {
      const alt = r === 0 ? id : topAlternative(id, r);
      const t = engine.tokenText(alt);
      out.push({ token: t, logprob: r === 0 ? lp : lp - r * 0.75, bytes: utf8Bytes(t) });
    }
    return out;
  };
  const chatLogprobs = (g: Gen, from: number, to: number, k: number) => {
    const content: Json[] = [];
    for (let i = from; i < to; i++) {
      const id = g.ids[i]!;
      const lp = engine.logprob(g, i);
      const t = engine.tokenText(id);
      content.push({
        token: t,
        logprob: lp,
        bytes: utf8Bytes(t),
        top_logprobs: topChat(id, lp, k),
      });
    }
    return dialect.openaiExtras ? { content, refusal: null } : { content };
  };

  const usageOf = (prompt: number, completion: number): Json => {
    const u: Json = {
      prompt_tokens: prompt,
      total_tokens: prompt + completion,
      completion_tokens: completion,
    };
    if (dialect.openaiExtras) {
      u.prompt_tokens_details = { cached_tokens: 0, audio_tokens: 0 };
      u.completion_tokens_details = {
        reasoning_tokens: 0,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      };
    }
    return u;
  };

  const handleChat = (body: Json, res: http.ServerResponse, destroyAfter: number) => {
    const messages = body.messages;
    if (!Array.isArray(messages) || messages.length === 0)
      throw new BadRequest("messages must be a non-empty list of messages.", 400, "messages");
    for (const m of messages)
      if (!isObj(m) || typeof m.role !== "string")
        throw new BadRequest("each message must be an object with a role.", 400, "messages");
    const { stream, includeUsage, n } = readStreamAndN(body);
    const maxTokens =
      positiveInt(body.max_completion_tokens, "max_completion_tokens") ??
      positiveInt(body.max_tokens, "max_tokens") ??
      Number.POSITIVE_INFINITY;
    const wantLogprobs = body.logprobs === true;
    const topK = wantLogprobs ? Math.max(0, intParam(body.top_logprobs) ?? 0) : 0;
    const wantIds = dialect.tokenIds && body.return_token_ids === true;
    const tools = Array.isArray(body.tools) ? body.tools : undefined;
    const parseTools = !!tools && tools.length > 0 && body.tool_choice !== "none";
    const p = openaiGenParams(body, maxTokens);
    const promptText = renderChatML(
      messages as ChatMessage[],
      body.add_generation_prompt !== false,
    );
    const info = makeInfo(
      "chat",
      { messages: messages as ChatMessage[], tools, promptText },
      body,
      0,
    );
    const reqHex = nextHex(32);
    const id = `chatcmpl-${reqHex}`;
    const hex2 = (x: number) => (x & 255).toString(16).padStart(2, "0");
    const toolId =
      kind === "vllm"
        ? (c: number, t: number) => `chatcmpl-tool-${reqHex.slice(0, 28)}${hex2(c)}${hex2(t)}`
        : (c: number, t: number) => `call_${reqHex.slice(-20)}${hex2(c)}${hex2(t)}`;
    const gens: Gen[] = [];
    let completionTokens = 0;
    for (let c = 0; c < n; c++) {
      const g = engine.generate(respond(info(c)), p, dialect.appendEos, (t) => toolId(c, t));
      gens.push(g);
      completionTokens += g.ids.length;
    }
    const promptCount = () => (wantIds ? info(0).promptIds.length : engine.count(promptText));
    const ts = created();

    if (!stream) {
      const choices: Json[] = [];
      for (let c = 0; c < n; c++) {
        const g = gens[c]!;
        const m = parseMessage(g, parseTools);
        const toolsOut = m.calls.map((tc) => ({
          id: tc.id,
          type: "function",
          function: { name: tc.name, arguments: tc.args },
        }));
        const message: Json = {
          role: "assistant",
          content: toolsOut.length > 0 && !m.content ? null : m.content,
        };
        if (kind === "openai") {
          message.refusal = null;
          message.annotations = [];
          if (g.hasReasoning) setReasoning(message, m.reasoning);
        } else {
          setReasoning(message, m.reasoning);
        }
        if (toolsOut.length > 0) message.tool_calls = toolsOut;
        const finish = toolsOut.length > 0 && g.finish === "stop" ? "tool_calls" : g.finish;
        const choice: Json = {
          index: c,
          message,
          logprobs: wantLogprobs ? chatLogprobs(g, 0, g.ids.length, topK) : null,
          finish_reason: finish,
        };
        if (kind === "vllm") {
          choice.stop_reason = g.stopReason;
          choice.token_ids = wantIds ? g.ids : null;
        } else if (dialect.matchedStop) {
          choice.matched_stop = g.matched;
        }
        choices.push(choice);
      }
      const out: Json = {
        id,
        object: "chat.completion",
        created: ts,
        model,
        choices,
        usage: usageOf(promptCount(), completionTokens),
      };
      if (kind === "vllm") {
        out.system_fingerprint = null;
        out.prompt_logprobs = null;
        out.prompt_token_ids = wantIds ? info(0).promptIds : null;
        out.kv_transfer_params = null;
      } else if (kind === "openai") {
        out.service_tier = "default";
        out.system_fingerprint = "fp_fake";
      }
      sendJson(res, 200, out);
      return;
    }

    // Streaming.
    const chunks: string[] = [];
    const head = `{"id":"${id}","object":"chat.completion.chunk","created":${ts},"model":${JSON.stringify(model)}`;
    const extras =
      kind === "openai" ? ',"service_tier":"default","system_fingerprint":"fp_fake"' : "";
    const usageNull = kind === "openai" && includeUsage ? ',"usage":null' : "";
    const emit = (choice: Json, tail = "") =>
      chunks.push(
        `data: ${head}${extras},"choices":[${JSON.stringify(choice)}]${usageNull}${tail}}\n\n`,
      );
    const promptIdsJson = wantIds ? JSON.stringify(info(0).promptIds) : "null";
    for (let c = 0; c < n; c++) {
      const delta: Json = { role: "assistant", content: "" };
      if (kind === "openai") delta.refusal = null;
      emit(
        { index: c, delta, logprobs: null, finish_reason: null },
        kind === "vllm" ? `,"prompt_token_ids":${promptIdsJson}` : "",
      );
    }
    const toolStarted = gens.map(() => new Set<number>());
    const streamedTools = gens.map(() => false);
    interleave(
      gens.map((g) => g.ids.length),
      config.tokensPerChunk,
      (c, from, to, last) => {
        const g = gens[c]!;
        const [a, b] = textRange(g, engine.ensureEnds(g), from, to);
        const delta: Json = {};
        if (!g.hasReasoning && !(parseTools && g.calls.length > 0)) {
          // No parser involved: every step is a content delta (possibly "").
          delta.content = g.raw.slice(a, b);
        } else if (b > a) {
          let reasoning = "";
          let content = "";
          const toolDeltas = new Map<number, Json>();
          for (const sp of g.spans) {
            if (sp.end <= a) continue;
            if (sp.start >= b) break;
            const piece = g.raw.slice(Math.max(a, sp.start), Math.min(b, sp.end));
            if (sp.kind === "reasoning") reasoning += piece;
            else if (sp.kind === "content" || (sp.tool >= 0 && !parseTools)) content += piece;
            else if (sp.kind === "toolName" && b >= sp.end && !toolStarted[c]!.has(sp.tool)) {
              // The parser announces a call once its name is complete.
              toolStarted[c]!.add(sp.tool);
              const call = g.calls[sp.tool]!;
              toolDeltas.set(sp.tool, {
                index: sp.tool,
                id: call.id,
                type: "function",
                function:
                  kind === "openai" ? { name: call.name, arguments: "" } : { name: call.name },
              });
            } else if (sp.kind === "toolArgs" && toolStarted[c]!.has(sp.tool)) {
              const d = toolDeltas.get(sp.tool);
              if (d) {
                const f = d.function as Json;
                f.arguments = ((f.arguments as string | undefined) ?? "") + piece;
              } else toolDeltas.set(sp.tool, { index: sp.tool, function: { arguments: piece } });
            }
          }
          if (reasoning) setReasoning(delta, reasoning);
          if (content) delta.content = content;
          if (toolDeltas.size > 0) {
            delta.tool_calls = [...toolDeltas.values()];
            streamedTools[c] = true;
          }
        }
        // vLLM skips a step whose delta parsed to nothing unless ids/logprobs must go out.
        if (!last && !wantIds && !wantLogprobs && Object.keys(delta).length === 0) return;
        const choice: Json = {
          index: c,
          delta,
          logprobs: wantLogprobs ? chatLogprobs(g, from, to, topK) : null,
          finish_reason: last
            ? streamedTools[c] && g.finish === "stop"
              ? "tool_calls"
              : g.finish
            : null,
        };
        if (kind === "vllm") {
          if (last) choice.stop_reason = g.stopReason;
          choice.token_ids = wantIds ? g.ids.slice(from, to) : null;
        } else if (dialect.matchedStop && last) {
          choice.matched_stop = g.matched;
        }
        emit(choice);
      },
    );
    if (includeUsage) {
      chunks.push(
        `data: ${head}${extras},"choices":[],"usage":${JSON.stringify(usageOf(promptCount(), completionTokens))}}\n\n`,
      );
    }
    chunks.push(DONE);
    writeStream(res, chunks, destroyAfter);
  };

  // ---------------------------------------------------------------- completions
  const completionLogprobs = (g: Gen, from: number, to: number, k: number, offset0: number) => {
    const tokens: string[] = [];
    const tokenLogprobs: number[] = [];
    const top: Record<string, number>[] = [];
    const textOffset: number[] = [];
    let off = offset0;
    for (let i = from; i < to; i++) {
      const id = g.ids[i]!;
      const lp = engine.logprob(g, i);
      const t = engine.tokenText(id);
      tokens.push(t);
      tokenLogprobs.push(lp);
      const d: Record<string, number> = {};
      const cnt = Math.max(1, k);
      for (let r = 0; r < cnt; r++) {
        const alt = r === 0 ? id : topAlternative(id, r);
        const at = engine.tokenText(alt);
        if (!(at in d)) d[at] = r === 0 ? lp : lp - r * 0.75;
      }
      top.push(d);
      textOffset.push(off);
      off += t.length;
    }
    return { text_offset: textOffset, token_logprobs: tokenLogprobs, tokens, top_logprobs: top };
  };

  const readPrompts = (prompt: unknown): { text: string; ids?: number[] }[] => {
    if (typeof prompt === "string") {
      if (!prompt)
        throw new BadRequest(
          "Either prompt or prompt_embeds must be provided and non-empty.",
          400,
          "prompt",
        );
      return [{ text: prompt }];
    }
    if (Array.isArray(prompt) && prompt.length > 0) {
      if (prompt.every((x) => typeof x === "number"))
        return [{ text: engine.decode(prompt as number[]), ids: prompt as number[] }];
      if (prompt.every((x) => typeof x === "string"))
        return (prompt as string[]).map((t) => ({ text: t }));
      if (
        prompt.every(
          (x) => Array.isArray(x) && x.length > 0 && x.every((y) => typeof y === "number"),
        )
      )
        return (prompt as number[][]).map((ids) => ({ text: engine.decode(ids), ids }));
    }
    throw new BadRequest(
      "Either prompt or prompt_embeds must be provided and non-empty.",
      400,
      "prompt",
    );
  };

  const handleCompletions = (body: Json, res: http.ServerResponse, destroyAfter: number) => {
    const prompts = readPrompts(body.prompt);
    const { stream, includeUsage, n } = readStreamAndN(body);
    const maxTokens = positiveInt(body.max_tokens, "max_tokens") ?? 16;
    const lpParam = intParam(body.logprobs);
    const wantLogprobs = lpParam !== undefined && body.logprobs !== null;
    const topK = wantLogprobs ? Math.max(0, lpParam!) : 0;
    const wantIds = dialect.tokenIds && body.return_token_ids === true;
    const p = openaiGenParams(body, maxTokens);
    const id = `cmpl-${nextHex(32)}`;
    const ts = created();
    const gens: Gen[] = [];
    const promptIdLists: number[][] = [];
    let promptTokens = 0;
    let completionTokens = 0;
    for (let pi = 0; pi < prompts.length; pi++) {
      const pr = prompts[pi]!;
      const info = makeInfo(
        "completions",
        { promptText: pr.text, ...(pr.ids ? { promptIds: pr.ids } : {}) },
        body,
        pi,
      );
      const pids = wantIds || pr.ids ? info(0).promptIds : null;
      promptIdLists.push(pids ?? []);
      promptTokens += pids ? pids.length : engine.count(pr.text);
      for (let c = 0; c < n; c++) {
        const g = engine.generate(respond(info(c)), p, dialect.appendEos, () => "");
        gens.push(g);
        completionTokens += g.ids.length;
      }
    }
    if (!stream) {
      const choices: Json[] = gens.map((g, idx) => {
        const choice: Json = {
          index: idx,
          text: g.raw.slice(0, g.L),
          logprobs: wantLogprobs ? completionLogprobs(g, 0, g.ids.length, topK, 0) : null,
          finish_reason: g.finish,
        };
        if (kind === "vllm") {
          choice.stop_reason = g.stopReason;
          choice.token_ids = wantIds ? g.ids : null;
          choice.prompt_logprobs = null;
          choice.prompt_token_ids = wantIds ? promptIdLists[Math.floor(idx / n)]! : null;
        } else if (dialect.matchedStop) choice.matched_stop = g.matched;
        return choice;
      });
      const out: Json = {
        id,
        object: "text_completion",
        created: ts,
        model,
        choices,
        usage: usageOf(promptTokens, completionTokens),
      };
      if (kind === "vllm") {
        out.system_fingerprint = null;
        out.kv_transfer_params = null;
      } else if (kind === "openai") out.system_fingerprint = "fp_fake";
      sendJson(res, 200, out);
      return;
    }
    const chunks: string[] = [];
    const head = `{"id":"${id}","object":"text_completion","created":${ts},"model":${JSON.stringify(model)}`;
    const textOffsets = gens.map(() => 0);
    interleave(
      gens.map((g) => g.ids.length),
      config.tokensPerChunk,
      (idx, from, to, last) => {
        const g = gens[idx]!;
        const [a, b] = textRange(g, engine.ensureEnds(g), from, to);
        const lp = wantLogprobs ? completionLogprobs(g, from, to, topK, textOffsets[idx]!) : null;
        if (lp) for (const t of lp.tokens) textOffsets[idx]! += t.length;
        const choice: Json = {
          index: idx,
          text: g.raw.slice(a, b),
          logprobs: lp,
          finish_reason: last ? g.finish : null,
        };
        if (kind === "vllm") {
          choice.stop_reason = last ? g.stopReason : null;
          choice.prompt_token_ids =
            wantIds && from === 0 ? promptIdLists[Math.floor(idx / n)]! : null;
          choice.token_ids = wantIds ? g.ids.slice(from, to) : null;
        } else if (dialect.matchedStop && last) choice.matched_stop = g.matched;
        chunks.push(`data: ${head},"choices":[${JSON.stringify(choice)}]}\n\n`);
      },
    );
    if (includeUsage)
      chunks.push(
        `data: ${head},"choices":[],"usage":${JSON.stringify(usageOf(promptTokens, completionTokens))}}\n\n`,
      );
    chunks.push(DONE);
    writeStream(res, chunks, destroyAfter);
  };

  // ---------------------------------------------------------------- sglang /generate
  const sgLogprobTriples = (ids: number[], lps: (number | null)[], withText: boolean) =>
    ids.map((id, i) => [lps[i] ?? null, id, withText ? engine.tokenText(id) : null]);
  const sgTop = (id: number, lp: number, k: number, withText: boolean) => {
    const out: unknown[] = [];
    for (let r = 0; r < k; r++) {
      const alt = r === 0 ? id : topAlternative(id, r);
      out.push([r === 0 ? lp : lp - r * 0.75, alt, withText ? engine.tokenText(alt) : null]);
    }
    return out;
  };

  const handleGenerate = (body: Json, res: http.ServerResponse, destroyAfter: number) => {
    let prompts: { text: string; ids?: number[] }[];
    let single = true;
    if (body.input_ids !== undefined && body.input_ids !== null) {
      const v = body.input_ids;
      if (Array.isArray(v) && v.length > 0 && Array.isArray(v[0])) {
        single = false;
        prompts = (v as number[][]).map((ids) => ({ text: engine.decode(ids), ids }));
      } else if (Array.isArray(v) && v.every((x) => typeof x === "number")) {
        prompts = [{ text: engine.decode(v as number[]), ids: v as number[] }];
      } else throw new BadRequest("input_ids must be a list of token ids or a list of such lists.");
    } else if (body.text !== undefined && body.text !== null) {
      const v = body.text;
      if (typeof v === "string") prompts = [{ text: v }];
      else if (Array.isArray(v) && v.every((x) => typeof x === "string")) {
        single = false;
        prompts = (v as string[]).map((t) => ({ text: t }));
      } else throw new BadRequest("text must be a string or a list of strings.");
    } else {
      throw new BadRequest("Either text, input_ids or input_embeds should be provided.");
    }
    const spAll = body.sampling_params;
    const spFor = (i: number): Json => {
      if (Array.isArray(spAll)) return isObj(spAll[i]) ? (spAll[i] as Json) : {};
      return isObj(spAll) ? spAll : {};
    };
    const sp0 = spFor(0);
    const n = Math.max(1, intParam(sp0.n) ?? 1);
    if (n > 1) single = false;
    const stream = body.stream === true;
    const returnLogprob = body.return_logprob === true;
    const topN = Math.max(0, intParam(body.top_logprobs_num) ?? 0);
    const withText = body.return_text_in_logprobs === true;
    const logprobStart = intParam(body.logprob_start_len) ?? -1;
    const incremental = opts.sglangIncrementalStreaming === true;
    const results: {
      g: Gen;
      rid: string;
      promptIds: number[];
      inputLogprobs: unknown[] | null;
      inputTop: unknown[] | null;
    }[] = [];
    for (let pi = 0; pi < prompts.length; pi++) {
      const pr = prompts[pi]!;
      const sp = spFor(pi);
      const info = makeInfo(
        "generate",
        { promptText: pr.text, ...(pr.ids ? { promptIds: pr.ids } : {}) },
        { ...body, ...sp },
        pi,
      );
      const promptIds = info(0).promptIds;
      const maxNew = intParam(sp.max_new_tokens) ?? 128;
      if (maxNew < 0) throw new BadRequest(`max_new_tokens must be at least 0, got ${maxNew}.`);
      const p: GenParams = {
        maxTokens: maxNew,
        stops: readStops(sp.stop),
        stopIds: readStopIds(sp.stop_token_ids),
        includeStop: sp.no_stop_trim === true,
        ignoreEos: sp.ignore_eos === true,
        seed: seedOf(sp.sampling_seed ?? sp.seed ?? body.seed),
      };
      let inputLogprobs: unknown[] | null = null;
      let inputTop: unknown[] | null = null;
      if (returnLogprob) {
        const start = logprobStart < 0 ? Math.max(0, promptIds.length - 1) : logprobStart;
        if (start >= promptIds.length && promptIds.length > 0)
          throw new BadRequest(
            `logprob_start_len (${start}) is higher than the number of input tokens (${promptIds.length}).`,
          );
        const ids = promptIds.slice(start);
        const lps = ids.map((id, i) =>
          i === 0 ? null : fakeLogprob(id, 1_000_000 + start + i, p.seed),
        );
        inputLogprobs = sgLogprobTriples(ids, lps, withText);
        if (topN > 0)
          inputTop = ids.map((id, i) =>
            i === 0 ? null : sgTop(id, lps[i] as number, topN, withText),
          );
      }
      for (let c = 0; c < n; c++) {
        const g = engine.generate(respond(info(c)), p, true, () => "");
        const rid =
          single && typeof body.rid === "string"
            ? body.rid
            : !single && Array.isArray(body.rid) && n === 1 && typeof body.rid[pi] === "string"
              ? (body.rid[pi] as string)
              : nextHex(32);
        results.push({ g, rid, promptIds, inputLogprobs, inputTop });
      }
    }
    const t0 = performance.now();
    const metaFor = (r: (typeof results)[number], from: number, to: number, finished: boolean) => {
      const g = r.g;
      const meta: Json = {
        id: r.rid,
        finish_reason: finished
          ? g.finish === "length"
            ? { type: "length", length: g.ids.length }
            : { type: "stop", matched: g.matched }
          : null,
        prompt_tokens: r.promptIds.length,
        weight_version: config.weightVersion,
      };
      if (returnLogprob) {
        const ids = g.ids.slice(from, to);
        const lps: number[] = [];
        for (let i = from; i < to; i++) lps.push(engine.logprob(g, i));
        meta.input_token_logprobs = from === 0 || !incremental ? r.inputLogprobs : [];
        meta.output_token_logprobs = sgLogprobTriples(ids, lps, withText);
        if (topN > 0) {
          meta.input_top_logprobs = from === 0 || !incremental ? r.inputTop : [];
          meta.output_top_logprobs = ids.map((id, i) => sgTop(id, lps[i]!, topN, withText));
        }
      }
      meta.completion_tokens = to;
      meta.cached_tokens = 0;
      if (finished) meta.e2e_latency = (performance.now() - t0) / 1000;
      return meta;
    };
    if (!stream) {
      const outs = results.map((r) => ({
        text: r.g.raw.slice(0, r.g.L),
        output_ids: r.g.ids,
        meta_info: metaFor(r, 0, r.g.ids.length, true),
      }));
      sendJson(res, 200, single ? outs[0] : outs);
      return;
    }
    const chunks: string[] = [];
    interleave(
      results.map((r) => r.g.ids.length),
      config.tokensPerChunk,
      (idx, from, to, last) => {
        const r = results[idx]!;
        const a = incremental ? from : 0;
        const [x, y] = textRange(r.g, engine.ensureEnds(r.g), a, to);
        const out: Json = {
          text: r.g.raw.slice(x, y),
          output_ids: r.g.ids.slice(a, to),
          meta_info: metaFor(r, a, to, last),
        };
        if (!single) out.index = idx;
        chunks.push(`data: ${JSON.stringify(out)}\n\n`);
      },
    );
    chunks.push(DONE);
    writeStream(res, chunks, destroyAfter);
  };

  // ---------------------------------------------------------------- misc endpoints
  const modelsBody = () => ({
    object: "list",
    data: [
      kind === "openai"
        ? { id: model, object: "model", created: 1700000000, owned_by: "system" }
        : {
            id: model,
            object: "model",
            created: created(),
            owned_by: kind === "vllm" ? "vllm" : "sglang",
            root: model,
            parent: null,
            max_model_len: maxModelLen,
            permission: [
              {
                id: `modelperm-${idBase}`,
                object: "model_permission",
                created: created(),
                allow_create_engine: false,
                allow_sampling: true,
                allow_logprobs: true,
                allow_search_indices: false,
                allow_view: true,
                allow_fine_tuning: false,
                organization: "*",
                group: null,
                is_blocking: false,
              },
            ],
          },
    ],
  });

  // ---------------------------------------------------------------- dispatch
  const takeFault = (path: string): FakeFault | undefined => {
    if (faults.length === 0) return undefined;
    const i = faults.findIndex((f) => f.path === undefined || f.path === path);
    if (i === -1) return undefined;
    return faults.splice(i, 1)[0];
  };

  const handleGeneration = (
    path: string,
    body: Json,
    res: http.ServerResponse,
    destroyAfter: number,
  ) => {
    try {
      if (
        opts.checkModel &&
        kind !== "sglang" &&
        typeof body.model === "string" &&
        body.model !== model
      )
        throw new BadRequest(`The model \`${body.model}\` does not exist.`, 404, "model");
      if (path === "/v1/chat/completions") handleChat(body, res, destroyAfter);
      else if (path === "/v1/completions") handleCompletions(body, res, destroyAfter);
      else handleGenerate(body, res, destroyAfter);
    } catch (e) {
      if (e instanceof BadRequest)
        sendJson(res, e.status, errorBody(e.status, e.message, path, e.param));
      else
        sendJson(res, 500, errorBody(500, e instanceof Error ? e.message : String(e), path, null));
    }
  };

  const applyFault = (
    fault: FakeFault,
    res: http.ServerResponse,
    run: (destroyAfter: number) => void,
  ) => {
    switch (fault.kind) {
      case "status":
        sendJson(
          res,
          fault.status,
          fault.body ?? errorBody(fault.status, `Injected fault: HTTP ${fault.status}`, "", null),
          fault.headers,
        );
        return;
      case "garbage": {
        const body = fault.body ?? "<html>502 Bad Gateway</html>\u0000{not json";
        res.writeHead(fault.status ?? 200, {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
        });
        res.end(body);
        return;
      }
      case "destroy":
        res.socket?.destroy();
        return;
      case "hang":
        pending.add(res);
        return;
      case "delay":
        setTimeout(() => run(-1), fault.ms);
        return;
      case "destroy-mid-stream":
        run(Math.max(0, fault.afterChunks));
        return;
    }
  };

  /** For a non-streaming response, "destroy mid-stream" sends the headers and half the body. */
  const truncatingRes = (res: http.ServerResponse): http.ServerResponse => {
    const origEnd = res.end.bind(res);
    const origWriteHead = res.writeHead.bind(res);
    let sse = false;
    res.writeHead = ((status: number, headers?: http.OutgoingHttpHeaders) => {
      sse = String(headers?.["content-type"] ?? "").startsWith("text/event-stream");
      return origWriteHead(status, headers);
    }) as typeof res.writeHead;
    res.end = ((chunk?: unknown) => {
      if (sse || typeof chunk !== "string") return origEnd();
      const half = chunk.slice(0, Math.max(1, Math.floor(chunk.length / 2)));
      res.write(half, () => setImmediate(() => res.socket?.destroy()));
      return res;
    }) as typeof res.end;
    return res;
  };

  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse) => {
    totalRequests++;
    inFlight++;
    res.on("close", () => {
      inFlight--;
      pending.delete(res);
    });
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const path = q === -1 ? url : url.slice(0, q);
    const method = req.method ?? "GET";
    if (method === "GET" || method === "HEAD") {
      req.resume();
      if (record) recordReq(method, path, null, req.headers);
      handleGet(path, res);
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw =
        chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8");
      let body: unknown;
      let parseError = false;
      try {
        body = raw.length > 0 ? JSON.parse(raw) : {};
      } catch {
        parseError = true;
        body = raw;
      }
      if (record) recordReq(method, path, body, req.headers);
      if (!GEN_PATHS.has(path) || (kind !== "sglang" && path === "/generate")) {
        handlePost(path, body, res);
        return;
      }
      if (parseError || !isObj(body)) {
        sendJson(
          res,
          400,
          errorBody(400, "Invalid JSON body: expected a JSON object.", path, null),
        );
        return;
      }
      const fault = takeFault(path);
      const run = (destroyAfter: number) => {
        if (destroyAfter >= 0) truncatingRes(res);
        handleGeneration(path, body as Json, res, destroyAfter);
      };
      const go = () => {
        if (res.destroyed) return;
        if (fault) applyFault(fault, res, run);
        else run(-1);
      };
      if (config.latencyMs > 0) setTimeout(go, config.latencyMs);
      else go();
    });
  };

  const recordReq = (
    method: string,
    path: string,
    body: unknown,
    headers: http.IncomingHttpHeaders,
  ) => {
    if (requests.length >= maxRecorded) requests.splice(0, requests.length - maxRecorded + 1);
    requests.push({ method, path, body, headers, at: Date.now() });
  };

  const handleGet = (path: string, res: http.ServerResponse) => {
    switch (path) {
      case "/health":
      case "/health_generate":
      case "/ping":
        if (path === "/health_generate" && kind !== "sglang") break;
        res.writeHead(config.healthy ? 200 : 503, { "content-length": 0 });
        res.end();
        return;
      case "/v1/models":
        sendJson(res, 200, modelsBody());
        return;
      case "/version":
        if (kind === "vllm") {
          sendJson(res, 200, { version: "0.0.0-fake" });
          return;
        }
        break;
      case "/get_model_info":
        if (kind === "sglang") {
          sendJson(res, 200, {
            model_path: model,
            tokenizer_path: model,
            is_generation: true,
            weight_version: config.weightVersion,
          });
          return;
        }
        break;
      case "/get_server_info":
        if (kind === "sglang") {
          sendJson(res, 200, {
            model_path: model,
            served_model_name: model,
            version: "0.0.0-fake",
          });
          return;
        }
        break;
    }
    sendJson(res, 404, { detail: "Not Found" });
  };

  const handlePost = (path: string, body: unknown, res: http.ServerResponse) => {
    if (kind === "vllm" && (path === "/tokenize" || path === "/detokenize") && isObj(body)) {
      if (path === "/tokenize") {
        const text = Array.isArray(body.messages)
          ? renderChatML(body.messages as ChatMessage[], body.add_generation_prompt !== false)
          : typeof body.prompt === "string"
            ? body.prompt
            : "";
        const tokens = engine.encode(text);
        sendJson(res, 200, {
          count: tokens.length,
          max_model_len: maxModelLen,
          tokens,
          token_strs: null,
        });
      } else {
        const ids = Array.isArray(body.tokens) ? (body.tokens as number[]) : [];
        sendJson(res, 200, { prompt: engine.decode(ids) });
      }
      return;
    }
    if (path === "/health" || path === "/v1/models") {
      sendJson(res, 405, { detail: "Method Not Allowed" });
      return;
    }
    sendJson(res, 404, { detail: "Not Found" });
  };

  const server = http.createServer({ keepAlive: true }, onRequest);
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 0;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, opts.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const host = opts.host ?? "127.0.0.1";
  let closed = false;

  return {
    kind,
    url: `http://${host.includes(":") ? `[${host}]` : host}:${addr.port}`,
    port: addr.port,
    model,
    requests,
    faults,
    config,
    get inFlight() {
      return inFlight;
    },
    get totalRequests() {
      return totalRequests;
    },
    setHealthy(healthy: boolean) {
      config.healthy = healthy;
    },
    clearRequests() {
      requests.length = 0;
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const res of pending) res.socket?.destroy();
      pending.clear();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

function defaultRespond(info: FakeRequestInfo): string {
  let src = "";
  if (info.messages) {
    for (let i = info.messages.length - 1; i >= 0; i--) {
      const m = info.messages[i]!;
      if (m.role === "user") {
        src = contentText(m.content);
        break;
      }
    }
  } else {
    src = info.promptText.length > 64 ? info.promptText.slice(-64) : info.promptText;
  }
  return info.choiceIndex === 0 ? `Echo: ${src}` : `Echo ${info.choiceIndex}: ${src}`;
}
