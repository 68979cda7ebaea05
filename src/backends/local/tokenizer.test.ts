import assert from "node:assert/strict";
import { test } from "node:test";
import { mulberry32 as rng } from "../../random.js";
import {
  byteTokenizer,
  ENDOFTEXT_ID,
  EOS_TOKEN_IDS,
  IM_END_ID,
  IM_START_ID,
  PAD_ID,
  SPECIAL_TOKENS,
  THINK_START_ID,
  TOOL_CALL_END_ID,
  VOCAB_SIZE,
} from "./tokenizer.js";

const tok = byteTokenizer;

const POOLS = [
  "abc xyz\n\t",
  "héllo ñ ü ß",
  "中文字符测试漢字かなカナ한국어",
  "😀🎉👍🏽👨‍👩‍👧🇯🇵",
  "<|im_end|><think></think><tool_call></tool_call><|pad|><|endoftext|><|im_start|><|",
];

function randomString(r: () => number): string {
  let s = "";
  const n = Math.floor(r() * 40);
  for (let i = 0; i < n; i++) {
    const mode = r();
    if (mode < 0.7) {
      const pool = [...POOLS[Math.floor(r() * POOLS.length)]!];
      s += pool[Math.floor(r() * pool.length)];
    } else if (mode < 0.85) {
      s += SPECIAL_TOKENS[Math.floor(r() * SPECIAL_TOKENS.length)];
    } else {
      // Any valid scalar value, surrogates excluded (they are not encodable as UTF-8).
      let cp = Math.floor(r() * 0x110000);
      if (cp >= 0xd800 && cp <= 0xdfff) cp = 0x41;
      s += String.fromCodePoint(cp);
    }
  }
  return s;
}

test("id table is fixed: bytes 0-255, then specials in documented order", () => {
  assert.equal(VOCAB_SIZE, 264);
  assert.equal(tok.vocabSize, 264);
  assert.deepEqual(
    SPECIAL_TOKENS.map((t) => tok.specialId(t)),
    [256, 257, 258, 259, 260, 261, 262, 263],
  );
  assert.equal(PAD_ID, 256);
  assert.deepEqual(EOS_TOKEN_IDS, [IM_END_ID, ENDOFTEXT_ID]);
  assert.deepEqual([...tok.eosTokenIds], [259, 257]);
  assert.deepEqual(tok.describe().specialTokens["<|im_end|>"], 259);
});

test("encode maps specials to ids and everything else to UTF-8 bytes", () => {
  assert.deepEqual(tok.encode("a<|im_start|>é"), [0x61, IM_START_ID, 0xc3, 0xa9]);
  assert.deepEqual(tok.encode("<think></think>"), [260, 261]);
  // A partial special is plain bytes.
  assert.deepEqual(tok.encode("<|im_"), [...Buffer.from("<|im_")]);
  assert.deepEqual(tok.encode("<|im_end|>", { allowSpecial: false }), [
    ...Buffer.from("<|im_end|>"),
  ]);
  assert.deepEqual(tok.encode(""), []);
});

test("decode is exact and can skip specials", () => {
  const ids = tok.encode("<|im_start|>user\n你好 👋<|im_end|>");
  assert.equal(tok.decode(ids), "<|im_start|>user\n你好 👋<|im_end|>");
  assert.equal(tok.decode(ids, { skipSpecialTokens: true }), "user\n你好 👋");
  assert.throws(() => tok.decode([264]), /outside the byte-level vocabulary/);
  assert.throws(() => tok.decode([-1]), /outside/);
});

test("property: decode(encode(s)) === s for random unicode, emoji, CJK and specials", () => {
  const r = rng(1234);
  for (let i = 0; i < 500; i++) {
    const s = randomString(r);
    const ids = tok.encode(s);
    assert.equal(tok.decode(ids), s, `case ${i}: ${JSON.stringify(s)}`);
    assert.ok(ids.every((id) => Number.isInteger(id) && id >= 0 && id < VOCAB_SIZE));
    // Without special parsing every id is a byte, and the text still round-trips.
    const raw = tok.encode(s, { allowSpecial: false });
    assert.ok(raw.every((id) => id < 256));
    assert.equal(tok.decode(raw), s);
  }
});

test("property: streaming decode in random chunks equals full decode and never splits a character", () => {
  const r = rng(99);
  for (let i = 0; i < 300; i++) {
    const s = randomString(r);
    const ids = tok.encode(s);
    const dec = tok.decodeStream();
    let out = "";
    let at = 0;
    while (at < ids.length) {
      const n = 1 + Math.floor(r() * 4);
      const piece = dec.push(ids.slice(at, at + n));
      assert.ok(
        !piece.includes("\uFFFD") || s.includes("\uFFFD"),
        `U+FFFD mid-stream in case ${i}`,
      );
      out += piece;
      at += n;
    }
    out += dec.flush();
    assert.equal(out, s, `case ${i}`);
  }
});

test("property: streaming decode of arbitrary ids (invalid UTF-8 too) equals full decode", () => {
  const r = rng(7);
  for (let i = 0; i < 500; i++) {
    const n = Math.floor(r() * 30);
    const ids: number[] = [];
    for (let k = 0; k < n; k++) {
      const pick = r();
      ids.push(
        pick < 0.1
          ? 256 + Math.floor(r() * 8)
          : pick < 0.5
            ? 0x80 + Math.floor(r() * 0x80)
            : Math.floor(r() * 256),
      );
    }
    const dec = tok.decodeStream();
    let out = "";
    for (const id of ids) out += dec.push(id);
    out += dec.flush();
    assert.equal(out, tok.decode(ids), `ids ${JSON.stringify(ids)}`);
  }
});

test("stream holds back an incomplete trailing character", () => {
  const bytes = [...Buffer.from("€")]; // e2 82 ac
  const dec = tok.decodeStream();
  assert.equal(dec.push(0x61), "a");
  assert.equal(dec.push(bytes[0]!), "");
  assert.equal(dec.push(bytes[1]!), "");
  assert.equal(dec.push(bytes[2]!), "€");
  assert.equal(dec.push(0xf0), "");
  assert.equal(dec.flush(), "\uFFFD");
  const skip = tok.decodeStream({ skipSpecialTokens: true });
  assert.equal(skip.push([THINK_START_ID, 0x62, IM_END_ID]), "b");
});

test("tokenText and tokenBytes describe single tokens for logprob entries", () => {
  assert.equal(tok.tokenText(0x41), "A");
  assert.deepEqual(tok.tokenBytes(0x41), [0x41]);
  assert.equal(tok.tokenText(0xe4), "bytes:\\xe4");
  assert.deepEqual(tok.tokenBytes(0xe4), [0xe4]);
  assert.equal(tok.tokenText(TOOL_CALL_END_ID), "</tool_call>");
  assert.deepEqual(tok.tokenBytes(IM_END_ID), [...Buffer.from("<|im_end|>")]);
  assert.ok(tok.isSpecial(PAD_ID) && !tok.isSpecial(255));
  // Concatenated bytes of a sequence equal the UTF-8 of its decode.
  const ids = tok.encode("x😀<think>y");
  assert.deepEqual(
    ids.flatMap((id) => tok.tokenBytes(id)),
    [...Buffer.from(tok.decode(ids))],
  );
});
