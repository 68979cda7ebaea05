/**
 * The gateway's token-in/token-out renderer: a model's chat template and tokenizer behind one
 * interface, plus `extendPrompt`, which builds a multi-turn prompt from the previous prompt's ids
 * and the sampled completion ids instead of re-tokenizing text the model produced.
 */
import type { Tokenizer } from "@huggingface/tokenizers";
import type { ChatMessage, Tool } from "../types/chat.js";
import type { CachedEncoder } from "./encoder.js";
import { PrefixMismatchError } from "./errors.js";
import {
  createStreamParser,
  type ParsedCompletion,
  type ParseOptions,
  parseCompletion,
  type StreamParser,
} from "./parse.js";
import type { ChatTemplate } from "./template.js";

export interface RenderOptions {
  tools?: Tool[] | undefined;
  /** Append the header that opens the assistant's turn. Default true. */
  addGenerationPrompt?: boolean | undefined;
  /** Extra template variables, e.g. `{ enable_thinking: false }`. */
  templateKwargs?: Record<string, unknown> | undefined;
}

export interface RenderedPrompt {
  text: string;
  ids: number[];
}

export interface PreviousCall {
  /** The prompt ids sent for the call that sampled the assistant message. */
  promptIds: readonly number[];
  /** The ids it sampled, exactly as the upstream returned them. */
  completionIds: readonly number[];
}

export interface ExtendedPrompt {
  /** previous prompt + completion (+ end-of-turn when it was missing) + encode(appendedText). */
  ids: number[];
  /** The template's text after the assistant turn's end-of-turn marker: the new turns and the generation prompt. */
  appendedText: string;
  /** Whether the end-of-turn ids were added because the completion did not end with one. */
  closedTurn: boolean;
}

export interface ChatRenderer {
  /** Renders the conversation (byte-identical to transformers' apply_chat_template) and encodes it. */
  renderPrompt(messages: ChatMessage[], opts?: RenderOptions): RenderedPrompt;
  /** The template's text alone, without encoding. */
  renderText(messages: ChatMessage[], opts?: RenderOptions): string;
  /** Text → ids; special-token text such as "<|im_start|>" becomes its single id. No BOS is added: templates write it. */
  encode(text: string): number[];
  decode(ids: readonly number[], opts?: { skipSpecialTokens?: boolean }): string;
  /**
   * The text of one token as it would appear in the decoded output, for logprob `token` strings
   * (a token that is part of a multi-byte character shows as U+FFFD; `tokenBytes` has its bytes).
   */
  tokenText(id: number): string;
  /** The raw bytes of one token, for logprob `bytes`. */
  tokenBytes(id: number): number[];
  /** The vocabulary entry of one token (e.g. "Ġhello" in byte-level BPE), or undefined. */
  tokenPiece(id: number): string | undefined;
  /** Ids that end an assistant turn: generation_config's eos ids, the tokenizer's eos, the template's end-of-turn. */
  readonly eosTokenIds: readonly number[];
  /** The template's end-of-turn marker, e.g. "<|im_end|>" for ChatML; null when it has none made of special tokens. */
  readonly endOfTurn: { text: string; ids: readonly number[] } | null;
  /** One past the largest token id the tokenizer knows (base vocabulary plus added tokens). */
  readonly vocabSize: number;
  /**
   * Builds the prompt for the turn after `messages[assistantIndex]` as
   * `prev.promptIds + prev.completionIds (+ end-of-turn) + encode(new turns)`.
   * @throws PrefixMismatchError when the template renders the earlier conversation differently
   *   once the new turns follow it; render the whole conversation instead.
   */
  extendPrompt(
    prev: PreviousCall,
    messages: ChatMessage[],
    assistantIndex: number,
    opts?: RenderOptions,
  ): ExtendedPrompt;
  /** Splits a completion into reasoning, content and tool calls (Qwen/Hermes format). */
  parseCompletion(text: string, opts?: ParseOptions): ParsedCompletion;
  createStreamParser(opts?: ParseOptions): StreamParser;
}

