/**
 * Token-in/token-out for upstreams that take token ids (vLLM's /v1/completions, SGLang's /generate):
 * the gateway renders the chat template itself, sends ids, and turns the sampled ids back into a
 * Chat Completion. A multi-turn prompt is built from the previous call's prompt ids + the ids it
 * sampled, so the model's own tokens are never re-tokenized (DESIGN.md §2).
 *
 * Shared here by both adapters: prompt building (`buildPromptIds`), and `TitoChatRun`, which turns
 * sampled ids into text, reasoning and tool calls the same way whether they arrive in one response
 * or chunk by chunk, so a streamed call records exactly what the non-streamed one would. The
 * adapters import from here, never the other way (`titoAdapters` in tito-adapters.ts builds them).
 */
import { TOOL_CALL_OPEN as TOOL_OPEN } from "../../chat/chatml.js";
import {
  type ChatRenderer,
  collectDeltas,
  type Delta,
  PrefixMismatchError,
  promptOpensReasoning,
  type StreamParser,
} from "../../hf/index.js";
import { secureRandomBytes } from "../../random.js";
import {
  type ChatCompletion,
  type ChatCompletionChoice,
  type ChatCompletionChunk,
  type ChatCompletionChunkChoice,
  type ChatCompletionRequest,
  type ChatMessage,
  contentText,
  type TokenLogprob,
  type Tool,
  type ToolCall,
  type Usage,
} from "../../types/index.js";
import { HttpError } from "../errors.js";
import type { ChatCall, ChatOutcome, PromptState } from "./types.js";
import type { Upstream } from "./upstream.js";

// ---------------------------------------------------------------------------------------------
// Prompt building
// ---------------------------------------------------------------------------------------------

export interface BuiltPrompt {
  ids: number[];
  /** The rendered prompt text (a full render only; an extended prompt's text is not rebuilt). */
  text?: string;
  /** How the ids were built, for the trace. */
  note: string;
  /** Whether ids continue the previous call's prompt + sampled ids. */
  extended: boolean;
  /** The prompt leaves a `<think>` block open: the completion starts inside the reasoning. */
  opensReasoning: boolean;
  /** Tools and template options the prompt was rendered with, to compare with the next call. */
  optionsKey: string;
}

/**
 * The prompt ids for a chat call: the previous prompt extended with the new turns when the
 * conversation continues the previous call exactly, else a full render of the conversation.
 */
export function buildPromptIds(renderer: ChatRenderer, call: ChatCall): BuiltPrompt {
  const messages = call.request.messages;
  const tools = toolsOf(call.request);
  const templateKwargs = templateKwargsOf(call.request);
  const opts = { tools, templateKwargs };
  const optionsKey = canonicalJson({
    tools: tools ?? null,
    templateKwargs: templateKwargs ?? null,
  });

  const render = (note: string): BuiltPrompt => {
    const { text, ids } = renderer.renderPrompt(messages, opts);
    return {
      ids,
      text,
      note,
      extended: false,
      opensReasoning: promptOpensReasoning(text),
      optionsKey,
    };
  };

  const prev = call.previous;
  if (!prev) return render("rendered: first call");
  // A prompt built with other tools must not be extended: its system turn lists the old ones.
  if (prev.renderKey !== undefined && prev.renderKey !== optionsKey) {
    return render("rendered: tools or chat_template_kwargs differ from the previous call");
  }
  const match = matchPrevious(prev, messages);
  if ("reason" in match) return render(`rendered: ${match.reason}`);
  const chosen = prev.choices[match.choice]!;
  try {
    const ext = renderer.extendPrompt(
      { promptIds: prev.promptIds, completionIds: chosen.completionIds },
      messages,
      match.assistantIndex,
      opts,
    );
    return {
      ids: ext.ids,
      note:
        match.choice === 0
          ? "extended previous prompt"
          : `extended previous prompt (choice ${match.choice})`,
      extended: true,
      opensReasoning: promptOpensReasoning(ext.appendedText),
      optionsKey,
    };
  } catch (err) {
    if (err instanceof PrefixMismatchError)
      return render(`rendered: prefix mismatch (${err.message})`);
    throw err;
  }
}

type PreviousMatch = { assistantIndex: number; choice: number } | { reason: string };

/**
 * Whether `messages` is the previous call's messages, then one of the replies it sampled, then at
 * least one new message.
 */
