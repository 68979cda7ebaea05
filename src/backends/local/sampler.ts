/**
 * The local backend's sampler: an OpenAI-compatible HTTP server in vLLM's wire shapes over the
 * embedded GPT, so the gateway (upstream kind `vllm`) treats it exactly as it treats vLLM.
 *
 *   const s = await LocalSampler.start({ config, params });      // s.baseURL → http://127.0.0.1:P/v1
 *   await s.setWeights(newParams, 2);                            // hot swap, no restart
 *
 * Endpoints: `GET /health`, `GET /v1/models`, `POST /v1/chat/completions`, `POST /v1/completions`
 * (streaming and not). vLLM extras: `return_token_ids` (→ `prompt_token_ids`, `choices[].token_ids`),
 * `stop_token_ids`, `top_k`, `ignore_eos`, `include_stop_str_in_output`, `skip_special_tokens`.
 * Every response carries `x-rllm-weight-version`: the weights that produced it.
 *
 * Logprobs: the reported logprob of a sampled token is log-softmax of the raw logits (temperature
 * 1, no top-k/top-p) — what the trainer recomputes as log π_θ — not the logprob under the
 * temperature-scaled, truncated distribution that was sampled from.
 *
 * Where it runs: generation happens in worker threads (sampler-worker.ts, one model replica
 * each); this event loop only parses, schedules and writes. Batching: a request waits up to
 * `batchWindowMs` (or until a worker is free) in a queue; the queue is then grouped by the
 * settings one generate() call shares — max_tokens, temperature, top_p, top_k, stop strings, stop
 * token ids — and each group (up to `maxBatch` sequences) becomes one batched generate() call on
 * one idle worker; groups with different settings go to other workers or wait their turn. What may
 * differ inside a batch: prompts, n, seed, logprobs, streaming, return_token_ids. A group larger
 * than the idle workers' share is split across them.
 *
 * Determinism: sample j of a request with seed S draws from a stream seeded by (S, j) alone, so
 * the same request with the same seed gives the same tokens whatever else shares its batch.
 *
 * Streaming: the worker posts every decode step's tokens as they are sampled, and each becomes an
 * SSE chunk per choice right away (text that may still turn out to be part of a stop string, or
 * markup a chat parse needs more of, is held back until it is certain). `metrics` counts requests,
 * generate calls and batch sizes.
 *
 * Chat messages carry the thinking text as both `reasoning` (vLLM today) and `reasoning_content`
 * (older vLLM, our ChatMessage type); tool calls come from parseAssistant (chat-format.ts).
 *
 * Deviations from vLLM, on purpose: a prompt that leaves no room for a token is refused (400), but
 * prompt + max_tokens beyond the context is not — generation stops at the context end with
 * finish_reason "length" (the local model's context is small and agents ask for more). Chat
 * output is always parsed for `<tool_call>` blocks (the model's ChatML format) whatever
 * `tool_choice` says; "required" and named tool choices are refused (no constrained decoding).
 */
import { randomInt } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { MessageChannel, type MessagePort } from "node:worker_threads";
import { z } from "zod";
import { secureRandomBytes } from "../../random.js";
import { ChatMessageSchema, type ToolCall, ToolSchema } from "../../types/chat.js";
import { parseAssistant, renderChat } from "./chat-format.js";
import { type GptConfig, gptParamLayout } from "./model.js";
import type {
  ProgressMessage,
  SamplerBatch,
  SamplerBatchResult,
  SamplerWorkerData,
  TopEntries,
} from "./sampler-worker.js";
import { byteTokenizer, EOS_TOKEN_IDS, StreamDecoder, VOCAB_SIZE } from "./tokenizer.js";
import { WorkerClient } from "./worker-rpc.js";

export interface LocalSamplerOptions {
  config: GptConfig;
  /** Flat parameters (the layout of `gptParamLayout(config)`); copied to every worker. */
  params: Float32Array;
  weightVersion?: number;
  /** The served model name (default "rllm-local"); requests naming another model get 404. */
  modelName?: string;
  host?: string;
  /** 0 (default): an ephemeral port. */
  port?: number;
  /** Worker threads, each with its own model replica (default 1). */
  workers?: number;
  /** Most sequences (prompts × n) in one batched generate call (default 64). */
  maxBatch?: number;
  /** How long the first request of an idle queue waits for others to batch with (default 2). */
  batchWindowMs?: number;
}

/** Counters of what the sampler did, for tests and monitoring. */
export interface SamplerMetrics {
  /** Generation requests admitted (after validation). */
  requests: number;
  /** Batched generate() calls made on the workers. */
  batches: number;
  /** Sequences generated (each choice of each request). */
  sequences: number;
  /** Largest batch so far, in sequences. */
  maxBatchSequences: number;
}

// ─── request validation ──────────────────────────────────────────────────────────────────────

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

const tokenId = z
  .number()
  .int()
  .min(0, `token ids must be integers in [0, ${VOCAB_SIZE})`)
  .max(VOCAB_SIZE - 1, `token ids must be integers in [0, ${VOCAB_SIZE})`);

/** Fields both endpoints read; anything else an SDK sends is accepted and ignored. */
const commonFields = {
  model: z.string().nullish(),
  stream: z.boolean().nullish(),
  stream_options: z
    .looseObject({
      include_usage: z.boolean().nullish(),
      continuous_usage_stats: z.boolean().nullish(),
    })
    .nullish(),
  n: z.number().int().min(1, "n must be at least 1").max(128, "n must be at most 128").nullish(),
  temperature: z.number().min(0, "temperature must be ≥ 0").nullish(),
  top_p: z.number().gt(0, "top_p must be in (0, 1]").max(1, "top_p must be in (0, 1]").nullish(),
  top_k: z
    .number()
    .int()
    .min(-1, "top_k must be -1 or 0 (all tokens) or a positive integer")
    .nullish(),
  seed: z.number().int().nullish(),
  stop: z.union([z.string(), z.array(z.string()).max(16, "at most 16 stop strings")]).nullish(),
  stop_token_ids: z.array(tokenId).nullish(),
  ignore_eos: z.boolean().nullish(),
  include_stop_str_in_output: z.boolean().nullish(),
  skip_special_tokens: z.boolean().nullish(),
  return_token_ids: z.boolean().nullish(),
  max_tokens: z.number().int().min(1, "max_tokens must be at least 1").nullish(),
};