/** What the loader hands the renderer; everything is already validated. */
export interface RendererParts {
  tokenizer: Tokenizer;
  template: ChatTemplate;
  /** id → added-token content, for the end-of-turn probe and byte lookup. */
  addedTokens: Map<number, string>;
  /** The tokenizer's encode behind a cache of the pieces between special tokens. */
  encoder: CachedEncoder;
  /** Whether the decoder is byte-level BPE (pieces are bytes mapped to printable characters). */
  byteLevel: boolean;
  /** eos ids from generation_config.json, and the tokenizer_config `eos_token`. */
  configuredEosIds: number[];
  vocabSize: number;
}

/**
 * Put in place of an assistant message's content so the message can be found in a rendering
 * whatever the template does around it: no whitespace (templates strip), no tag characters.
 */
const SENTINEL = "RLLMASSISTANTSENTINEL7f3e9c";

export class HfChatRenderer implements ChatRenderer {
  readonly eosTokenIds: readonly number[];
  readonly endOfTurn: { text: string; ids: readonly number[] } | null;
  readonly vocabSize: number;
  private readonly tokenizer: Tokenizer;
  private readonly template: ChatTemplate;
  private readonly parts: RendererParts;
  private readonly eosSet: Set<number>;
  private readonly textCache: (string | undefined)[] = [];

  constructor(parts: RendererParts) {
    this.parts = parts;
    this.tokenizer = parts.tokenizer;
    this.template = parts.template;
    this.vocabSize = parts.vocabSize;
    this.endOfTurn = this.probeEndOfTurn();
    const eos = [...parts.configuredEosIds, ...(this.endOfTurn?.ids.slice(0, 1) ?? [])];
    this.eosTokenIds = [...new Set(eos)];
    this.eosSet = new Set(this.eosTokenIds);
  }

  renderText(messages: ChatMessage[], opts: RenderOptions = {}): string {
    return this.template.render({
      messages,
      tools: opts.tools,
      addGenerationPrompt: opts.addGenerationPrompt ?? true,
      templateKwargs: opts.templateKwargs,
    });
  }

  renderPrompt(messages: ChatMessage[], opts: RenderOptions = {}): RenderedPrompt {
    const text = this.renderText(messages, opts);
    return { text, ids: this.encode(text) };
  }

  encode(text: string): number[] {
    return this.parts.encoder.encode(text);
  }

  decode(ids: readonly number[], opts: { skipSpecialTokens?: boolean } = {}): string {
    if (ids.length === 0) return "";
    return this.tokenizer.decode(ids as number[], {
      skip_special_tokens: opts.skipSpecialTokens ?? false,
    });
  }

  tokenText(id: number): string {
    const cached = this.textCache[id];
    if (cached !== undefined) return cached;
    const text = this.tokenizer.decode([id], { skip_special_tokens: false });
    this.textCache[id] = text;
    return text;
  }

  tokenBytes(id: number): number[] {
    const added = this.parts.addedTokens.get(id);
    if (added !== undefined) return [...Buffer.from(added, "utf8")];
    const piece = this.tokenPiece(id);
    if (piece !== undefined && this.parts.byteLevel) {
      const bytes: number[] = [];
      for (const ch of piece) {
        const b = BYTE_LEVEL_DECODER.get(ch);
        if (b === undefined) return [...Buffer.from(this.tokenText(id), "utf8")];
        bytes.push(b);
      }
      return bytes;
    }
    return [...Buffer.from(this.tokenText(id), "utf8")];
  }

  tokenPiece(id: number): string | undefined {
    return this.parts.addedTokens.get(id) ?? this.tokenizer.id_to_token(id);
  }

