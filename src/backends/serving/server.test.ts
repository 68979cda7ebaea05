/**
 * The front end over a tiny deterministic generator (no model): what another backend gets by
 * supplying a Generator — chat and completions, streaming and not, n > 1, seeds, per-lane weight
 * versions, and errors — over real HTTP on loopback.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { post as postJson } from "../../testing/harness.js";
import { renderChat } from "../local/chat-format.js";
import { byteTokenizer, IM_END_ID } from "../local/tokenizer.js";
import type {
  GenerateBatch,
  GenerateResult,
  GenerateStep,
  Generator,
  GeneratorLane,
  SampledSequence,
} from "./generator.js";
import { SamplerServer } from "./server.js";

/**
 * Sequence s answers `<seed mod 1000>!` then `<|im_end|>`, one token per step, honouring
 * maxTokens and stop token ids; every logprob is −0.5 and the top alternative is the token itself.
 */
class EchoLane implements GeneratorLane {
  alive = true;
  batches: GenerateBatch[] = [];
  fail: string | null = null;
  constructor(public weightVersion: number) {}

  async generate(b: GenerateBatch, onStep: (s: GenerateStep) => void): Promise<GenerateResult> {
    this.batches.push(b);
    if (this.fail) throw new Error(this.fail);
    const want = b.seeds.map((seed) => [...byteTokenizer.encode(`${seed % 1000}!`), IM_END_ID]);
    const out: SampledSequence[] = b.prompts.map(() => ({
      tokenIds: [],
      logprobs: [],
      top: b.topLogprobs > 0 ? [] : null,
      finishReason: "length",
      stopReason: null,
    }));
    const live = new Set(out.keys());
    while (live.size > 0) {
      await new Promise((r) => setImmediate(r));
      const step: GenerateStep = {
        seqs: [],
        pos: [],
        tokens: [],
        logprobs: [],
        top: b.topLogprobs > 0 ? [] : null,
      };
      for (const s of [...live]) {
        const q = out[s]!;
        const token = want[s]![q.tokenIds.length]!;
        step.seqs.push(s);
        step.pos.push(q.tokenIds.length);
        step.tokens.push(token);
        step.logprobs.push(-0.5);
        q.tokenIds.push(token);
        q.logprobs.push(-0.5);
        if (q.top) {
          q.top.push([[token, -0.5]]);
          step.top!.push([[token, -0.5]]);
        }
        if (b.stopTokenIds.includes(token)) {
          q.finishReason = "stop";
          q.stopReason = token;
          live.delete(s);
        } else if (q.tokenIds.length >= b.maxTokens) live.delete(s);
      }
      onStep(step);
    }
    return { weightVersion: this.weightVersion, sequences: out };
  }
}

// biome-ignore lint/suspicious/noExplicitAny: parsed test JSON
type Json = Record<string, any>;

const post = (url: string, body: unknown) => postJson<Json>(url, body);

/** The `data:` events of a streamed response, and whether it ended with `[DONE]`. */
async function stream(
  url: string,
  body: Json,
): Promise<{ status: number; events: Json[]; done: boolean }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ ...body, stream: true }),
  });
  const events: Json[] = [];
  let done = false;
  for (const block of (await res.text()).split("\n\n")) {
    if (!block.startsWith("data: ")) continue;
    if (block === "data: [DONE]") done = true;
    else events.push(JSON.parse(block.slice(6)));
  }
  return { status: res.status, events, done };
}