const ChatRequestSchema = z.looseObject({
  ...commonFields,
  messages: z.array(ChatMessageSchema).min(1, "messages must hold at least one message"),
  tools: z.array(ToolSchema).nullish(),
  tool_choice: z.unknown().optional(),
  logprobs: z.boolean().nullish(),
  top_logprobs: z
    .number()
    .int()
    .min(0, "top_logprobs must be in [0, 20]")
    .max(20, "top_logprobs must be in [0, 20]")
    .nullish(),
  max_completion_tokens: z
    .number()
    .int()
    .min(1, "max_completion_tokens must be at least 1")
    .nullish(),
  add_generation_prompt: z.boolean().nullish(),
});
type ChatRequest = z.infer<typeof ChatRequestSchema>;

const CompletionRequestSchema = z.looseObject({
  ...commonFields,
  prompt: z.unknown(),
  logprobs: z
    .number()
    .int()
    .min(0, "logprobs must be an integer in [0, 20]")
    .max(20, "logprobs must be an integer in [0, 20]")
    .nullish(),
});
type CompletionRequest = z.infer<typeof CompletionRequestSchema>;

const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * OpenAI/vLLM fields that would change what is sampled and that this sampler does not implement:
 * accepted only at their neutral value, refused by name otherwise (never silently ignored).
 */
const UNSUPPORTED: [string, (v: unknown) => boolean, string][] = [
  ["logit_bias", (v) => isObj(v) && Object.keys(v).length === 0, "{}"],
  ["presence_penalty", (v) => v === 0, "0"],
  ["frequency_penalty", (v) => v === 0, "0"],
  ["repetition_penalty", (v) => v === 1, "1"],
  ["length_penalty", (v) => v === 1, "1"],
  ["min_p", (v) => v === 0, "0"],
  ["min_tokens", (v) => v === 0, "0"],
  ["bad_words", (v) => Array.isArray(v) && v.length === 0, "[]"],
  ["allowed_token_ids", () => false, "null"],
  ["response_format", (v) => isObj(v) && v.type === "text", '{"type": "text"}'],
  ["structured_outputs", () => false, "null"],
  ["guided_json", () => false, "null"],
  ["guided_regex", () => false, "null"],
  ["guided_choice", () => false, "null"],
  ["guided_grammar", () => false, "null"],
  ["use_beam_search", (v) => v === false, "false"],
  ["best_of", (v) => v === 1, "1"],
  ["prompt_logprobs", () => false, "null"],
  ["echo", (v) => v === false, "false"],
  ["suffix", () => false, "null"],
  ["continue_final_message", (v) => v === false, "false"],
  ["chat_template", () => false, "null"],
  ["truncate_prompt_tokens", () => false, "null"],
  ["prompt_embeds", () => false, "null"],
];

function checkUnsupported(body: Record<string, unknown>): void {
  const bad = UNSUPPORTED.filter(
    ([k, neutral]) => body[k] !== undefined && body[k] !== null && !neutral(body[k]),
  );
  if (bad.length === 0) return;
  const names = bad.map(([k, , n]) => `${k} (only ${n} or null)`).join(", ");
  throw new HttpError(
    400,
    `unsupported by the local sampler: ${names}. These change sampling and this sampler does not offer them; remove them from the request.`,
    bad[0]![0],
  );
}

function parseRequest<T>(schema: z.ZodType<T>, body: unknown): T {
  if (!isObj(body)) throw new HttpError(400, "the request body must be a JSON object");
  checkUnsupported(body);
  const r = schema.safeParse(body);
  if (r.success) return r.data;
  const issues = r.error.issues;
  const msg = issues
    .slice(0, 5)
    .map((i) => `${i.path.join(".") || "body"}: ${i.message}`)
    .join("; ");
  throw new HttpError(400, `invalid request: ${msg}`, String(issues[0]?.path[0] ?? "") || null);
}

// ─── jobs: one HTTP request's generation ─────────────────────────────────────────────────────

/** What one generate() call shares; requests batch together only when these are equal. */
interface Sampling {
  maxTokens: number;
  temperature: number;
  topP: number;
  topK: number;
  stopTokenIds: number[];
  stopStrings: string[];
}

interface Choice {
  index: number;
  promptIndex: number;
  seed: number;
  ids: number[];
  logprobs: number[];
  tops: TopEntries[];
  finish: "stop" | "length" | null;
  stopReason: number | string | null;
  /** How many of `ids` make the text (a trailing stop token or stop string is cut). */
  visible: number;
  // streaming state
  sent: number;
  textFed: number;
  decoder: StreamDecoder;
  text: string;
  reasoningSent: string;
  contentSent: string;
  toolsSent: number;
  textOffset: number;
  finishSent: boolean;
}

/** A 32-bit mix of (seed, index) (splitmix-style), for per-sample seeds. */
function mixSeed(seed: number, index: number): number {
  let z = (Math.imul(seed >>> 0, 0x9e3779b1) ^ Math.imul(index + 1, 0x85ebca6b)) >>> 0;
  z = Math.imul(z ^ (z >>> 16), 0x7feb352d) >>> 0;
  z = Math.imul(z ^ (z >>> 15), 0x846ca68b) >>> 0;
  return (z ^ (z >>> 16)) >>> 0;
}

interface JobInit {
  kind: "chat" | "completions";
  prompts: number[][];
  n: number;
  seed: number | null;
  sampling: Sampling;
  ignoreEos: boolean;
  includeStop: boolean;
  skipSpecial: boolean;
  stream: boolean;
  includeUsage: boolean;
  wantIds: boolean;
  /** Whether per-token logprobs were asked for (chat `logprobs: true`, completions `logprobs: N`). */
  logprobs: boolean;
  /** Alternatives per token: chat `top_logprobs`, completions `logprobs: N`. */
  topLogprobs: number;
  modelName: string;
  maxSeqLen: number;
}