  /*
   * Why this shape. A multi-turn prompt must continue the ids the model actually saw and sampled:
   * re-rendering and re-tokenizing the conversation would change them (BPE merges across the
   * completion boundary, JSON re-serialisation of tool calls, and Qwen3's template dropping the
   * reasoning of earlier turns), and the training row would then hold tokens that were never
   * sampled. So only the new turns are rendered, and they must be exactly the text the template
   * puts after this assistant turn.
   *
   * How. Two renders of the conversation with every assistant's reasoning removed (so the
   * "drop earlier reasoning" rule has nothing to drop, whatever turn is last), and with this
   * assistant's content replaced by a sentinel:
   *   B = the messages before the assistant (no generation prompt),
   *   F = the whole conversation (with the generation prompt).
   * F must start with B: otherwise the template rewrites history when turns are added (e.g. it
   * moves the system prompt into the last user turn), the previous prompt is not a prefix of what
   * the model would see, and we refuse (PrefixMismatchError) so the caller renders afresh. The
   * new turns are F after the first end-of-turn marker that follows the sentinel.
   *
   * Comparing a render that *ends* at the assistant (the obvious "F starts with A") does not work
   * for Qwen3: its template gives the last assistant message an empty "<think>\n\n</think>\n\n"
   * block, so A's assistant turn never matches F's; the sentinel sidesteps the assistant's own
   * rendering, which the completion ids replace anyway.
   */
  extendPrompt(
    prev: PreviousCall,
    messages: ChatMessage[],
    assistantIndex: number,
    opts: RenderOptions = {},
  ): ExtendedPrompt {
    const k = assistantIndex;
    if (!Number.isInteger(k) || k < 0 || k >= messages.length) {
      throw new RangeError(
        `assistantIndex ${k} is outside messages (length ${messages.length}); pass the index of the assistant message the previous call sampled`,
      );
    }
    const target = messages[k]!;
    if (target.role !== "assistant") {
      throw new RangeError(
        `messages[${k}] has role "${target.role}"; extendPrompt needs the assistant message the previous call sampled`,
      );
    }
    const eot = this.endOfTurn;
    if (eot === null) {
      throw new PrefixMismatchError(
        "this chat template has no end-of-turn marker made of special tokens, so the new turns cannot be appended to token ids; render the whole conversation instead",
      );
    }

    const normalized = messages.map((m, i) =>
      i === k ? sentinelAssistant(m) : m.role === "assistant" ? withoutReasoning(m) : m,
    );
    const renderOpts = { tools: opts.tools, templateKwargs: opts.templateKwargs };
    const full = this.template.render({
      ...renderOpts,
      messages: normalized,
      addGenerationPrompt: opts.addGenerationPrompt ?? true,
    });
    const before =
      k === 0
        ? this.renderOrEmpty(normalized.slice(0, 0), renderOpts)
        : this.template.render({
            ...renderOpts,
            messages: normalized.slice(0, k),
            addGenerationPrompt: false,
          });
    if (!full.startsWith(before)) {
      const at = firstDifference(full, before);
      throw new PrefixMismatchError(
        `the chat template renders the conversation before messages[${k}] differently once later turns follow ` +
          `(first difference at character ${at}: ${JSON.stringify(before.slice(at, at + 40))} vs ${JSON.stringify(full.slice(at, at + 40))}); ` +
          "render the whole conversation instead",
        at,
      );
    }
    const s = full.indexOf(SENTINEL, before.length);
    if (s < 0) {
      throw new PrefixMismatchError(
        `the chat template does not render the content of messages[${k}] (the assistant turn), so its end cannot be located; render the whole conversation instead`,
      );
    }
    const e = full.indexOf(eot.text, s + SENTINEL.length);
    if (e < 0) {
      throw new PrefixMismatchError(
        `the chat template renders no ${JSON.stringify(eot.text)} after messages[${k}]; render the whole conversation instead`,
      );
    }
    const appendedText = full.slice(e + eot.text.length);

    const completion = prev.completionIds;
    const last = completion.length > 0 ? completion[completion.length - 1]! : undefined;
    // A completion cut by max_tokens or a stop string has no end-of-turn id; the template's turn
    // always has one, so it is appended (as prompt, never as sampled tokens). A completion that
    // ended on any eos id (e.g. Qwen's <|endoftext|> rather than <|im_end|>) is kept as sampled.
    const closedTurn = last === undefined || !this.eosSet.has(last);
    const ids: number[] = [];
    for (const id of prev.promptIds) ids.push(id);
    for (const id of completion) ids.push(id);
    if (closedTurn) for (const id of eot.ids) ids.push(id);
    // The new turns begin right after a special token, which the tokenizer never merges across,
    // so encoding them alone gives the same ids as encoding the whole text would.
    for (const id of this.encode(appendedText)) ids.push(id);
    return { ids, appendedText, closedTurn };
  }