function matchPrevious(prev: PromptState, messages: ChatMessage[]): PreviousMatch {
  const m = prev.messages.length;
  const n = Math.min(m, messages.length);
  for (let i = 0; i < n; i++) {
    if (!sameJson(messages[i], prev.messages[i])) {
      return { reason: `history differs from the previous call at message ${i}` };
    }
  }
  if (messages.length <= m) {
    return { reason: `history differs from the previous call at message ${messages.length}` };
  }
  const reply = messages[m]!;
  const choice =
    reply.role === "assistant" ? prev.choices.findIndex((c) => sameReply(reply, c.message)) : -1;
  if (choice < 0) {
    return {
      reason: `history differs from the previous call at message ${m} (not the reply it sampled)`,
    };
  }
  if (messages.length === m + 1) {
    return { reason: "no new message after the previous call's reply" };
  }
  return { assistantIndex: m, choice };
}

/**
 * The agent sent back a reply the previous call sampled. Agents reformat what they echo: content
 * parts vs a string, surrounding whitespace, tool-call arguments re-serialised, reasoning dropped.
 * None of that matters, because the sampled ids stand in for the message; edited text does.
 */
function sameReply(sent: ChatMessage, sampled: PromptState["choices"][number]["message"]): boolean {
  if (contentText(sent.content).trim() !== (sampled.content ?? "").trim()) return false;
  const reasoning = reasoningOf(sent);
  if (reasoning && reasoning.trim() !== (reasoningOf(sampled) ?? "").trim()) return false;
  const a = sent.tool_calls ?? [];
  const b = sampled.tool_calls ?? [];
  if (a.length !== b.length) return false;
  return a.every((call, i) => sameToolCall(call, b[i]!));
}

function reasoningOf(m: { reasoning_content?: unknown; reasoning?: unknown }): string | null {
  const r = m.reasoning_content ?? m.reasoning;
  return typeof r === "string" ? r : null;
}

function sameToolCall(a: ToolCall, b: ToolCall): boolean {
  if (a.function?.name !== b.function?.name) return false;
  const x = a.function?.arguments ?? "";
  const y = b.function?.arguments ?? "";
  if (x === y) return true;
  try {
    return sameJson(JSON.parse(x), JSON.parse(y));
  } catch {
    return x.trim() === y.trim();
  }
}

/** Deep equality of JSON-like values, ignoring key order and keys whose value is undefined. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const kx = Object.keys(x).filter((k) => x[k] !== undefined);
  const ky = Object.keys(y).filter((k) => y[k] !== undefined);
  if (kx.length !== ky.length) return false;
  for (const k of kx) if (!sameJson(x[k], y[k])) return false;
  return true;
}

function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== "object") return JSON.stringify(v) ?? "null";
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(",")}]`;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(",")}}`;
}

function toolsOf(request: ChatCompletionRequest): Tool[] | undefined {
  return request.tools && request.tools.length > 0 ? request.tools : undefined;
}

function templateKwargsOf(request: ChatCompletionRequest): Record<string, unknown> | undefined {
  const k = (request as { chat_template_kwargs?: unknown }).chat_template_kwargs;
  if (k === undefined || k === null) return undefined;
  if (typeof k !== "object" || Array.isArray(k)) {
    throw new HttpError(
      400,
      "invalid chat completion request: chat_template_kwargs: must be an object",
    );
  }
  return k as Record<string, unknown>;
}

/** The request's stop strings, as a list. */
export function stopStrings(stop: unknown): string[] {
  if (typeof stop === "string") return stop ? [stop] : [];
  if (Array.isArray(stop))
    return stop.filter((s): s is string => typeof s === "string" && s !== "");
  return [];
}

/** `max_tokens`, or the newer `max_completion_tokens`; null when neither is set. */
export function maxTokensOf(request: Record<string, unknown>): number | null {
  const v = request.max_tokens ?? request.max_completion_tokens;
  return typeof v === "number" ? v : null;
}

/**
 * The ids that end sampling: `eosIds` (unless the agent asked for `ignore_eos`) and the agent's own
 * `stop_token_ids`, each once.
 */
export function stopTokenIds(
  request: Record<string, unknown>,
  eosIds: readonly number[],
): number[] {
  const agentStopIds = Array.isArray(request.stop_token_ids)
    ? request.stop_token_ids.filter((x): x is number => Number.isInteger(x))
    : [];
  const eos = request.ignore_eos === true ? [] : eosIds;
  return [...new Set([...eos, ...agentStopIds])];
}