class Job {
  readonly key: string;
  readonly choices: Choice[] = [];
  readonly id: string;
  readonly created = Math.floor(Date.now() / 1000);
  version = -1;
  done = false;
  cancelled = false;
  started = false;
  private readonly stopIdSet: Set<number>;
  private readonly stopSeqs: { text: string; ids: number[] }[];
  private readonly holdback: number;

  constructor(
    readonly init: JobInit,
    private readonly res: http.ServerResponse,
  ) {
    const s = init.sampling;
    this.key = JSON.stringify([
      s.maxTokens,
      s.temperature,
      s.topP,
      s.topK,
      s.stopTokenIds,
      s.stopStrings,
    ]);
    this.id = `${init.kind === "chat" ? "chatcmpl" : "cmpl"}-${secureRandomBytes(16).toString("hex")}`;
    this.stopIdSet = new Set(s.stopTokenIds);
    this.stopSeqs = s.stopStrings
      .map((text) => ({ text, ids: byteTokenizer.encode(text) }))
      .filter((q) => q.ids.length > 0);
    this.holdback = init.includeStop
      ? 0
      : Math.max(0, ...this.stopSeqs.map((q) => q.ids.length - 1));
    const base = init.seed ?? randomInt(0, 2 ** 32);
    init.prompts.forEach((_, p) => {
      for (let j = 0; j < init.n; j++)
        this.choices.push({
          index: this.choices.length,
          promptIndex: p,
          seed: mixSeed(base, j),
          ids: [],
          logprobs: [],
          tops: [],
          finish: null,
          stopReason: null,
          visible: 0,
          sent: 0,
          textFed: 0,
          decoder: new StreamDecoder({
            skipSpecialTokens: init.kind === "completions" && init.skipSpecial,
          }),
          text: "",
          reasoningSent: "",
          contentSent: "",
          toolsSent: 0,
          textOffset: 0,
          finishSent: false,
        });
    });
    res.on("close", () => {
      if (!this.done) this.cancelled = true;
    });
  }

  get finished(): boolean {
    return this.choices.every((c) => c.finish !== null);
  }

  /**
   * Appends a sampled token and decides, as generate() does, whether the sequence ended: a stop
   * token, then a stop string, then the token budget or the context end.
   */
  addToken(c: Choice, token: number, logprob: number, top: TopEntries | null): void {
    if (c.finish) return;
    c.ids.push(token);
    c.logprobs.push(logprob);
    c.tops.push(top ?? []);
    const len = c.ids.length;
    const { init } = this;
    if (this.stopIdSet.has(token)) {
      const eos = EOS_TOKEN_IDS.includes(token) && !init.ignoreEos;
      c.finish = "stop";
      c.stopReason = eos ? null : token;
      c.visible = init.includeStop && !eos ? len : len - 1;
      return;
    }
    for (const q of this.stopSeqs) {
      const L = q.ids.length;
      if (len < L) continue;
      let match = true;
      for (let j = 0; j < L && match; j++) match = c.ids[len - L + j] === q.ids[j];
      if (match) {
        c.finish = "stop";
        c.stopReason = q.text;
        c.visible = init.includeStop ? len : len - L;
        return;
      }
    }
    const promptLen = init.prompts[c.promptIndex]!.length;
    if (len >= init.sampling.maxTokens || promptLen + len >= init.maxSeqLen) {
      c.finish = "length";
      c.visible = len;
    }
  }

  /** The batch result is the truth: any token the progress stream missed, and the ending. */
  reconcile(c: Choice, r: SamplerBatchResult["sequences"][number]): void {
    for (let k = c.ids.length; k < r.tokenIds.length && !c.finish; k++)
      this.addToken(c, r.tokenIds[k]!, r.logprobs[k]!, r.top?.[k] ?? null);
    if (!c.finish) {
      c.finish = r.finishReason;
      c.stopReason = r.stopReason;
      c.visible = c.ids.length;
    }
  }

  // ── writing the response ──────────────────────────────────────────────────────────────────

  private get live(): boolean {
    return !this.res.destroyed && !this.res.writableEnded;
  }

  private sse(obj: unknown): void {
    if (this.live) this.res.write(`data: ${JSON.stringify(obj)}\n\n`);
  }

