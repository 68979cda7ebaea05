/**
 * The torch sampler's TypeScript half against the fake worker's toy sampler (fixtures/
 * fake_worker.py, mode "sampler": token k of a sequence is 2 + (last prompt token + seed + k) % 26,
 * ids 2..27 spelling a..z), so lanes, steps, stop strings and weight versions are checked exactly
 * without torch. The same paths against the real worker and a tiny model: backend.test.ts.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import OpenAI from "openai";
import { post } from "../../testing/harness.js";
import type { GenerateBatch, GenerateStep, ServingTokenizer } from "../serving/generator.js";
import { TorchGenerator, TorchSampler } from "./generator.js";
import { WorkerProcess } from "./worker.js";

const FAKE = join(import.meta.dirname, "fixtures", "fake_worker.py");

/** ids 2..27 are a..z, 1 is the eos. */
const text = (id: number) => (id >= 2 && id < 28 ? String.fromCharCode(95 + id) : "<eos>");
const tokenizer: ServingTokenizer = {
  vocabSize: 64,
  eosTokenIds: [1],
  encode: (s) => Array.from(s, (c) => c.charCodeAt(0) - 95),
  decode: (ids) => ids.map(text).join(""),
  decodeStream: () => ({ push: (ids) => ids.map(text).join(""), flush: () => "" }),
  tokenText: text,
  tokenBytes: (id) => Array.from(Buffer.from(text(id))),
};

let worker: WorkerProcess;

before(async () => {
  worker = await WorkerProcess.start({
    python: "python3",
    role: "sampler",
    entry: [FAKE],
    env: { FAKE_WORKER_MODE: "sampler" },
    startupTimeoutMs: 10_000,
  });
  await worker.call("init", {}, { timeoutMs: 5_000 });
});
after(() => worker.close());

const batch = (over: Partial<GenerateBatch>): GenerateBatch => ({
  prompts: [[2]],
  seeds: [0],
  maxTokens: 10,
  temperature: 1,
  topP: 1,
  topK: 0,
  stopTokenIds: [],
  stopSequences: [],
  topLogprobs: 0,
  ...over,
});

test("a stop string ends its sequence at the token that completed it; the worker is told", async () => {
  const gen = new TorchGenerator(worker, tokenizer, 64, 64, 10_000, 0, 2);
  const steps: GenerateStep[] = [];
  const before = ((await worker.call("stats", {}, { timeoutMs: 5_000 })).stops as unknown[]).length;
  // "a" → c d e f …: "de" completes at the third token; "d" → f g h … never shows it
  const r = await gen.lanes[0]!.generate(
    batch({ prompts: [[2], [5]], seeds: [0, 0], stopSequences: ["de"], topLogprobs: 2 }),
    (s) => steps.push(structuredClone(s)),
  );
  assert.equal(r.weightVersion, 0);
  const [a, b] = r.sequences;
  assert.equal(tokenizer.decode(a!.tokenIds), "cde");
  assert.deepEqual(a!.logprobs, [0, -0.25, -0.5]);
  assert.equal(a!.finishReason, "stop");
  assert.equal(a!.stopReason, "de");
  assert.equal(a!.top!.length, 3, "top entries trimmed with the tokens");
  assert.deepEqual(a!.top![1], [
    [5, 0],
    [6, -1],
  ]);
  assert.equal(tokenizer.decode(b!.tokenIds), "fghijklmno");
  assert.equal(b!.finishReason, "length");
  assert.equal(b!.stopReason, null);
  // no step of sequence 0 past the stop reached the front end
  const seq0 = steps.flatMap((s) => s.seqs.flatMap((q, i) => (q === 0 ? [s.pos[i]!] : [])));
  assert.deepEqual(seq0, [0, 1, 2]);
  const stops = (await worker.call("stats", {}, { timeoutMs: 5_000 })).stops as {
    seqs: number[];
  }[];
  assert.deepEqual(
    stops.slice(before).map((s) => s.seqs),
    [[0]],
  );
});

test("a stop token before the stop string wins; lanes run at once in one decode loop", async () => {
  const gen = new TorchGenerator(worker, tokenizer, 64, 64, 10_000, 0, 2);
  const [x, y] = await Promise.all([
    gen.lanes[0]!.generate(batch({ stopTokenIds: [4], stopSequences: ["de"] }), () => {}),
    gen.lanes[1]!.generate(batch({ prompts: [[3]], maxTokens: 3 }), () => {}),
  ]);
  assert.equal(tokenizer.decode(x.sequences[0]!.tokenIds), "c");
  assert.equal(x.sequences[0]!.stopReason, 4);
  assert.equal(tokenizer.decode(y.sequences[0]!.tokenIds), "def");
});