describe("SamplerServer over a test generator", () => {
  const lane = new EchoLane(3);
  const generator: Generator = { weightVersion: 3, lanes: [lane] };
  let s: SamplerServer;
  let url: string;

  before(async () => {
    s = await SamplerServer.start({
      generator,
      tokenizer: byteTokenizer,
      renderChat,
      maxSeqLen: 64,
      modelName: "echo",
      batchWindowMs: 20,
    });
    url = s.baseURL;
  });
  after(() => s.close());

  test("models and health name the model and the generator's weights", async () => {
    const m = await fetch(`${url}/models`);
    assert.equal(m.headers.get("x-rllm-weight-version"), "3");
    const body = (await m.json()) as Json;
    assert.equal(body.data[0].id, "echo");
    assert.equal(body.data[0].max_model_len, 64);
    const h = await fetch(`${url.replace(/\/v1$/, "")}/health`);
    assert.equal(h.status, 200);
  });

  test("chat: the rendered prompt goes to the generator, the answer comes back parsed", async () => {
    const r = await post(`${url}/chat/completions`, {
      messages: [{ role: "user", content: "hi" }],
      seed: 7,
      n: 2,
      logprobs: true,
      return_token_ids: true,
    });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("x-rllm-weight-version"), "3");
    const b = lane.batches.at(-1)!;
    const prompt = renderChat([{ role: "user", content: "hi" }], { addGenerationPrompt: true });
    assert.deepEqual(b.prompts, [prompt, prompt]);
    assert.deepEqual(r.body.prompt_token_ids, prompt);
    assert.equal(r.body.choices.length, 2);
    for (const [j, c] of r.body.choices.entries()) {
      assert.equal(c.index, j);
      assert.equal(c.message.content, `${b.seeds[j]! % 1000}!`);
      assert.equal(c.finish_reason, "stop");
      assert.equal(c.stop_reason, null); // EOS
      assert.deepEqual(c.token_ids.at(-1), IM_END_ID);
      assert.ok(c.logprobs.content.every((t: Json) => t.logprob === -0.5));
    }
    assert.notEqual(b.seeds[0], b.seeds[1], "the samples of one request have their own seeds");
    const again = await post(`${url}/chat/completions`, {
      messages: [{ role: "user", content: "hi" }],
      seed: 7,
      n: 2,
    });
    assert.deepEqual(
      again.body.choices.map((c: Json) => c.message.content),
      r.body.choices.map((c: Json) => c.message.content),
    );
  });

  test("chat streaming gives the non-streamed message", async () => {
    const req = { messages: [{ role: "user", content: "yo" }], seed: 11, n: 2 };
    const whole = await post(`${url}/chat/completions`, req);
    const r = await stream(`${url}/chat/completions`, {
      ...req,
      stream_options: { include_usage: true },
    });
    assert.equal(r.status, 200);
    assert.ok(r.done);
    for (const j of [0, 1]) {
      const mine = r.events.flatMap((e) => e.choices.filter((c: Json) => c.index === j));
      assert.equal(mine[0].delta.role, "assistant");
      assert.equal(
        mine.map((c: Json) => c.delta.content ?? "").join(""),
        whole.body.choices[j].message.content,
      );
      assert.equal(mine.at(-1).finish_reason, "stop");
    }
    assert.deepEqual(r.events.at(-1)!.usage, whole.body.usage);
  });

  test("completions: several prompts × n, max_tokens, streaming and not", async () => {
    const r = await post(`${url}/completions`, {
      prompt: ["a", "b"],
      n: 2,
      max_tokens: 2,
      seed: 1,
      logprobs: 1,
    });
    assert.equal(r.status, 200);
    const b = lane.batches.at(-1)!;
    assert.deepEqual(b.prompts, [[97], [97], [98], [98]]);
    assert.equal(b.maxTokens, 2);
    assert.equal(b.topLogprobs, 1);
    assert.deepEqual(
      r.body.choices.map((c: Json) => [c.index, c.text, c.finish_reason]),
      b.seeds.map((seed, i) => [i, `${seed % 1000}!`.slice(0, 2), "length"]),
    );
    assert.equal(r.body.usage.completion_tokens, 8);
    const st = await stream(`${url}/completions`, { prompt: "a", max_tokens: 16, seed: 5 });
    assert.ok(st.done);
    const text = st.events.map((e) => e.choices[0].text).join("");
    const whole = await post(`${url}/completions`, { prompt: "a", max_tokens: 16, seed: 5 });
    assert.equal(text, whole.body.choices[0].text);
    assert.equal(st.events.at(-1)!.choices[0].finish_reason, "stop");
  });

  test("errors: a bad request never reaches the generator; a failed batch is a 500", async () => {
    const n = lane.batches.length;
    const bad = await post(`${url}/completions`, { prompt: "a", model: "other" });
    assert.equal(bad.status, 404);
    assert.equal(bad.body.error.param, "model");
    const knob = await post(`${url}/completions`, { prompt: "a", presence_penalty: 1 });
    assert.equal(knob.status, 400);
    assert.equal(lane.batches.length, n);
    lane.fail = "out of memory";
    try {
      const r = await post(`${url}/completions`, { prompt: "a" });
      assert.equal(r.status, 500);
      assert.deepEqual(r.body.error, {
        message: "generation failed: out of memory",
        type: "InternalServerError",
        param: null,
        code: 500,
      });
    } finally {
      lane.fail = null;
    }
    lane.alive = false;
    try {
      const r = await post(`${url}/completions`, { prompt: "a" });
      assert.equal(r.status, 503);
    } finally {
      lane.alive = true;
    }
  });

  test("metrics count this server's requests and batches", async () => {
    const before = s.metrics;
    await Promise.all([1, 2, 3].map((seed) => post(`${url}/completions`, { prompt: "x", seed })));
    const m = s.metrics;
    assert.equal(m.requests - before.requests, 3);
    assert.equal(m.sequences - before.sequences, 3);
    assert.ok(m.batches - before.batches < 3, "same settings on one lane: batched together");
  });
});