  /** Dispatched on weights `version`: a stream sends its headers (and chat's role chunks). */
  start(version: number): void {
    this.version = version;
    this.started = true;
    if (!this.init.stream || !this.live) return;
    this.res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      "x-rllm-weight-version": String(version),
    });
    if (this.init.kind === "chat")
      for (const c of this.choices)
        this.sse({
          ...this.chunkHead(),
          choices: [
            {
              index: c.index,
              delta: { role: "assistant", content: "" },
              logprobs: null,
              finish_reason: null,
            },
          ],
          prompt_token_ids: this.init.wantIds ? this.init.prompts[0] : null,
        });
  }

  /** New tokens arrived: a stream sends them. */
  progress(): void {
    if (!this.init.stream || !this.started) return;
    for (const c of this.choices) {
      if (c.sent === c.ids.length && (c.finish === null || c.finishSent)) continue;
      if (this.init.kind === "chat") this.chatChunk(c);
      else this.completionChunk(c);
    }
  }

  /** Every choice finished: send the response, or end the stream. */
  finish(): void {
    if (this.done) return;
    this.done = true;
    if (!this.live) return;
    if (!this.init.stream) {
      const body = this.init.kind === "chat" ? this.chatBody() : this.completionBody();
      const json = JSON.stringify(body);
      this.res.writeHead(200, {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(json),
        "x-rllm-weight-version": String(this.version),
      });
      this.res.end(json);
      return;
    }
    this.progress();
    if (this.init.includeUsage)
      this.sse({
        ...this.chunkHead(),
        choices: [],
        usage: this.usage(),
      });
    this.res.end("data: [DONE]\n\n");
  }

  fail(e: HttpError): void {
    if (this.done) return;
    this.done = true;
    if (!this.live) return;
    const body = errorBody(e.status, e.message, e.param);
    if (this.init.stream && this.started) {
      this.sse(body);
      this.res.end("data: [DONE]\n\n");
    } else sendJson(this.res, e.status, body, this.version);
  }

  private usage() {
    const promptTokens = this.init.prompts.reduce((a, p) => a + p.length, 0);
    const completionTokens = this.choices.reduce((a, c) => a + c.ids.length, 0);
    return {
      prompt_tokens: promptTokens,
      total_tokens: promptTokens + completionTokens,
      completion_tokens: completionTokens,
    };
  }

  private chunkHead() {
    return {
      id: this.id,
      object: this.init.kind === "chat" ? "chat.completion.chunk" : "text_completion",
      created: this.created,
      model: this.init.modelName,
    };
  }

  /** Feeds the tokens whose text is now certain (held back: a possible stop string's start). */
  private feedText(c: Choice): string {
    const upTo = c.finish ? c.visible : Math.max(c.textFed, c.ids.length - this.holdback);
    let out = "";
    if (upTo > c.textFed) out += c.decoder.push(c.ids.slice(c.textFed, upTo));
    c.textFed = Math.max(c.textFed, upTo);
    if (c.finish) out += c.decoder.flush();
    c.text += out;
    return out;
  }

  private chatLogprobs(c: Choice, from: number, to: number) {
    const k = this.init.topLogprobs;
    const content = [];
    for (let i = from; i < to; i++) {
      const id = c.ids[i]!;
      content.push({
        token: byteTokenizer.tokenText(id),
        logprob: c.logprobs[i]!,
        bytes: byteTokenizer.tokenBytes(id),
        top_logprobs: c.tops[i]!.slice(0, k).map(([t, lp]) => ({
          token: byteTokenizer.tokenText(t),
          logprob: lp,
          bytes: byteTokenizer.tokenBytes(t),
        })),
      });
    }
    return { content };
  }

  private completionLogprobs(c: Choice, from: number, to: number) {
    const k = this.init.topLogprobs;
    const tokens: string[] = [];
    const tokenLogprobs: number[] = [];
    const top: Record<string, number>[] = [];
    const textOffset: number[] = [];
    for (let i = from; i < to; i++) {
      const id = c.ids[i]!;
      const t = byteTokenizer.tokenText(id);
      tokens.push(t);
      tokenLogprobs.push(c.logprobs[i]!);
      const d: Record<string, number> = {};
      for (const [alt, lp] of c.tops[i]!.slice(0, k)) d[byteTokenizer.tokenText(alt)] = lp;
      d[t] = c.logprobs[i]!;
      top.push(d);
      textOffset.push(c.textOffset);
      c.textOffset += t.length;
    }
    return {
      text_offset: textOffset,
      token_logprobs: tokenLogprobs,
      tokens,
      top_logprobs: top,
    };
  }

  private chatFinishReason(c: Choice, toolCalls: number): string | null {
    if (!c.finish) return null;
    return toolCalls > 0 && c.finish === "stop" ? "tool_calls" : c.finish;
  }

  private chatChunk(c: Choice): void {
    const from = c.sent;
    const to = c.ids.length;
    c.sent = to;
    this.feedText(c);
    const delta: Record<string, unknown> = {};
    const parsed = c.finish ? finalAssistant(c.text) : partialAssistant(c.text);
    if (parsed.reasoning.startsWith(c.reasoningSent)) {
      const d = parsed.reasoning.slice(c.reasoningSent.length);
      if (d) {
        delta.reasoning = d;
        delta.reasoning_content = d;
        c.reasoningSent = parsed.reasoning;
      }
    }
    if (parsed.content.startsWith(c.contentSent)) {
      const d = parsed.content.slice(c.contentSent.length);
      if (d) {
        delta.content = d;
        c.contentSent = parsed.content;
      }
    }
    if (parsed.calls.length > c.toolsSent) {
      delta.tool_calls = parsed.calls.slice(c.toolsSent).map((call, i) => ({
        index: c.toolsSent + i,
        id: toolCallId(),
        type: "function",
        function: { name: call.function.name, arguments: call.function.arguments },
      }));
      c.toolsSent = parsed.calls.length;
    }
    const last = c.finish !== null;
    if (last) c.finishSent = true;
    const { wantIds, logprobs } = this.init;
    if (!last && !wantIds && !logprobs && Object.keys(delta).length === 0) return;
    const choice: Record<string, unknown> = {
      index: c.index,
      delta,
      logprobs: logprobs ? this.chatLogprobs(c, from, to) : null,
      finish_reason: this.chatFinishReason(c, c.toolsSent),
    };
    if (last) choice.stop_reason = c.stopReason;
    choice.token_ids = wantIds ? c.ids.slice(from, to) : null;
    this.sse({ ...this.chunkHead(), choices: [choice] });
  }

  private completionChunk(c: Choice): void {
    const from = c.sent;
    const to = c.ids.length;
    c.sent = to;
    const text = this.feedText(c);
    const last = c.finish !== null;
    if (last) c.finishSent = true;
    const { wantIds, logprobs } = this.init;
    this.sse({
      ...this.chunkHead(),
      choices: [
        {
          index: c.index,
          text,
          logprobs: logprobs ? this.completionLogprobs(c, from, to) : null,
          finish_reason: c.finish,
          stop_reason: last ? c.stopReason : null,
          prompt_token_ids: wantIds && from === 0 ? this.init.prompts[c.promptIndex] : null,
          token_ids: wantIds ? c.ids.slice(from, to) : null,
        },
      ],
    });
  }

  private chatBody() {
    const { wantIds, logprobs } = this.init;
    const choices = this.choices.map((c) => {
      const p = parseAssistant(visibleText(c, false));
      const calls = p.tool_calls.map((t) => ({ ...t, id: toolCallId() }));
      const message: Record<string, unknown> = {
        role: "assistant",
        content: p.content,
        reasoning: p.reasoning_content,
        reasoning_content: p.reasoning_content,
      };
      if (calls.length > 0) message.tool_calls = calls;
      return {
        index: c.index,
        message,
        logprobs: logprobs ? this.chatLogprobs(c, 0, c.ids.length) : null,
        finish_reason: this.chatFinishReason(c, calls.length),
        stop_reason: c.stopReason,
        token_ids: wantIds ? c.ids : null,
      };
    });
    return {
      id: this.id,
      object: "chat.completion",
      created: this.created,
      model: this.init.modelName,
      choices,
      usage: this.usage(),
      system_fingerprint: null,
      prompt_logprobs: null,
      prompt_token_ids: wantIds ? this.init.prompts[0] : null,
      kv_transfer_params: null,
    };
  }

  private completionBody() {
    const { wantIds, logprobs, skipSpecial } = this.init;
    const choices = this.choices.map((c) => ({
      index: c.index,
      text: visibleText(c, skipSpecial),
      logprobs: logprobs ? this.completionLogprobs(c, 0, c.ids.length) : null,
      finish_reason: c.finish,
      stop_reason: c.stopReason,
      token_ids: wantIds ? c.ids : null,
      prompt_logprobs: null,
      prompt_token_ids: wantIds ? this.init.prompts[c.promptIndex] : null,
    }));
    return {
      id: this.id,
      object: "text_completion",
      created: this.created,
      model: this.init.modelName,
      choices,
      usage: this.usage(),
      system_fingerprint: null,
      kv_transfer_params: null,
    };
  }
}