  parseCompletion(text: string, opts?: ParseOptions): ParsedCompletion {
    return parseCompletion(text, opts);
  }

  createStreamParser(opts?: ParseOptions): StreamParser {
    return createStreamParser(opts);
  }

  private renderOrEmpty(
    messages: ChatMessage[],
    opts: { tools?: Tool[] | undefined; templateKwargs?: Record<string, unknown> | undefined },
  ): string {
    // With the assistant first, "the conversation before it" is empty; many templates index
    // messages[0] and fail on an empty list, which here just means nothing precedes it.
    try {
      return this.template.render({ ...opts, messages, addGenerationPrompt: false });
    } catch {
      return "";
    }
  }

  /**
   * Finds the end-of-turn marker by rendering a one-exchange conversation and reading what the
   * template writes right after the assistant's content: the leading run of added tokens there
   * (ChatML "<|im_end|>", Llama 3 "<|eot_id|>", Gemma "<end_of_turn>").
   */
  private probeEndOfTurn(): { text: string; ids: readonly number[] } | null {
    const probes: ChatMessage[][] = [
      [
        { role: "user", content: "Hi" },
        { role: "assistant", content: SENTINEL },
      ],
      [
        { role: "system", content: "S" },
        { role: "user", content: "Hi" },
        { role: "assistant", content: SENTINEL },
      ],
    ];
    for (const messages of probes) {
      let text: string;
      try {
        text = this.template.render({ messages, addGenerationPrompt: false });
      } catch {
        continue;
      }
      const at = text.lastIndexOf(SENTINEL);
      if (at < 0) continue;
      const after = text.slice(at + SENTINEL.length);
      const ids: number[] = [];
      let consumed = "";
      for (const id of this.encode(after)) {
        const added = this.parts.addedTokens.get(id);
        if (added === undefined) break;
        ids.push(id);
        consumed += added;
      }
      if (ids.length > 0 && after.startsWith(consumed)) return { text: consumed, ids };
    }
    return null;
  }
}

function withoutReasoning(m: ChatMessage): ChatMessage {
  const { reasoning_content: _dropped, ...rest } = m;
  if (typeof rest.content === "string" && rest.content.includes("</think>")) {
    // The same cut Qwen3's template makes for reasoning written inline in the content.
    rest.content = rest.content.slice(rest.content.lastIndexOf("</think>") + 8).replace(/^\n+/, "");
  }
  return rest;
}

function sentinelAssistant(m: ChatMessage): ChatMessage {
  const { reasoning_content: _dropped, ...rest } = m;
  rest.content = SENTINEL;
  if (rest.tool_calls) {
    // Kept because a template may render the following tool turns differently after a call;
    // the arguments are emptied so no agent-supplied text can imitate the end-of-turn marker.
    rest.tool_calls = rest.tool_calls.map((c) => ({
      ...c,
      function: { ...c.function, arguments: "{}" },
    }));
  }
  return rest;
}

function firstDifference(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a.charCodeAt(i) !== b.charCodeAt(i)) return i;
  return n;
}

/** GPT-2's bytes_to_unicode, inverted: printable stand-in character → byte. */
const BYTE_LEVEL_DECODER: Map<string, number> = (() => {
  const printable: number[] = [];
  for (let b = 33; b <= 126; b++) printable.push(b);
  for (let b = 161; b <= 172; b++) printable.push(b);
  for (let b = 174; b <= 255; b++) printable.push(b);
  const map = new Map<string, number>();
  const taken = new Set(printable);
  for (const b of printable) map.set(String.fromCharCode(b), b);
  let n = 0;
  for (let b = 0; b < 256; b++) {
    if (taken.has(b)) continue;
    map.set(String.fromCharCode(256 + n), b);
    n++;
  }
  return map;
})();
