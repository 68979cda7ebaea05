/**
 * The embedded model's tokenizer: byte-level, plus a handful of special tokens.
 *
 * Bytes rather than a learned BPE vocabulary because the local model must work with no download
 * and no training data for a merge table, and because a byte vocabulary makes decode exact: any
 * id sequence maps to exactly one byte string, so token-in/token-out holds trivially.
 *
 * Id table (fixed; checkpoints record it, so never renumber):
 *
 * | id      | token             | role                                    |
 * |---------|-------------------|-----------------------------------------|
 * | 0–255   | the byte 0x00–0xFF | UTF-8 bytes of ordinary text           |
 * | 256     | `<|pad|>`         | padding in batches (never trained on)   |
 * | 257     | `<|endoftext|>`   | end of document; an EOS                 |
 * | 258     | `<|im_start|>`    | opens a ChatML turn                     |
 * | 259     | `<|im_end|>`      | closes a ChatML turn; the chat EOS      |
 * | 260     | `<think>`         | opens reasoning                         |
 * | 261     | `</think>`        | closes reasoning                        |
 * | 262     | `<tool_call>`     | opens a tool call                       |
 * | 263     | `</tool_call>`    | closes a tool call                      |
 *
 * `vocabSize` is 264.
 */

export const BYTE_VOCAB_SIZE = 256;

/** Special tokens in id order; the id of `SPECIAL_TOKENS[i]` is `256 + i`. */
export const SPECIAL_TOKENS = [
  "<|pad|>",
  "<|endoftext|>",
  "<|im_start|>",
  "<|im_end|>",
  "<think>",
  "</think>",
  "<tool_call>",
  "</tool_call>",
] as const;
export type SpecialToken = (typeof SPECIAL_TOKENS)[number];

export const PAD_ID = 256;
export const ENDOFTEXT_ID = 257;
export const IM_START_ID = 258;
export const IM_END_ID = 259;
export const THINK_START_ID = 260;
export const THINK_END_ID = 261;
export const TOOL_CALL_START_ID = 262;
export const TOOL_CALL_END_ID = 263;

export const VOCAB_SIZE = BYTE_VOCAB_SIZE + SPECIAL_TOKENS.length;

/** Generation stops at either; `<|im_end|>` first because it is what chat turns end with. */
export const EOS_TOKEN_IDS: readonly number[] = [IM_END_ID, ENDOFTEXT_ID];

export interface EncodeOptions {
  /**
   * Map special-token strings found in the text to their ids (default true). Pass false for
   * untrusted text (message contents) so a user typing `<|im_end|>` cannot end a turn.
   */
  allowSpecial?: boolean;
}

export interface DecodeOptions {
  /** Drop special tokens from the output (default false: decode is exact). */
  skipSpecialTokens?: boolean;
}

/** What a checkpoint records about the tokenizer, so a load can refuse a mismatched one. */
export interface TokenizerDescription {
  kind: "byte-level";
  vocabSize: number;
  specialTokens: Record<string, number>;
  eosTokenIds: number[];
  padTokenId: number;
}

const encoder = new TextEncoder();
const SPECIAL_ID = new Map<string, number>(SPECIAL_TOKENS.map((t, i) => [t, BYTE_VOCAB_SIZE + i]));
// Alternation sorted longest first so that overlapping specials resolve to the longest match.
const SPECIAL_RE = new RegExp(
  [...SPECIAL_TOKENS]
    .sort((a, b) => b.length - a.length)
    .map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join("|"),
  "g",
);

function isSpecial(id: number): boolean {
  return id >= BYTE_VOCAB_SIZE && id < VOCAB_SIZE;
}

function checkId(id: number): void {
  if (!Number.isInteger(id) || id < 0 || id >= VOCAB_SIZE) {
    throw new RangeError(`token id ${id} is outside the byte-level vocabulary [0, ${VOCAB_SIZE})`);
  }
}

export class ByteTokenizer {
  readonly vocabSize = VOCAB_SIZE;
  readonly eosTokenIds: readonly number[] = EOS_TOKEN_IDS;
  readonly padTokenId = PAD_ID;
  readonly specialTokens: ReadonlyMap<string, number> = SPECIAL_ID;

  /** The id of a special token by its text; throws for an unknown name (a typo is a bug). */
  specialId(token: SpecialToken): number {
    const id = SPECIAL_ID.get(token);
    if (id === undefined) throw new Error(`unknown special token ${JSON.stringify(token)}`);
    return id;
  }

  encode(text: string, options: EncodeOptions = {}): number[] {
    if (options.allowSpecial === false) return Array.from(encoder.encode(text));
    const ids: number[] = [];
    let last = 0;
    for (const m of text.matchAll(SPECIAL_RE)) {
      const at = m.index ?? 0;
      if (at > last) for (const b of encoder.encode(text.slice(last, at))) ids.push(b);
      ids.push(SPECIAL_ID.get(m[0])!);
      last = at + m[0].length;
    }
    if (last < text.length) for (const b of encoder.encode(text.slice(last))) ids.push(b);
    return ids;
  }