function visibleText(c: Choice, skipSpecialTokens: boolean): string {
  return byteTokenizer.decode(c.ids.slice(0, c.visible), { skipSpecialTokens });
}

function toolCallId(): string {
  return `chatcmpl-tool-${secureRandomBytes(16).toString("hex")}`;
}

// ─── streaming chat parse ────────────────────────────────────────────────────────────────────

export interface AssistantSoFar {
  reasoning: string;
  content: string;
  calls: ToolCall[];
}

function finalAssistant(raw: string): AssistantSoFar {
  const p = parseAssistant(raw);
  return { reasoning: p.reasoning_content ?? "", content: p.content ?? "", calls: p.tool_calls };
}

const THINK = "<think>";
const THINK_END = "</think>";
const CALL_OPEN = "<tool_call>";
const TOOL_BLOCK = /<tool_call>\n?[\s\S]*?\n?<\/tool_call>/g;
const TRAILING_EOS = /(<\|im_end\|>|<\|endoftext\|>)+$/;

/** Length of the longest suffix of `s` that is a proper prefix of one of `patterns`. */
function heldSuffix(s: string, patterns: readonly string[]): number {
  let best = 0;
  for (const p of patterns)
    for (let k = Math.min(p.length - 1, s.length); k > best; k--)
      if (s.endsWith(p.slice(0, k))) {
        best = k;
        break;
      }
  return best;
}

/**
 * What of a still-growing completion is already certain under {@link parseAssistant}: reasoning,
 * content and complete tool calls that are prefixes of what the final parse will give, holding
 * back any text the rest could still change (a newline before `</think>` or `<tool_call>`, an
 * open tool-call block). Streaming sends the difference from step to step, so the streamed
 * message equals the non-streamed one — except when a `<think>` is never closed, where the final
 * parse turns everything into content after the reasoning was streamed (as vLLM's parsers do).
 */
export function partialAssistant(raw: string): AssistantSoFar {
  const none: AssistantSoFar = { reasoning: "", content: "", calls: [] };
  let contentStart = 0;
  if (raw.startsWith(THINK)) {
    const end = raw.indexOf(THINK_END);
    if (end < 0) {
      let r = raw.slice(THINK.length);
      if (r.startsWith("\n")) r = r.slice(1);
      return { ...none, reasoning: r.slice(0, r.length - heldSuffix(r, [`\n${THINK_END}`])) };
    }
    const after = end + THINK_END.length;
    const rest = raw.slice(after);
    if (rest === "" || rest === "\n") return { ...none, reasoning: finalAssistant(raw).reasoning };
    contentStart = rest.startsWith("\n\n") ? after + 2 : after;
  } else if (THINK.startsWith(raw)) return none;
  const region = raw.slice(contentStart);
  let stableEnd = 0;
  for (const m of region.matchAll(TOOL_BLOCK)) stableEnd = (m.index ?? 0) + m[0].length;
  const stable = finalAssistant(raw.slice(0, contentStart + stableEnd));
  const tail = region.slice(stableEnd);
  const open = tail.indexOf(CALL_OPEN);
  let tailContent: string;
  if (open >= 0) {
    const before = tail.slice(0, open);
    tailContent = stable.calls.length > 0 && before === "\n" ? "" : before.replace(/\n$/, "");
  } else {
    const t = tail.replace(TRAILING_EOS, "");
    tailContent = t.slice(
      0,
      t.length - heldSuffix(t, [`\n${CALL_OPEN}`, CALL_OPEN, "<|im_end|>", "<|endoftext|>"]),
    );
  }
  return {
    reasoning: stable.reasoning,
    content: stable.content + tailContent,
    calls: stable.calls,
  };
}

// ─── HTTP helpers ────────────────────────────────────────────────────────────────────────────

function errorBody(status: number, message: string, param: string | null) {
  const type =
    status === 404
      ? "NotFoundError"
      : status === 503
        ? "ServiceUnavailableError"
        : status >= 500
          ? "InternalServerError"
          : "BadRequestError";
  return { error: { message, type, param, code: status } };
}

function sendJson(res: http.ServerResponse, status: number, body: unknown, version: number): void {
  if (res.destroyed || res.headersSent) return;
  const json = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(json),
    "x-rllm-weight-version": String(version),
  });
  res.end(json);
}

const MAX_BODY_BYTES = 32 * 1024 * 1024;

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        reject(new HttpError(413, `request body over ${MAX_BODY_BYTES} bytes`));
        req.destroy();
      } else chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

// ─── the sampler ─────────────────────────────────────────────────────────────────────────────

interface WorkerSlot {
  client: WorkerClient;
  port: MessagePort;
  busy: boolean;
  dead: boolean;
  /** The weights the worker will have for the next call posted to it. */
  version: number;
}

interface Batch {
  refs: { job: Job; choice: Choice }[];
  jobs: Job[];
}

export class LocalSampler {
  private readonly pending: Job[] = [];
  private readonly batches = new Map<number, Batch>();
  private pumpTimer: NodeJS.Timeout | undefined;
  private batchSeq = 0;
  private version: number;
  private closed = false;
  private readonly stats: SamplerMetrics = {
    requests: 0,
    batches: 0,
    sequences: 0,
    maxBatchSequences: 0,
  };
  private slots: WorkerSlot[] = [];
  private server: http.Server | undefined;
  private host = "127.0.0.1";
  private listenPort = 0;

