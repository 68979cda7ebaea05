/**
 * One HTTP request's generation: its choices (prompts × n, each with its own seed), the stop
 * rules applied as tokens arrive, and its response in vLLM's shapes — one JSON body, or SSE
 * chunks per choice as tokens arrive (text that may still turn out to be part of a stop string,
 * or markup a chat parse needs more of, is held back until it is certain).
 *
 * Stop strings end the text where they first occur in it, as vLLM's detokenizer does: a generator
 * that finds one on decoded text (the torch sampler) reports it as stopReason, and the text is cut
 * before its first occurrence (after it with include_stop_str_in_output) even when its tokens are
 * not encode(stop) — a model's tokens need not split where the stop string does. token_ids keep
 * every sampled token. A stream never sends text at or past a stop string, nor the last
 * (longest stop − 1) characters while one may still be completing.
 *
 * Chat messages carry the thinking text as both `reasoning` (vLLM today) and `reasoning_content`
 * (older vLLM, our ChatMessage type); tool calls come from parseAssistant.
 */
import { randomInt } from "node:crypto";
import type http from "node:http";
import { parseAssistant } from "../../chat/chatml.js";
import { finalAssistant, partialAssistant } from "../../chat/stream.js";
import { openAIErrorBody } from "../../http.js";
import { mixSeed, secureRandomBytes } from "../../random.js";
import type {
  SampledSequence,
  SamplingSettings,
  ServingTokenizer,
  TopEntries,
} from "./generator.js";
import { type HttpError, sendError } from "./http.js";

export interface Choice {
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
  decoder: ReturnType<ServingTokenizer["decodeStream"]>;
  /** The text of every token fed to the decoder. */
  decoded: string;
  /** The part of `decoded` sent (or final once finished). */
  text: string;
  reasoningSent: string;
  contentSent: string;
  toolsSent: number;
  textOffset: number;
  finishSent: boolean;
}

export interface JobInit {
  kind: "chat" | "completions";
  prompts: number[][];
  n: number;
  seed: number | null;
  sampling: SamplingSettings;
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

export class Job {
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
  /** Characters a stream holds back: the start of a stop string that may be completing. */
  private readonly holdback: number;

  constructor(
    readonly init: JobInit,
    private readonly res: http.ServerResponse,
    private readonly tokenizer: ServingTokenizer,
  ) {
    const s = init.sampling;
    this.key = JSON.stringify([
      s.maxTokens,
      s.temperature,
      s.topP,
      s.topK,
      s.stopTokenIds,
      s.stopSequences,
    ]);
    this.id = `${init.kind === "chat" ? "chatcmpl" : "cmpl"}-${secureRandomBytes(16).toString("hex")}`;
    this.stopIdSet = new Set(s.stopTokenIds);
    this.stopSeqs = s.stopSequences
      .map((text) => ({ text, ids: tokenizer.encode(text) }))
      .filter((q) => q.ids.length > 0);
    this.holdback = init.includeStop
      ? 0
      : Math.max(0, ...this.stopSeqs.map((q) => q.text.length - 1));
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
          decoder: tokenizer.decodeStream({
            skipSpecialTokens: init.kind === "completions" && init.skipSpecial,
          }),
          decoded: "",
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
      const eos = this.tokenizer.eosTokenIds.includes(token) && !init.ignoreEos;
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
  reconcile(c: Choice, r: SampledSequence): void {
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
    if (this.init.stream && this.started) {
      this.sse(openAIErrorBody(e, "vllm"));
      this.res.end("data: [DONE]\n\n");
    } else sendError(this.res, e, this.version);
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

  /**
   * The text now certain, past what was sent: once finished, the final text; before, the decoded
   * text up to the first stop string in it, less the characters a stop string may still complete.
   */
  private feedText(c: Choice): string {
    if (c.ids.length > c.textFed) c.decoded += c.decoder.push(c.ids.slice(c.textFed));
    c.textFed = c.ids.length;
    let certain: string;
    if (c.finish)
      certain = this.visibleText(c, this.init.kind === "completions" && this.init.skipSpecial);
    else {
      const stop = this.firstStop(c.decoded, c.text.length);
      certain = c.decoded.slice(0, stop ?? Math.max(0, c.decoded.length - this.holdback));
    }
    if (certain.length <= c.text.length) return "";
    const out = certain.slice(c.text.length);
    c.text = certain;
    return out;
  }

  /**
   * Where `text` ends at its first stop string (after it with include_stop_str_in_output). The
   * first `sent` characters were sent: a stop string can only start in their last (length − 1).
   */
  private firstStop(text: string, sent: number): number | undefined {
    let end: number | undefined;
    for (const q of this.init.sampling.stopSequences) {
      const at = text.indexOf(q, Math.max(0, sent - q.length + 1));
      if (at < 0) continue;
      const cut = this.init.includeStop ? at + q.length : at;
      if (end === undefined || cut < end) end = cut;
    }
    return end;
  }

  private chatLogprobs(c: Choice, from: number, to: number) {
    const k = this.init.topLogprobs;
    const content = [];
    for (let i = from; i < to; i++) {
      const id = c.ids[i]!;
      content.push({
        token: this.tokenizer.tokenText(id),
        logprob: c.logprobs[i]!,
        bytes: this.tokenizer.tokenBytes(id),
        top_logprobs: c.tops[i]!.slice(0, k).map(([t, lp]) => ({
          token: this.tokenizer.tokenText(t),
          logprob: lp,
          bytes: this.tokenizer.tokenBytes(t),
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
      const t = this.tokenizer.tokenText(id);
      tokens.push(t);
      tokenLogprobs.push(c.logprobs[i]!);
      const d: Record<string, number> = {};
      for (const [alt, lp] of c.tops[i]!.slice(0, k)) d[this.tokenizer.tokenText(alt)] = lp;
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
      const p = parseAssistant(this.visibleText(c, false));
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

  /** The text of the visible tokens, ending at a reported stop string's first occurrence. */
  private visibleText(c: Choice, skipSpecialTokens: boolean): string {
    const text = this.tokenizer.decode(c.ids.slice(0, c.visible), { skipSpecialTokens });
    if (typeof c.stopReason !== "string") return text;
    const at = text.indexOf(c.stopReason);
    if (at < 0) return text;
    return text.slice(0, this.init.includeStop ? at + c.stopReason.length : at);
  }

  private completionBody() {
    const { wantIds, logprobs, skipSpecial } = this.init;
    const choices = this.choices.map((c) => ({
      index: c.index,
      text: this.visibleText(c, skipSpecial),
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

function toolCallId(): string {
  return `chatcmpl-tool-${secureRandomBytes(16).toString("hex")}`;
}
