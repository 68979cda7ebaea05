/**
 * The fake model's vocabulary and scores: a byte-level tokenizer (one token per UTF-8 byte, id =
 * byte + 3, with ChatML's two special tokens) used when no real tokenizer is given, and the
 * deterministic logprob of each sampled token.
 */
import { IM_END, IM_START } from "../../chat/chatml.js";
import type { FakeTokenizer } from "./types.js";

export const BYTE_OFFSET = 3;
export const PAD_TOKEN_ID = 0;
export const IM_START_TOKEN_ID = 1;
export const IM_END_TOKEN_ID = 2;

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

export function byteEncode(text: string): number[] {
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

export function byteDecode(ids: readonly number[], skipSpecial = false): string {
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
export function byteCount(text: string): number {
  let n = Buffer.byteLength(text, "utf8");
  let i = text.indexOf("<|im_");
  while (i !== -1) {
    if (text.startsWith(IM_START, i)) n -= IM_START.length - 1;
    else if (text.startsWith(IM_END, i)) n -= IM_END.length - 1;
    i = text.indexOf("<|im_", i + 5);
  }
  return n;
}

export function byteTokenText(id: number): string {
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

export function topAlternative(id: number, rank: number): number {
  return id >= rank ? id - rank : id + rank;
}