/**
 * The choices of a finished upstream answer in index order. An answer with no choice, or with a
 * choice that never got a finish reason (a stream cut off mid-way), is the upstream's fault: 502.
 */
export function finishedChoices<C extends { index: number; finishReason: string | null }>(
  choices: ReadonlyMap<number, C>,
): C[] {
  if (choices.size === 0) {
    throw new HttpError(502, "upstream returned no choices", "upstream_error");
  }
  for (const c of choices.values()) {
    if (c.finishReason === null) {
      throw new HttpError(
        502,
        `upstream stream ended before choice ${c.index} finished`,
        "upstream_error",
      );
    }
  }
  return [...choices.values()].sort((a, b) => a.index - b.index);
}

// ---------------------------------------------------------------------------------------------
// Sampled ids → text
// ---------------------------------------------------------------------------------------------

/**
 * Decodes ids as they arrive, emitting only text that later ids cannot change: a character whose
 * bytes are split across tokens decodes to U+FFFD until its last byte arrives, so text ending in
 * U+FFFD is held back. Only a window of recent ids is decoded each time (vLLM's prefix/read offsets),
 * which keeps long streams linear.
 */
class IncrementalDecoder {
  private readonly ids: number[] = [];
  private prefix = 0;
  private read = 0;

  constructor(
    private readonly renderer: ChatRenderer,
    private readonly skip: ReadonlySet<number>,
  ) {}

  push(ids: readonly number[]): string {
    for (const id of ids) if (!this.skip.has(id)) this.ids.push(id);
    if (this.ids.length === this.read) return "";
    const before = this.decode(this.prefix, this.read);
    const now = this.decode(this.prefix, this.ids.length);
    if (now.length <= before.length || now.endsWith("\uFFFD")) return "";
    this.prefix = this.read;
    this.read = this.ids.length;
    return now.slice(before.length);
  }

  /** The held-back rest (an incomplete character stays U+FFFD, as a full decode would show it). */
  flush(): string {
    if (this.read === this.ids.length) return "";
    const before = this.decode(this.prefix, this.read);
    const now = this.decode(this.prefix, this.ids.length);
    this.prefix = this.read = this.ids.length;
    return now.slice(before.length);
  }

  private decode(from: number, to: number): string {
    if (to <= from) return "";
    return this.renderer.decode(this.ids.slice(from, to), { skipSpecialTokens: true });
  }
}

/**
 * Cuts the text at the first stop string, as the upstream does with include_stop_str_in_output
 * false. The sampled ids keep the stop string's tokens; only the text loses it. Text that may be
 * the start of a stop string is held back until the next piece decides.
 */
class StopTrimmer {
  private buf = "";
  private stopped = false;
  private readonly hold: number;

  constructor(private readonly stops: readonly string[]) {
    this.hold = Math.max(0, ...stops.map((s) => s.length - 1));
  }

  push(text: string): string {
    if (this.stopped) return "";
    if (this.stops.length === 0) return text;
    this.buf += text;
    let cut = -1;
    for (const s of this.stops) {
      const at = this.buf.indexOf(s);
      if (at >= 0 && (cut < 0 || at < cut)) cut = at;
    }
    if (cut >= 0) {
      const out = this.buf.slice(0, cut);
      this.buf = "";
      this.stopped = true;
      return out;
    }
    const keep = Math.min(this.hold, this.buf.length);
    const out = this.buf.slice(0, this.buf.length - keep);
    this.buf = this.buf.slice(this.buf.length - keep);
    return out;
  }

  finish(): string {
    const out = this.stopped ? "" : this.buf;
    this.buf = "";
    return out;
  }
}

/** The completion text of one choice: ids → decoded text, cut at a stop string. */
export class CompletionText {
  private readonly decoder: IncrementalDecoder;
  private readonly trimmer: StopTrimmer;

  constructor(renderer: ChatRenderer, stops: readonly string[]) {
    // End-of-turn ids end the completion; they are never part of its text.
    this.decoder = new IncrementalDecoder(renderer, new Set(renderer.eosTokenIds));
    this.trimmer = new StopTrimmer(stops);
  }

  push(ids: readonly number[]): string {
    return this.trimmer.push(this.decoder.push(ids));
  }