test("through the HTTP front end: ids, logprobs, n, seeds, stop strings, streaming, weight versions", async () => {
  const config = {
    maxBatch: 64,
    batchWindowMs: 2,
    host: "127.0.0.1",
    port: 0,
    modelName: "rllm-torch",
    lanes: 2,
  };
  // a second worker: the sampler owns (and closes) its worker
  const w = await WorkerProcess.start({
    python: "python3",
    role: "sampler",
    entry: [FAKE],
    env: { FAKE_WORKER_MODE: "sampler" },
    startupTimeoutMs: 10_000,
  });
  const s = await TorchSampler.start({
    worker: w,
    tokenizer,
    renderChat: (messages) => messages.flatMap((m) => tokenizer.encode(String(m.content))),
    vocabSize: 64,
    maxSeqLen: 64,
    weightVersion: 0,
    callTimeoutMs: 10_000,
    config,
  });
  try {
    const req = {
      model: "rllm-torch",
      prompt: "a",
      max_tokens: 4,
      n: 2,
      seed: 5,
      logprobs: 1,
      return_token_ids: true,
    };
    type Body = {
      choices: { text: string; token_ids: number[]; logprobs: { token_logprobs: number[] } }[];
    };
    const r = await post<Body>(`${s.baseURL}/completions`, req);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers.get("x-rllm-weight-version"), "0");
    assert.equal(r.body.choices.length, 2);
    for (const c of r.body.choices) {
      assert.equal(c.token_ids.length, 4);
      assert.deepEqual(c.logprobs.token_logprobs, [0, -0.25, -0.5, -0.75]);
    }
    assert.notEqual(r.body.choices[0]!.text, r.body.choices[1]!.text, "each sample its own seed");
    const again = await post<Body>(`${s.baseURL}/completions`, req);
    assert.deepEqual(
      again.body.choices.map((c) => c.text),
      r.body.choices.map((c) => c.text),
    );
    // a stop string
    const client = new OpenAI({ baseURL: s.baseURL, apiKey: "x" });
    const stopped = await client.completions.create({
      model: "rllm-torch",
      prompt: "a",
      max_tokens: 30, // 26 letters in a row: "de" is among them, whatever the seed
      seed: 0,
      stop: ["de"],
      // @ts-expect-error vLLM's extension
      return_token_ids: true,
    });
    const c0 = stopped.choices[0] as unknown as { finish_reason: string; stop_reason: unknown };
    assert.equal(c0.finish_reason, "stop");
    assert.equal(c0.stop_reason, "de");
    assert.ok(stopped.choices[0]!.text.length < 26);
    // streaming gives the same text
    const whole = await client.completions.create({
      model: "rllm-torch",
      prompt: "b",
      max_tokens: 6,
      seed: 3,
    });
    let streamed = "";
    for await (const chunk of await client.completions.create({
      model: "rllm-torch",
      prompt: "b",
      max_tokens: 6,
      seed: 3,
      stream: true,
    }))
      streamed += chunk.choices[0]?.text ?? "";
    assert.equal(streamed, whole.choices[0]!.text);
    assert.equal(streamed.length, 6);
    // new weights: the next response says so
    await s.setWeights("/nonexistent", "full", 1);
    assert.equal(s.weightVersion, 1);
    const after = await post<Body>(`${s.baseURL}/completions`, { ...req, n: 1 });
    assert.equal(after.headers.get("x-rllm-weight-version"), "1");
  } finally {
    await s.close();
  }
  assert.equal(w.alive, false, "the sampler closes its worker");
});

test("generate asks the worker to sample only ids the tokenizer knows (vocabLimit)", async () => {
  const sent: Record<string, unknown>[] = [];
  const spy = Object.create(worker) as WorkerProcess;
  spy.call = (method, params, options) => {
    if (method === "generate") sent.push(params);
    return worker.call(method, params, options);
  };
  // a model of 64 ids whose tokenizer knows 28 (ids 28..63: embedding padding)
  const gen = new TorchGenerator(spy, { ...tokenizer, vocabSize: 28 }, 64, 28, 10_000, 0, 1);
  await gen.lanes[0]!.generate(batch({ maxTokens: 2 }), () => {});
  assert.equal(sent.length, 1);
  assert.equal(sent[0]!.vocabLimit, 28);
});
