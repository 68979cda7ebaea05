/**
 * The fake model: what it "generates" for a request (the scripted or echoed completion laid out as
 * raw text with reasoning and hermes tool-call markup), the token ids covering that text, where
 * stop strings, stop ids and token limits cut it, and how a finished generation parses back into
 * reasoning, content and tool calls (as vLLM's parsers would).
 */

import { assistantBody, IM_END, IM_START } from "../../chat/chatml.js";
import type { ChatMessage } from "../../types/chat.js";
import { argsString } from "./render.js";
import {
  BYTE_OFFSET,
  byteCount,
  byteDecode,
  byteEncode,
  byteTokenText,
  fakeLogprob,
  IM_END_TOKEN_ID,
  IM_START_TOKEN_ID,
} from "./tokenizer.js";
import type { FakeCompletion, FakeRequestInfo, FakeTokenizer, FakeUpstreamKind } from "./types.js";

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

export interface GenParams {
  maxTokens: number;
  stops: string[];
  stopIds: number[] | null;
  includeStop: boolean;
  ignoreEos: boolean;
  seed: number;
}

export interface Gen {
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

export class Engine {
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

  /**
   * One generation: the completion laid out as raw text, encoded, then cut where the first stop
   * string or stop id falls, else at `maxTokens` ("length"); a completion that ends on its own gets
   * the EOS id appended when `appendEos` and there is room for it.
   */
  generate(
    result: string | FakeCompletion,
    p: GenParams,
    appendEos: boolean,
    toolIdFor: (i: number) => string,
  ): Gen {
    const r: FakeCompletion = typeof result === "string" ? { text: result } : result;
    const { raw, spans, calls, hasReasoning } = layOut(r, toolIdFor);
    const enc = this.encodeRaw(raw);
    const g: Gen = {
      raw,
      spans,
      calls,
      hasReasoning,
      ids: enc.ids,
      L: raw.length,
      ends: enc.ends,
      nText: enc.ids.length,
      finish: "stop",
      stopReason: null,
      matched: null,
      seed: p.seed,
    };
    const stopped =
      (p.stops.length > 0 || (p.stopIds !== null && p.stopIds.length > 0)) && this.cutAtStop(g, p);
    if (!stopped) this.finishUnstopped(g, p, r.finishReason === "length", appendEos);
    return g;
  }

  /**
   * Cuts `g` after the first token that is a stop id or whose text completes a stop string (the
   * stop string itself kept only with `includeStop`), within the first `maxTokens` tokens.
   * Returns whether it cut.
   */
  private cutAtStop(g: Gen, p: GenParams): boolean {
    const ends = this.ensureEnds(g);
    const ids = g.ids;
    let maxStop = 0;
    for (const s of p.stops) maxStop = Math.max(maxStop, s.length);
    let prevEnd = 0;
    const lim = Math.min(ids.length, p.maxTokens);
    let n = -1;
    for (let i = 0; i < lim && n === -1; i++) {
      if (p.stopIds?.includes(ids[i]!)) {
        n = i + 1;
        g.L = i > 0 ? ends[i - 1]! : 0;
        g.stopReason = ids[i]!;
        g.matched = ids[i]!;
        break;
      }
      const e = ends[i]!;
      if (p.stops.length > 0 && e > prevEnd) {
        // Only a window that can hold a stop string ending in this token's text is searched.
        const from = Math.max(0, prevEnd - maxStop + 1);
        const hit = firstStop(g.raw.slice(from, e), p.stops);
        if (hit) {
          n = i + 1;
          const abs = from + hit.at;
          g.L = p.includeStop ? abs + hit.stop.length : abs;
          g.stopReason = hit.stop;
          g.matched = hit.stop;
        }
      }
      prevEnd = e;
    }
    if (n === -1) return false;
    const cut = ends.slice(0, n);
    for (let i = 0; i < cut.length; i++) if (cut[i]! > g.L) cut[i] = g.L;
    g.ends = cut;
    g.ids = ids.slice(0, n);
    g.nText = n;
    return true;
  }

  /** A generation no stop cut: truncated at `maxTokens`, left open ("length"), or ended with EOS. */
  private finishUnstopped(g: Gen, p: GenParams, wouldGoOn: boolean, appendEos: boolean): void {
    const max = p.maxTokens;
    const n = g.ids.length;
    if (n > max) {
      const ends = this.ensureEnds(g);
      g.ids = g.ids.slice(0, max);
      g.ends = ends.slice(0, max);
      g.nText = max;
      g.L = max > 0 ? g.ends[max - 1]! : 0;
      g.finish = "length";
    } else if (wouldGoOn || p.ignoreEos) {
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

  logprob(g: Gen, i: number): number {
    return fakeLogprob(g.ids[i]!, i, g.seed);
  }
}

/**
 * The raw text a completion is written as (an assistant turn's body, src/chat/chatml.ts), with
 * spans saying which part of it each range is.
 */
function layOut(
  r: FakeCompletion,
  toolIdFor: (i: number) => string,
): { raw: string; spans: Span[]; calls: NormCall[]; hasReasoning: boolean } {
  const hasReasoning = typeof r.reasoning === "string";
  const toolCalls = (r.toolCalls ?? []).map((c) => ({
    name: c.name,
    arguments: argsString(c.arguments),
  }));
  const pieces = assistantBody({
    reasoning: hasReasoning ? r.reasoning! : null,
    content: r.text ?? "",
    toolCalls,
  });
  let raw = "";
  const spans: Span[] = [];
  for (const p of pieces) {
    const kind: SpanKind =
      p.kind === "special" || p.kind === "layout" ? "markup" : (p.kind as SpanKind);
    const tool = p.tool ?? -1;
    const prev = spans[spans.length - 1];
    // Adjacent markup of the same call is one span.
    if (prev && kind === "markup" && prev.kind === "markup" && prev.tool === tool)
      prev.end += p.text.length;
    else spans.push({ start: raw.length, end: raw.length + p.text.length, kind, tool });
    raw += p.text;
  }
  const calls: NormCall[] = toolCalls.map((c, t) => ({
    name: c.name,
    args: c.arguments,
    id: r.toolCalls![t]!.id ?? toolIdFor(t),
    end: spans.findLast((s) => s.tool === t)!.end,
  }));
  return { raw, spans, calls, hasReasoning };
}

/** The earliest stop string in `window` (the first listed wins a tie), or null. */
function firstStop(window: string, stops: readonly string[]): { at: number; stop: string } | null {
  let best = -1;
  let bestStop = "";
  for (const s of stops) {
    if (!s) continue;
    const k = window.indexOf(s);
    if (k !== -1 && (best === -1 || k < best)) {
      best = k;
      bestStop = s;
    }
  }
  return best === -1 ? null : { at: best, stop: bestStop };
}

/** The parsed message of a finished generation (vLLM-style parsers). */
export function parseMessage(
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
export class LazyPrompt {
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

export class RequestInfo implements FakeRequestInfo {
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

/**
 * Walks several token streams in engine-step order (one step of each in turn, as vLLM and SGLang
 * interleave n>1 / batch outputs), `per` tokens a step. An empty stream still gets one (final) step.
 */
export function interleave(
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
export function textRange(
  g: Gen,
  ends: readonly number[],
  from: number,
  to: number,
): [number, number] {
  const a = from > 0 ? Math.min(ends[from - 1]!, g.L) : 0;
  const b = to > 0 ? Math.min(ends[to - 1]!, g.L) : 0;
  return [a, Math.max(a, b)];
}