  finish(): string {
    return this.trimmer.push(this.decoder.flush()) + this.trimmer.finish();
  }
}

/** What `<tool_call>` is turned into when tool calls must not be parsed (private-use characters). */
const TOOL_OPEN_ESCAPED = "\uE000rllm-tool-call\uE001";

/**
 * Hides `<tool_call>` from the parser when the request has no tools (or tool_choice "none"): the
 * markup then stays in the content as the model wrote it, as vLLM does without a tool parser.
 */
class ToolMarkupEscaper {
  private buf = "";

  push(text: string): string {
    this.buf += text;
    let keep = 0;
    for (let n = Math.min(this.buf.length, TOOL_OPEN.length - 1); n > 0; n--) {
      if (this.buf.endsWith(TOOL_OPEN.slice(0, n))) {
        keep = n;
        break;
      }
    }
    const out = this.buf.slice(0, this.buf.length - keep);
    this.buf = this.buf.slice(this.buf.length - keep);
    return out.replaceAll(TOOL_OPEN, TOOL_OPEN_ESCAPED);
  }

  finish(): string {
    const out = this.buf;
    this.buf = "";
    return out;
  }
}

function unescapeDeltas(deltas: Delta[]): Delta[] {
  return deltas.map((d) => {
    if ("content" in d) return { content: d.content.replaceAll(TOOL_OPEN_ESCAPED, TOOL_OPEN) };
    if ("reasoning_content" in d) {
      return { reasoning_content: d.reasoning_content.replaceAll(TOOL_OPEN_ESCAPED, TOOL_OPEN) };
    }
    return d;
  });
}

// ---------------------------------------------------------------------------------------------
// Sampled ids → Chat Completion
// ---------------------------------------------------------------------------------------------

export interface SampledChoice {
  index: number;
  completionIds: number[];
  /** Logprob of each sampled id; null where the upstream gave none. */
  logprobs: (number | null)[] | null;
  /** The upstream's finish reason ("stop", "length", ...). */
  finishReason: string;
  /** What stopped it (a stop string or token id), when the upstream says. */
  stopReason?: string | number | null | undefined;
}

export interface ChatResultMeta {
  /** Response id; default a fresh `chatcmpl-…`. */
  id?: string;
  created?: number;
  model: string;
  /** The prompt ids the upstream reports having used; default the ids sent. */
  promptIds?: number[] | null;
}

/** Turns sampled choices into the call's ChatOutcome (the non-streaming path). */
export function toChatResult(
  renderer: ChatRenderer,
  call: ChatCall,
  prompt: BuiltPrompt,
  sampled: readonly SampledChoice[],
  meta: ChatResultMeta,
): ChatOutcome {
  const run = new TitoChatRun(renderer, call, prompt, meta, false);
  if (meta.promptIds) run.setPromptIds(meta.promptIds);
  for (const s of sampled) {
    run.step(s.index, s.completionIds, s.logprobs, {
      reason: s.finishReason,
      stopReason: s.stopReason,
    });
  }
  return run.outcome();
}

interface ChoiceRun {
  index: number;
  started: boolean;
  ids: number[];
  logprobs: number[];
  logprobsComplete: boolean;
  text: CompletionText;
  escaper: ToolMarkupEscaper | null;
  parser: StreamParser;
  deltas: Delta[];
  toolCalls: number;
  finishReason: string | null;
  stopReason: string | number | null;
}

/**
 * One chat call's sampled ids, fed as they arrive (`step` per upstream chunk and choice, or once per
 * choice for a whole response). When streaming it emits canonical chunks through `call.onChunk`:
 * a role chunk per choice, then one chunk per step with the text, reasoning and tool-call deltas,
 * that step's token ids and logprobs, and the finish reason on the last; `outcome()` sends a usage
 * chunk and returns the same ChatOutcome the non-streaming path builds from the same ids.
 */
export class TitoChatRun {
  private readonly id: string;
  private readonly created: number;
  private model: string;
  private promptIds: number[];
  private readonly choices = new Map<number, ChoiceRun>();
  private readonly parseTools: boolean;
  private readonly stops: string[];
  private sentPromptIds = false;