  private constructor(
    readonly config: GptConfig,
    readonly modelName: string,
    private readonly maxBatch: number,
    private readonly batchWindowMs: number,
    weightVersion: number,
  ) {
    this.version = weightVersion;
  }

  static async start(opts: LocalSamplerOptions): Promise<LocalSampler> {
    const workers = opts.workers ?? 1;
    const maxBatch = opts.maxBatch ?? 64;
    const windowMs = opts.batchWindowMs ?? 2;
    if (!Number.isInteger(workers) || workers < 1)
      throw new RangeError(`workers must be an integer ≥ 1, got ${workers}`);
    if (!Number.isInteger(maxBatch) || maxBatch < 1)
      throw new RangeError(`maxBatch must be an integer ≥ 1, got ${maxBatch}`);
    if (!(windowMs >= 0)) throw new RangeError(`batchWindowMs must be ≥ 0, got ${windowMs}`);
    const s = new LocalSampler(
      opts.config,
      opts.modelName ?? "rllm-local",
      maxBatch,
      windowMs,
      opts.weightVersion ?? 0,
    );
    s.checkParams(opts.params, "LocalSampler.start");
    const started = await Promise.allSettled(
      Array.from({ length: workers }, () => s.startWorker(opts.params)),
    );
    s.slots = started.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    try {
      const failed = started.find((r) => r.status === "rejected");
      if (failed) throw failed.reason;
      await s.listen(opts.host ?? "127.0.0.1", opts.port ?? 0);
    } catch (e) {
      await s.close();
      throw e;
    }
    return s;
  }

  private checkParams(params: Float32Array, where: string): void {
    const want = gptParamLayout(this.config).reduce((a, p) => a + p.size, 0);
    if (params.length !== want)
      throw new RangeError(
        `${where} got ${params.length} parameters; the model config needs ${want} (the flat layout of gptParamLayout(config))`,
      );
  }

  private async startWorker(params: Float32Array): Promise<WorkerSlot> {
    const { port1, port2 } = new MessageChannel();
    const data: SamplerWorkerData = {
      config: this.config,
      params,
      weightVersion: this.version,
      progress: port2,
    };
    const slot: WorkerSlot = {
      client: undefined as unknown as WorkerClient,
      port: port1,
      busy: false,
      dead: false,
      version: this.version,
    };
    port1.on("message", (m: ProgressMessage) => this.onProgress(m));
    port1.unref();
    try {
      slot.client = await WorkerClient.start("sampler-worker", data, [port2]);
    } catch (e) {
      port1.close();
      throw e;
    }
    return slot;
  }

