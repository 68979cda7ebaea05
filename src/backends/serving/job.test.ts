/**
 * Stop strings whose tokens are not encode(stop): a generator that finds the string on decoded
 * text (as the torch sampler does) reports it as stopReason, and the response text ends before its
 * first occurrence — vLLM's behaviour — while token_ids keep every sampled token. Non-streamed and
 * streamed, completions and chat, with and without include_stop_str_in_output.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { post as postJson } from "../../testing/harness.js";
import type {
  GenerateBatch,
  GenerateResult,
  GenerateStep,
  GeneratorLane,
  SampledSequence,
  ServingTokenizer,
} from "./generator.js";
import { SamplerServer } from "./server.js";

/** Multi-character tokens first; encode takes the first that matches, so "de" encodes as d, e. */
const VOCAB = ["<eos>", "ab", "cd", "e.", "xy", "d", "e", "a", "b", "c", ".", "x", "y", " "];
const EOS = 0;
const tokenizer: ServingTokenizer = {
  vocabSize: VOCAB.length,
  eosTokenIds: [EOS],
  encode(text) {
    const ids: number[] = [];
    for (let i = 0; i < text.length; ) {
      const id = VOCAB.findIndex((t, k) => k > EOS && text.startsWith(t, i));
      if (id < 0) throw new Error(`cannot encode ${JSON.stringify(text[i])}`);
      ids.push(id);
      i += VOCAB[id]!.length;
    }
    return ids;
  },
  decode: (ids, o) =>
    ids.map((id) => (o?.skipSpecialTokens && id === EOS ? "" : VOCAB[id]!)).join(""),
  decodeStream: (o) => ({
    push: (ids) => ids.map((id) => (o?.skipSpecialTokens && id === EOS ? "" : VOCAB[id]!)).join(""),
    flush: () => "",
  }),
  tokenText: (id) => VOCAB[id]!,
  tokenBytes: (id) => Array.from(Buffer.from(VOCAB[id]!)),
};

/** Every sequence says "ab cd e. xy ab …"; a stop string ends it at the token whose text completes it. */
const SAYS = [1, 13, 2, 3, 4, 1];

class TextStopLane implements GeneratorLane {
  alive = true;
  weightVersion = 0;

  async generate(b: GenerateBatch, onStep: (s: GenerateStep) => void): Promise<GenerateResult> {
    const sequences: SampledSequence[] = [];
    for (let s = 0; s < b.prompts.length; s++) {
      const q: SampledSequence = {
        tokenIds: [],
        logprobs: [],
        top: null,
        finishReason: "length",
        stopReason: null,
      };
      let text = "";
      for (let k = 0; k < Math.min(b.maxTokens, SAYS.length); k++) {
        const token = SAYS[k]!;
        q.tokenIds.push(token);
        q.logprobs.push(-1);
        text += VOCAB[token]!;
        onStep({ seqs: [s], pos: [k], tokens: [token], logprobs: [-1], top: null });
        await new Promise((r) => setImmediate(r));
        const hit = b.stopSequences.find((stop) => text.includes(stop));
        if (hit !== undefined) {
          q.finishReason = "stop";
          q.stopReason = hit;
          break;
        }
      }
      sequences.push(q);
    }
    return { weightVersion: 0, sequences };
  }
}

// biome-ignore lint/suspicious/noExplicitAny: parsed test JSON
type Json = Record<string, any>;

async function streamed(url: string, body: Json): Promise<Json[]> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ ...body, stream: true }),
  });
  return (await res.text())
    .split("\n\n")
    .filter((b) => b.startsWith("data: ") && b !== "data: [DONE]")
    .map((b) => JSON.parse(b.slice(6)));
}

describe("stop strings found on text by the generator", () => {
  let server: SamplerServer;
  let url: string;
  const base = { model: "m", prompt: "ab", max_tokens: 6, return_token_ids: true };

  before(async () => {
    server = await SamplerServer.start({
      generator: { weightVersion: 0, lanes: [new TextStopLane()] },
      tokenizer,
      renderChat: () => [1],
      maxSeqLen: 64,
      modelName: "m",
      batchWindowMs: 1,
    });
    url = server.baseURL;
  });
  after(() => server.close());

  test("the text ends before the stop string; token_ids keep every sampled token", async () => {
    assert.deepEqual(
      tokenizer.encode("de"),
      [5, 6],
      "the stop string's own tokens are not sampled",
    );
    const { body } = await postJson<Json>(`${url}/completions`, { ...base, stop: ["de"] });
    const c = body.choices[0];
    assert.equal(c.text, "ab c");
    assert.equal(c.finish_reason, "stop");
    assert.equal(c.stop_reason, "de");
    assert.deepEqual(
      c.token_ids,
      [1, 13, 2, 3],
      "ab, ' ', cd, e. — the token holding the stop's end kept",
    );
    assert.equal(body.usage.completion_tokens, 4);
  });

  test("include_stop_str_in_output keeps the stop string and nothing after it", async () => {
    const { body } = await postJson<Json>(`${url}/completions`, {
      ...base,
      stop: ["de"],
      include_stop_str_in_output: true,
    });
    assert.equal(body.choices[0].text, "ab cde");
  });

  test("the first of several stop strings in the text wins", async () => {
    const { body } = await postJson<Json>(`${url}/completions`, { ...base, stop: ["e.x", "b c"] });
    const c = body.choices[0];
    assert.equal(c.stop_reason, "b c");
    assert.equal(c.text, "a");
  });

  test("streamed: the chunks spell the same text, never a character of the stop string", async () => {
    const events = await streamed(`${url}/completions`, { ...base, stop: ["de"] });
    const texts = events.map((e) => e.choices[0].text as string);
    assert.equal(texts.join(""), "ab c");
    assert.ok(!texts.some((t) => t.includes("d")), JSON.stringify(texts));
    assert.deepEqual(
      events.flatMap((e) => e.choices[0].token_ids),
      [1, 13, 2, 3],
    );
    const inc = await streamed(`${url}/completions`, {
      ...base,
      stop: ["de"],
      include_stop_str_in_output: true,
    });
    assert.equal(inc.map((e) => e.choices[0].text).join(""), "ab cde");
  });

  test("chat: the message and the streamed deltas end before the stop string", async () => {
    const chat = { model: "m", messages: [{ role: "user", content: "hi" }], max_tokens: 6 };
    const { body } = await postJson<Json>(`${url}/chat/completions`, { ...chat, stop: ["de"] });
    assert.equal(body.choices[0].message.content, "ab c");
    assert.equal(body.choices[0].stop_reason, "de");
    const events = await streamed(`${url}/chat/completions`, { ...chat, stop: ["de"] });
    const content = events.map((e) => e.choices[0]?.delta?.content ?? "").join("");
    assert.equal(content, "ab c");
  });

  test("no stop string: the whole text", async () => {
    const { body } = await postJson<Json>(`${url}/completions`, base);
    assert.equal(body.choices[0].text, "ab cde.xyab");
    assert.equal(body.choices[0].finish_reason, "length");
  });
});