  constructor(
    private readonly renderer: ChatRenderer,
    private readonly call: ChatCall,
    private readonly prompt: BuiltPrompt,
    meta: ChatResultMeta,
    private readonly streaming: boolean,
  ) {
    this.id = meta.id ?? `chatcmpl-${randomHex(16)}`;
    this.created = meta.created ?? Math.floor(Date.now() / 1000);
    this.model = meta.model;
    this.promptIds = prompt.ids;
    const req = call.request;
    this.parseTools = toolsOf(req) !== undefined && req.tool_choice !== "none";
    const includeStop =
      (req as { include_stop_str_in_output?: unknown }).include_stop_str_in_output === true;
    this.stops = includeStop ? [] : stopStrings(req.stop);
  }

  /**
   * The run of an adapter's chat call on `u`: reported under the model the agent named, else the
   * upstream's; streaming when the agent takes chunks.
   */
  static forCall(
    renderer: ChatRenderer,
    u: Upstream,
    call: ChatCall,
    prompt: BuiltPrompt,
  ): TitoChatRun {
    const meta = { model: call.model ?? u.model ?? "" };
    return new TitoChatRun(renderer, call, prompt, meta, call.onChunk !== undefined);
  }

  setModel(model: string | undefined): void {
    if (model) this.model = model;
  }

  /** The prompt ids the upstream used, when it reports them (they should equal those sent). */
  setPromptIds(ids: number[]): void {
    if (!sameIds(ids, this.promptIds)) this.promptIds = ids;
  }

  get finishedAll(): boolean {
    for (const c of this.choices.values()) if (c.finishReason === null) return false;
    return this.choices.size > 0;
  }

  step(
    index: number,
    ids: readonly number[],
    logprobs: readonly (number | null)[] | null,
    finish?: { reason: string; stopReason?: string | number | null | undefined },
  ): void {
    const c = this.choice(index);
    if (c.finishReason !== null) {
      throw new HttpError(
        502,
        `upstream sent tokens for choice ${index} after it finished`,
        "upstream_error",
      );
    }
    if (this.streaming && !c.started) this.emitRole(c);
    c.started = true;
    for (const id of ids) c.ids.push(id);
    // A step that sampled nothing (a bare finish event) has no logprobs to miss.
    if (ids.length > 0) {
      if (!logprobs || logprobs.length !== ids.length) c.logprobsComplete = false;
      else
        for (const lp of logprobs) {
          if (typeof lp === "number") c.logprobs.push(lp);
          else c.logprobsComplete = false;
        }
    }
    const deltas = this.parse(c, c.text.push(ids), false);
    if (finish) deltas.push(...this.parse(c, c.text.finish(), true));
    for (const d of deltas) {
      c.deltas.push(d);
      if ("tool_call" in d) c.toolCalls++;
    }
    if (finish) {
      c.finishReason = finish.reason === "stop" && c.toolCalls > 0 ? "tool_calls" : finish.reason;
      c.stopReason = finish.stopReason ?? null;
    }
    if (!this.streaming) return;
    if (ids.length === 0 && deltas.length === 0 && !finish) return;
    const choice: ChatCompletionChunkChoice = {
      index,
      delta: chunkDelta(deltas),
      logprobs:
        logprobs && logprobs.length === ids.length && logprobs.every((x) => typeof x === "number")
          ? { content: ids.map((id, i) => this.tokenLogprob(id, logprobs[i]!)) }
          : null,
      finish_reason: c.finishReason,
      token_ids: [...ids],
    };
    if (finish && c.stopReason !== null) choice.stop_reason = c.stopReason;
    this.emit([choice]);
  }

  /** The folded result; when streaming, first sends the usage chunk. */
  outcome(): ChatOutcome {
    const runs = finishedChoices(this.choices);
    const usage = this.usage(runs);
    if (this.streaming) this.emit([], { usage });
    const choices: ChatCompletionChoice[] = runs.map((c) => {
      const parsed = collectDeltas(c.deltas);
      const message: ChatCompletionChoice["message"] = {
        role: "assistant",
        content: parsed.content ?? (parsed.tool_calls.length > 0 ? null : ""),
      };
      if (parsed.reasoning_content !== null) message.reasoning_content = parsed.reasoning_content;
      if (parsed.tool_calls.length > 0) message.tool_calls = parsed.tool_calls;
      const choice: ChatCompletionChoice = {
        index: c.index,
        message,
        logprobs: c.logprobsComplete
          ? { content: c.ids.map((id, i) => this.tokenLogprob(id, c.logprobs[i]!)) }
          : null,
        finish_reason: c.finishReason,
        token_ids: c.ids,
      };
      if (c.stopReason !== null) choice.stop_reason = c.stopReason;
      return choice;
    });
    const completion: ChatCompletion = {
      id: this.id,
      object: "chat.completion",
      created: this.created,
      model: this.model,
      choices,
      usage,
      prompt_token_ids: this.promptIds,
    };
    return {
      completion,
      promptIds: this.promptIds,
      choices: runs.map((c) => ({
        completionIds: c.ids,
        logprobs: c.logprobsComplete ? c.logprobs : null,
      })),
      tokenSource: "renderer",
      promptNote: this.prompt.note,
      renderKey: this.prompt.optionsKey,
    };
  }

