/**
 * Text → ids with a cache of the pieces between special tokens.
 *
 * Agents resend the same system prompt, tool list and history on every call, and a chat template
 * puts special tokens (<|im_start|>, <|im_end|>) between the turns. A tokenizer never merges
 * across an added token (it splits them out before normalising and pre-tokenizing), so each
 * piece between them encodes on its own to the same ids, and pieces seen before are looked up
 * instead of re-run through BPE.
 */
import type { Tokenizer } from "@huggingface/tokenizers";

export interface AddedTokenSpec {
  id: number;
  content: string;
  lstrip: boolean;
  rstrip: boolean;
  normalized: boolean;
}

/** Roughly 16 MiB of cached ids; pieces are evicted least-recently-used first. */
const CACHE_BUDGET_IDS = 2_000_000;
/** Longer pieces are one-offs (a pasted file) and not worth keeping. */
const MAX_CACHED_PIECE_CHARS = 64_000;

export class CachedEncoder {
  /** null: pass texts through uncached; undefined: no added tokens, cache whole texts. */
  private readonly splitter: RegExp | null | undefined;
  private readonly idOf = new Map<string, number>();
  private readonly cache = new Map<string, readonly number[]>();
  private cachedIds = 0;

  /**
   * @param exactSplit whether splitting on added tokens by literal match is exactly what the
   *   tokenizer does. Not so when an added token strips neighbouring whitespace (lstrip/rstrip),
   *   matches after normalisation, or the tokenizer rewrites text before splitting; the encoder
   *   then passes whole texts through uncached.
   */
  constructor(
    private readonly tokenizer: Tokenizer,
    added: readonly AddedTokenSpec[],
    exactSplit: boolean,
  ) {
    const eligible = exactSplit && added.every((t) => !t.lstrip && !t.rstrip && !t.normalized);
    for (const t of added) this.idOf.set(t.content, t.id);
    // Longest first: at a given position the longest added token wins, like the tokenizer's trie.
    const alternatives = [...this.idOf.keys()]
      .filter((c) => c.length > 0)
      .sort((a, b) => b.length - a.length)
      .map(escapeRegExp);
    if (!eligible) this.splitter = null;
    else if (alternatives.length === 0) this.splitter = undefined;
    else this.splitter = new RegExp(alternatives.join("|"), "g");
  }

  encode(text: string): number[] {
    if (text === "") return [];
    if (this.splitter === null)
      return this.tokenizer.encode(text, { add_special_tokens: false }).ids;
    const out: number[] = [];
    const splitter = this.splitter;
    if (splitter === undefined) {
      this.encodePiece(text, out);
      return out;
    }
    splitter.lastIndex = 0;
    let from = 0;
    for (let m = splitter.exec(text); m !== null; m = splitter.exec(text)) {
      if (m.index > from) this.encodePiece(text.slice(from, m.index), out);
      out.push(this.idOf.get(m[0])!);
      from = m.index + m[0].length;
    }
    if (from < text.length) this.encodePiece(from === 0 ? text : text.slice(from), out);
    return out;
  }

  private encodePiece(piece: string, out: number[]): void {
    const hit = this.cache.get(piece);
    if (hit !== undefined) {
      // Re-insert to mark it recently used (Map keeps insertion order).
      this.cache.delete(piece);
      this.cache.set(piece, hit);
      for (const id of hit) out.push(id);
      return;
    }
    const ids = this.tokenizer.encode(piece, { add_special_tokens: false }).ids;
    for (const id of ids) out.push(id);
    if (piece.length <= MAX_CACHED_PIECE_CHARS) {
      this.cache.set(piece, ids);
      this.cachedIds += ids.length;
      while (this.cachedIds > CACHE_BUDGET_IDS) {
        const oldest = this.cache.keys().next().value as string;
        this.cachedIds -= this.cache.get(oldest)!.length;
        this.cache.delete(oldest);
      }
    }
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