  private listen(host: string, port: number): Promise<void> {
    const server = http.createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
      void this.handle(req, res);
    });
    server.requestTimeout = 0;
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => {
        server.off("error", reject);
        this.host = host;
        this.listenPort = (server.address() as AddressInfo).port;
        resolve();
      });
    });
  }

  /** `http://host:port/v1`, what an OpenAI client takes as its base URL. */
  get baseURL(): string {
    const h = this.host.includes(":") ? `[${this.host}]` : this.host;
    return `http://${h === "0.0.0.0" || h === "[::]" ? "127.0.0.1" : h}:${this.listenPort}/v1`;
  }

  get port(): number {
    return this.listenPort;
  }

  /** The weights requests admitted from now on are served with. */
  get weightVersion(): number {
    return this.version;
  }

  get metrics(): Readonly<SamplerMetrics> {
    return { ...this.stats };
  }

  /**
   * Loads new weights into every worker. Batches already running finish on the old weights;
   * every batch started after this resolves uses the new ones. The server keeps serving.
   */
  async setWeights(params: Float32Array, weightVersion: number): Promise<void> {
    if (this.closed) throw new Error("the sampler is closed");
    this.checkParams(params, "setWeights");
    const live = this.slots.filter((s) => !s.dead);
    await Promise.all(
      live.map((s) => {
        // calls run in order on a worker: everything posted after this sees the new weights
        s.version = weightVersion;
        return s.client.call("setWeights", { params, weightVersion });
      }),
    );
    this.version = weightVersion;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.pumpTimer);
    const err = new HttpError(503, "the sampler is shutting down");
    for (const j of this.pending.splice(0)) j.fail(err);
    for (const b of this.batches.values()) for (const j of b.jobs) j.fail(err);
    this.batches.clear();
    const server = this.server;
    if (server)
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    await Promise.all(
      this.slots.map(async (s) => {
        s.port.close();
        await s.client?.close();
      }),
    );
  }

  // ── scheduling ─────────────────────────────────────────────────────────────────────────────

  private enqueue(job: Job): void {
    if (this.slots.every((s) => s.dead)) {
      job.fail(new HttpError(503, "every sampler worker has died; restart the sampler"));
      return;
    }
    this.stats.requests++;
    job.version = this.version; // what an error before dispatch reports
    this.pending.push(job);
    if (this.pumpTimer === undefined)
      this.pumpTimer = setTimeout(() => {
        this.pumpTimer = undefined;
        this.pump();
      }, this.batchWindowMs);
  }

  /** Hands the queue to idle workers, one batch of same-settings requests each. */
  private pump(): void {
    for (let i = this.pending.length - 1; i >= 0; i--)
      if (this.pending[i]!.cancelled) this.pending.splice(i, 1);
    const idle = this.slots.filter((s) => !s.busy && !s.dead);
    if (idle.length === 0 || this.pending.length === 0 || this.closed) return;
    const groups = new Map<string, Job[]>();
    for (const j of this.pending) {
      const g = groups.get(j.key);
      if (g) g.push(j);
      else groups.set(j.key, [j]);
    }
    const chunks: Job[][] = [];
    for (const jobs of groups.values()) {
      let cur: Job[] = [];
      let seqs = 0;
      for (const j of jobs) {
        if (cur.length > 0 && seqs + j.choices.length > this.maxBatch) {
          chunks.push(cur);
          cur = [];
          seqs = 0;
        }
        cur.push(j);
        seqs += j.choices.length;
      }
      chunks.push(cur);
    }
    // more idle workers than batches: split the largest batches across them
    while (chunks.length < idle.length) {
      let at = -1;
      for (let i = 0; i < chunks.length; i++)
        if (chunks[i]!.length > 1 && (at < 0 || chunks[i]!.length > chunks[at]!.length)) at = i;
      if (at < 0) break;
      const c = chunks[at]!;
      chunks.splice(at, 1, c.slice(0, Math.ceil(c.length / 2)), c.slice(Math.ceil(c.length / 2)));
    }
    for (let i = 0; i < Math.min(idle.length, chunks.length); i++) {
      const jobs = chunks[i]!;
      for (const j of jobs) this.pending.splice(this.pending.indexOf(j), 1);
      this.dispatch(idle[i]!, jobs);
    }
  }

  private dispatch(slot: WorkerSlot, jobs: Job[]): void {
    const batchId = ++this.batchSeq;
    const refs: Batch["refs"] = [];
    const prompts: number[][] = [];
    const seeds: number[] = [];
    let topLogprobs = 0;
    for (const job of jobs) {
      for (const c of job.choices) {
        refs.push({ job, choice: c });
        prompts.push(job.init.prompts[c.promptIndex]!);
        seeds.push(c.seed);
      }
      topLogprobs = Math.max(topLogprobs, job.init.topLogprobs);
      job.start(slot.version);
    }
    slot.busy = true;
    this.stats.batches++;
    this.stats.sequences += refs.length;
    this.stats.maxBatchSequences = Math.max(this.stats.maxBatchSequences, refs.length);
    this.batches.set(batchId, { refs, jobs });
    const s = jobs[0]!.init.sampling;
    const batch: SamplerBatch = {
      batchId,
      prompts,
      seeds,
      maxTokens: s.maxTokens,
      temperature: s.temperature,
      topP: s.topP,
      topK: s.topK,
      stopTokenIds: s.stopTokenIds,
      stopSequences: s.stopStrings,
      topLogprobs,
    };
    slot.client
      .call<SamplerBatchResult>("generate", batch)
      .then(
        (r) => this.onResult(batchId, r),
        (e: unknown) => {
          const msg = e instanceof Error ? e.message : String(e);
          // a handler's error keeps its own name; a dead worker's is WorkerCallError
          if (e instanceof Error && e.name === "WorkerCallError") slot.dead = true;
          for (const j of jobs) j.fail(new HttpError(500, `generation failed: ${msg}`));
        },
      )
      .finally(() => {
        slot.busy = false;
        this.batches.delete(batchId);
        this.pump();
      });
  }

  private onProgress(m: ProgressMessage): void {
    const b = this.batches.get(m.batchId);
    if (!b) return;
    const touched = new Set<Job>();
    for (let i = 0; i < m.seqs.length; i++) {
      const ref = b.refs[m.seqs[i]!];
      if (!ref || ref.choice.finish || m.pos[i] !== ref.choice.ids.length) continue;
      ref.job.addToken(ref.choice, m.tokens[i]!, m.logprobs[i]!, m.top?.[i] ?? null);
      touched.add(ref.job);
    }
    for (const j of touched) {
      if (j.done) continue;
      if (j.finished) j.finish();
      else j.progress();
    }
  }

  private onResult(batchId: number, r: SamplerBatchResult): void {
    const b = this.batches.get(batchId);
    if (!b) return;
    b.refs.forEach((ref, s) => {
      ref.job.reconcile(ref.choice, r.sequences[s]!);
    });
    for (const j of b.jobs) j.finish();
  }

  // ── HTTP ───────────────────────────────────────────────────────────────────────────────────

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const path = q < 0 ? url : url.slice(0, q);
    const method = req.method ?? "GET";
    try {
      if (path === "/health" || path === "/v1/models" || path === "/version") {
        req.resume();
        if (method !== "GET" && method !== "HEAD")
          throw new HttpError(405, `${path} answers GET only`);
        if (path === "/health") {
          res.writeHead(200, {
            "content-length": 0,
            "x-rllm-weight-version": String(this.version),
          });
          res.end();
        } else if (path === "/version") sendJson(res, 200, { version: "rllm-local" }, this.version);
        else sendJson(res, 200, this.modelsBody(), this.version);
        return;
      }
      if (path !== "/v1/chat/completions" && path !== "/v1/completions") {
        req.resume();
        throw new HttpError(
          404,
          `no route ${method} ${path}; this server answers /health, /v1/models, /v1/chat/completions and /v1/completions`,
        );
      }
      if (method !== "POST") {
        req.resume();
        throw new HttpError(405, `${path} answers POST only`);
      }
      const raw = await readBody(req);
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch (e) {
        throw new HttpError(
          400,
          `the request body is not valid JSON (${e instanceof Error ? e.message : String(e)}); send a JSON object`,
        );
      }
      if (this.closed) throw new HttpError(503, "the sampler is shutting down");
      const job =
        path === "/v1/chat/completions" ? this.chatJob(body, res) : this.completionJob(body, res);
      this.enqueue(job);
    } catch (e) {
      const err =
        e instanceof HttpError
          ? e
          : new HttpError(500, `internal error: ${e instanceof Error ? e.message : String(e)}`);
      sendJson(res, err.status, errorBody(err.status, err.message, err.param), this.version);
    }
  }

  private modelsBody() {
    const created = Math.floor(Date.now() / 1000);
    return {
      object: "list",
      data: [
        {
          id: this.modelName,
          object: "model",
          created,
          owned_by: "rllm",
          root: this.modelName,
          parent: null,
          max_model_len: this.config.maxSeqLen,
          permission: [],
        },
      ],
    };
  }

  private checkModel(model: string | null | undefined): void {
    if (model != null && model !== this.modelName)
      throw new HttpError(
        404,
        `The model \`${model}\` does not exist. This server serves "${this.modelName}"; omit "model" or send that name.`,
        "model",
      );
  }

  private checkPrompt(ids: number[], what: string, param: string): void {
    const max = this.config.maxSeqLen;
    if (ids.length === 0) throw new HttpError(400, `${what} is empty`, param);
    if (ids.length >= max)
      throw new HttpError(
        400,
        `${what} is ${ids.length} tokens; this model's maximum context length is ${max} tokens and it needs room for at least one generated token. Shorten the input.`,
        param,
      );
  }

  private sampling(
    r: ChatRequest | CompletionRequest,
    maxTokens: number | null | undefined,
    dflt: number,
  ): {
    sampling: Sampling;
    common: Pick<
      JobInit,
      | "n"
      | "seed"
      | "ignoreEos"
      | "includeStop"
      | "skipSpecial"
      | "stream"
      | "includeUsage"
      | "wantIds"
      | "modelName"
      | "maxSeqLen"
    >;
  } {
    this.checkModel(r.model);
    const stream = r.stream === true;
    if (r.stream_options != null && !stream)
      throw new HttpError(
        400,
        "stream_options can only be set when stream is true",
        "stream_options",
      );
    const ignoreEos = r.ignore_eos === true;
    const stopIds = [
      ...new Set([...(ignoreEos ? [] : EOS_TOKEN_IDS), ...(r.stop_token_ids ?? [])]),
    ];
    const stops = r.stop == null ? [] : typeof r.stop === "string" ? [r.stop] : r.stop;
    const topK = r.top_k ?? 0;
    return {
      sampling: {
        maxTokens: Math.min(maxTokens ?? dflt, this.config.maxSeqLen),
        temperature: r.temperature ?? 1,
        topP: r.top_p ?? 1,
        topK: Math.max(topK, 0),
        stopTokenIds: stopIds.sort((a, b) => a - b),
        stopStrings: [...new Set(stops.filter((x) => x.length > 0))],
      },
      common: {
        n: r.n ?? 1,
        seed: r.seed ?? null,
        ignoreEos,
        includeStop: r.include_stop_str_in_output === true,
        skipSpecial: r.skip_special_tokens !== false,
        stream,
        includeUsage: stream && r.stream_options?.include_usage === true,
        wantIds: r.return_token_ids === true,
        modelName: this.modelName,
        maxSeqLen: this.config.maxSeqLen,
      },
    };
  }

  private chatJob(body: unknown, res: http.ServerResponse): Job {
    const r = parseRequest(ChatRequestSchema, body);
    const tc = r.tool_choice;
    if (tc !== undefined && tc !== null && tc !== "auto" && tc !== "none")
      throw new HttpError(
        400,
        `tool_choice ${JSON.stringify(tc)} needs constrained decoding, which the local sampler does not do; use "auto" or "none"`,
        "tool_choice",
      );
    if (r.top_logprobs && !r.logprobs)
      throw new HttpError(400, "top_logprobs needs logprobs: true", "top_logprobs");
    const { sampling, common } = this.sampling(
      r,
      r.max_completion_tokens ?? r.max_tokens,
      this.config.maxSeqLen,
    );
    let prompt: number[];
    try {
      prompt = renderChat(r.messages, {
        addGenerationPrompt: r.add_generation_prompt !== false,
        ...(r.tools && r.tools.length > 0 ? { tools: r.tools } : {}),
      });
    } catch (e) {
      throw new HttpError(400, e instanceof Error ? e.message : String(e), "messages");
    }
    this.checkPrompt(prompt, "the rendered prompt", "messages");
    return new Job(
      {
        kind: "chat",
        prompts: [prompt],
        sampling,
        ...common,
        logprobs: r.logprobs === true,
        topLogprobs: r.logprobs ? (r.top_logprobs ?? 0) : 0,
      },
      res,
    );
  }

  private completionJob(body: unknown, res: http.ServerResponse): Job {
    const r = parseRequest(CompletionRequestSchema, body);
    // vLLM: an absent max_tokens is 16 on this endpoint, an explicit null the rest of the context
    const { sampling, common } = this.sampling(
      r,
      r.max_tokens === null ? this.config.maxSeqLen : r.max_tokens,
      16,
    );
    const prompts = readPrompts(r.prompt);
    if (prompts.length * (r.n ?? 1) > MAX_SEQUENCES_PER_REQUEST)
      throw new HttpError(
        400,
        `${prompts.length} prompts × n ${r.n ?? 1} is over ${MAX_SEQUENCES_PER_REQUEST} sequences in one request; split it`,
        "prompt",
      );
    prompts.forEach((p, i) => {
      this.checkPrompt(p, prompts.length > 1 ? `prompt ${i}` : "the prompt", "prompt");
    });
    return new Job(
      {
        kind: "completions",
        prompts,
        sampling,
        ...common,
        logprobs: r.logprobs != null,
        topLogprobs: r.logprobs ?? 0,
      },
      res,
    );
  }
}