  decode(ids: readonly number[], options: DecodeOptions = {}): string {
    let out = "";
    let bytes: number[] = [];
    const flush = () => {
      if (bytes.length > 0) {
        out += Buffer.from(bytes).toString("utf8");
        bytes = [];
      }
    };
    for (const id of ids) {
      checkId(id);
      if (isSpecial(id)) {
        flush();
        if (!options.skipSpecialTokens) out += SPECIAL_TOKENS[id - BYTE_VOCAB_SIZE];
      } else {
        bytes.push(id);
      }
    }
    flush();
    return out;
  }

  /** A streaming decoder: feed ids as they are sampled, get text that never splits a character. */
  decodeStream(options: DecodeOptions = {}): StreamDecoder {
    return new StreamDecoder(options);
  }

  /**
   * The text of one token, as a logprob entry shows it. A lone byte that is not a whole UTF-8
   * character has no text of its own, so it is shown as `bytes:\xNN` rather than U+FFFD (which
   * would hide which byte it was); clients that rebuild text must join `tokenBytes` instead.
   */
  tokenText(id: number): string {
    checkId(id);
    if (isSpecial(id)) return SPECIAL_TOKENS[id - BYTE_VOCAB_SIZE]!;
    if (id < 0x80) return String.fromCharCode(id);
    return `bytes:\\x${id.toString(16).padStart(2, "0")}`;
  }

  /** The UTF-8 bytes of one token (specials: the bytes of their text), for logprob `bytes`. */
  tokenBytes(id: number): number[] {
    checkId(id);
    if (isSpecial(id)) return Array.from(encoder.encode(SPECIAL_TOKENS[id - BYTE_VOCAB_SIZE]!));
    return [id];
  }

  isSpecial(id: number): boolean {
    return isSpecial(id);
  }

  describe(): TokenizerDescription {
    return {
      kind: "byte-level",
      vocabSize: VOCAB_SIZE,
      specialTokens: Object.fromEntries(SPECIAL_ID),
      eosTokenIds: [...EOS_TOKEN_IDS],
      padTokenId: PAD_ID,
    };
  }
}

/**
 * Length of the UTF-8 sequence a lead byte announces, or 0 for a byte that cannot lead one
 * (a continuation byte or an invalid lead), which is decoded at once as U+FFFD.
 */
function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/**
 * Holds back an incomplete trailing multibyte sequence so a stream never shows U+FFFD in the
 * middle of a character. Invalid bytes that no later byte could complete are emitted (as U+FFFD,
 * as a full decode would) rather than held forever.
 */
export class StreamDecoder {
  private pending: number[] = [];
  constructor(private readonly options: DecodeOptions = {}) {}

  /** Feed one or more ids; returns the text that is now complete (possibly ""). */
  push(ids: number | readonly number[]): string {
    let out = "";
    for (const id of typeof ids === "number" ? [ids] : ids) {
      checkId(id);
      if (isSpecial(id)) {
        out += this.drain();
        if (!this.options.skipSpecialTokens) out += SPECIAL_TOKENS[id - BYTE_VOCAB_SIZE];
        continue;
      }
      this.pending.push(id);
      out += this.emitComplete();
    }
    return out;
  }

  /** End of stream: whatever is held back is emitted (an incomplete tail becomes U+FFFD). */
  flush(): string {
    return this.drain();
  }

  private drain(): string {
    if (this.pending.length === 0) return "";
    const s = Buffer.from(this.pending).toString("utf8");
    this.pending = [];
    return s;
  }

  /** Emit everything but a trailing sequence that is still valid-so-far and incomplete. */
  private emitComplete(): string {
    const p = this.pending;
    // Find the start of the last (possibly incomplete) sequence: at most 3 bytes back.
    let start = p.length - 1;
    while (start > 0 && p.length - start < 4 && (p[start]! & 0xc0) === 0x80) start--;
    const need = sequenceLength(p[start]!);
    const have = p.length - start;
    if (need > 1 && have < need && this.validPrefix(p.slice(start))) {
      const ready = p.slice(0, start);
      this.pending = p.slice(start);
      return ready.length > 0 ? Buffer.from(ready).toString("utf8") : "";
    }
    return this.drain();
  }

  /** Whether bytes could still become a valid character (second-byte ranges from RFC 3629). */
  private validPrefix(seq: number[]): boolean {
    const [lead, second] = seq;
    for (let i = 1; i < seq.length; i++) if ((seq[i]! & 0xc0) !== 0x80) return false;
    if (second === undefined || lead === undefined) return true;
    if (lead === 0xe0) return second >= 0xa0;
    if (lead === 0xed) return second <= 0x9f;
    if (lead === 0xf0) return second >= 0x90;
    if (lead === 0xf4) return second <= 0x8f;
    return true;
  }
}

/** The one tokenizer the local backend uses; stateless, so sharing it is safe. */
export const byteTokenizer = new ByteTokenizer();