  private usage(runs: ChoiceRun[]): Usage {
    const completion = runs.reduce((n, c) => n + c.ids.length, 0);
    return {
      prompt_tokens: this.promptIds.length,
      completion_tokens: completion,
      total_tokens: this.promptIds.length + completion,
    };
  }

  private choice(index: number): ChoiceRun {
    let c = this.choices.get(index);
    if (!c) {
      c = {
        index,
        started: false,
        ids: [],
        logprobs: [],
        logprobsComplete: true,
        text: new CompletionText(this.renderer, this.stops),
        escaper: this.parseTools ? null : new ToolMarkupEscaper(),
        parser: this.renderer.createStreamParser({ startInReasoning: this.prompt.opensReasoning }),
        deltas: [],
        toolCalls: 0,
        finishReason: null,
        stopReason: null,
      };
      this.choices.set(index, c);
    }
    return c;
  }

  private parse(c: ChoiceRun, text: string, final: boolean): Delta[] {
    if (!c.escaper) {
      const out = text ? c.parser.push(text) : [];
      if (final) out.push(...c.parser.finish());
      return out;
    }
    let escaped = c.escaper.push(text);
    if (final) escaped += c.escaper.finish();
    const out = escaped ? c.parser.push(escaped) : [];
    if (final) out.push(...c.parser.finish());
    return unescapeDeltas(out);
  }

  private tokenLogprob(id: number, logprob: number): TokenLogprob {
    return {
      token: this.renderer.tokenText(id),
      logprob,
      bytes: this.renderer.tokenBytes(id),
      top_logprobs: [],
    };
  }

  private emitRole(c: ChoiceRun): void {
    const extra: Partial<ChatCompletionChunk> = {};
    if (!this.sentPromptIds) {
      extra.prompt_token_ids = this.promptIds;
      this.sentPromptIds = true;
    }
    this.emit(
      [
        {
          index: c.index,
          delta: { role: "assistant", content: "" },
          logprobs: null,
          finish_reason: null,
        },
      ],
      extra,
    );
  }

  private emit(choices: ChatCompletionChunkChoice[], extra: Partial<ChatCompletionChunk> = {}) {
    const chunk: ChatCompletionChunk = {
      id: this.id,
      object: "chat.completion.chunk",
      created: this.created,
      model: this.model,
      choices,
      ...extra,
    };
    this.call.onChunk?.(chunk);
  }
}

function chunkDelta(deltas: readonly Delta[]): ChatCompletionChunkChoice["delta"] {
  const delta: ChatCompletionChunkChoice["delta"] = {};
  let content = "";
  let reasoning = "";
  const calls: NonNullable<ChatCompletionChunkChoice["delta"]["tool_calls"]> = [];
  for (const d of deltas) {
    if ("content" in d) content += d.content;
    else if ("reasoning_content" in d) reasoning += d.reasoning_content;
    else {
      const t = d.tool_call;
      calls.push({
        index: t.index,
        id: t.id,
        type: "function",
        function: { name: t.name, arguments: t.arguments },
      });
    }
  }
  if (reasoning) delta.reasoning_content = reasoning;
  if (content) delta.content = content;
  if (calls.length > 0) delta.tool_calls = calls;
  return delta;
}

function sameIds(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function randomHex(bytes: number): string {
  return secureRandomBytes(bytes).toString("hex");
}

/** A number from a JSON value, or undefined. */
export function num(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

/** Sets `out[key]` when `value` is neither undefined nor null. */
export function setIf(out: Record<string, unknown>, key: string, value: unknown): void {
  if (value !== undefined && value !== null) out[key] = value;
}