const MAX_SEQUENCES_PER_REQUEST = 1024;

const PROMPT_HELP =
  "prompt must be a non-empty string, a list of strings, a list of token ids, or a list of token-id lists";

/** vLLM's prompt forms: str, list[str], list[int], list[list[int]]. */
function readPrompts(prompt: unknown): number[][] {
  const isIds = (v: unknown): v is number[] =>
    Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === "number");
  const checkIds = (ids: number[]) => {
    const bad = ids.find((x) => !Number.isInteger(x) || x < 0 || x >= VOCAB_SIZE);
    if (bad !== undefined)
      throw new HttpError(
        400,
        `prompt token id ${bad} is outside the vocabulary [0, ${VOCAB_SIZE})`,
        "prompt",
      );
    return ids;
  };
  // prompt text is the caller's own: special-token strings in it map to their ids, as a
  // tokenizer's encode does
  if (typeof prompt === "string" && prompt.length > 0) return [byteTokenizer.encode(prompt)];
  if (Array.isArray(prompt) && prompt.length > 0) {
    if (isIds(prompt)) return [checkIds(prompt)];
    if (prompt.every((x) => typeof x === "string" && x.length > 0))
      return (prompt as string[]).map((t) => byteTokenizer.encode(t));
    if (prompt.every(isIds)) return (prompt as number[][]).map(checkIds);
  }
  throw new HttpError(400, PROMPT_HELP, "prompt");
}
