import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { mulberry32 } from "../../random.js";
import { type GeneratedSequence, generate, logSumExp } from "./generate.js";
import { Gpt, type GptConfig } from "./model.js";

const SMALL: GptConfig = {
  vocabSize: 264,
  dModel: 32,
  nLayers: 2,
  nHeads: 2,
  maxSeqLen: 48,
  mlpRatio: 4,
  positional: "rope",
  tiedHead: true,
};

/** A random model with peaked enough distributions that sampling is not near-uniform. */
function smallModel(positional: "rope" | "learned", kernel: "wasm" | "js" = "wasm"): Gpt {
  const model = new Gpt({ ...SMALL, positional }, { seed: 3, initStd: 0.15, kernel });
  const rand = mulberry32(5);
  const w = model.paramData;
  for (const p of model.params) {
    if (p.kind === "linear" || p.kind === "embedding") continue;
    for (let i = p.offset; i < p.offset + p.size; i++) w[i] = w[i]! + 0.2 * (rand() - 0.5);
  }
  return model;
}

function randomPrompts(lengths: number[], seed: number): number[][] {
  const rand = mulberry32(seed);
  return lengths.map((n) => Array.from({ length: n }, () => Math.floor(rand() * 256)));
}

/** max |generated logprob − training-path logprob| over every sampled token. */
function maxLogprobDiff(model: Gpt, prompts: number[][], seqs: GeneratedSequence[]): number {
  let max = 0;
  for (const seq of seqs) {
    const prompt = prompts[seq.promptIndex]!;
    const all = Int32Array.from([...prompt, ...seq.tokenIds]);
    const lp = model.tokenLogprobs(all, 1, all.length);
    seq.tokenIds.forEach((_, j) => {
      max = Math.max(max, Math.abs(lp[prompt.length + j]! - seq.logprobs[j]!));
    });
  }
  return max;
}

for (const positional of ["rope", "learned"] as const)
  for (const kernel of ["wasm", "js"] as const)
    describe(`generate (${positional}, ${kernel} kernel)`, () => {
      const model = smallModel(positional, kernel);
      const prompts = randomPrompts([1, 5, 12, 3, 20], 11);

      test("sampled logprobs equal the training path's (train/inference mismatch < 1e-4)", (t) => {
        const seqs = generate(model, { prompts, maxTokens: 24, temperature: 1, seed: 7, n: 2 });
        assert.equal(seqs.length, 10);
        const diff = maxLogprobDiff(model, prompts, seqs);
        t.diagnostic(`max |Δ logprob| = ${diff.toExponential(2)}`);
        assert.ok(diff < 1e-4, `max abs diff ${diff}`);
        // temperature 1, no truncation: the sampled-from distribution is π_θ itself
        for (const s of seqs)
          s.logprobs.forEach((lp, j) => {
            assert.ok(Math.abs(lp - s.samplingLogprobs[j]!) < 1e-6);
          });
      });

      test("with temperature/top-p the trainer's logprob is still the raw one", () => {
        const seqs = generate(model, {
          prompts,
          maxTokens: 16,
          temperature: 0.7,
          topP: 0.9,
          seed: 1,
        });
        assert.ok(maxLogprobDiff(model, prompts, seqs) < 1e-4);
        // the first token's samplingLogprob, recomputed from the prompt's logits by hand
        const V = SMALL.vocabSize;
        for (const s of seqs) {
          const p = Int32Array.from(prompts[s.promptIndex]!);
          const z = model.forward(p, 1, p.length).logits.slice((p.length - 1) * V, p.length * V);
          const w = Array.from(z, (x) => Math.exp(x / 0.7));
          const total = w.reduce((a, b) => a + b, 0);
          const sorted = [...w].sort((a, b) => b - a);
          let cum = 0;
          let kept = 0;
          for (const x of sorted) {
            cum += x;
            kept += x;
            if (cum >= 0.9 * total) break;
          }
          const expected = Math.log(w[s.tokenIds[0]!]! / kept);
          assert.ok(Math.abs(expected - s.samplingLogprobs[0]!) < 1e-4);
        }
      });

      test("every KV-cache decode step equals a full forward's last-position logits", (t) => {
        const V = SMALL.vocabSize;
        const rand = mulberry32(21);
        const seqs = prompts.map((p) => [...p]);
        let logits = model.prefill(seqs).slice();
        let max = 0;
        const check = (rows: number[]) => {
          rows.forEach((b, r) => {
            const s = Int32Array.from(seqs[b]!);
            const full = model.forward(s, 1, s.length).logits;
            const last = (s.length - 1) * V;
            for (let j = 0; j < V; j++)
              max = Math.max(max, Math.abs(full[last + j]! - logits[r * V + j]!));
          });
        };
        check(seqs.map((_, b) => b));
        for (let step = 0; step < 12; step++) {
          // every other step, only a subset of the sequences advances
          const rows = seqs.map((_, b) => b).filter((b) => step % 2 === 0 || b % 2 === 1);
          const toks = rows.map(() => Math.floor(rand() * V));
          rows.forEach((b, r) => {
            seqs[b]!.push(toks[r]!);
          });
          logits = model.decodeStep(Int32Array.from(toks), Int32Array.from(rows)).slice();
          check(rows);
        }
        assert.deepEqual(
          Array.from(model.kvLengths),
          seqs.map((s) => s.length),
        );
        t.diagnostic(`max |Δ logit| = ${max.toExponential(2)}`);
        assert.ok(max < 1e-4, `max abs diff ${max}`);
      });
    });

describe("generate: sampling controls", () => {
  const model = smallModel("rope");
  const prompts = randomPrompts([2, 7, 4], 12);

  test("seeded sampling is deterministic; another seed differs", () => {
    const a = generate(model, { prompts, maxTokens: 20, seed: 42 });
    const b = generate(model, { prompts, maxTokens: 20, seed: 42 });
    const c = generate(model, { prompts, maxTokens: 20, seed: 43 });
    assert.deepEqual(a, b);
    assert.notDeepEqual(
      a.map((s) => s.tokenIds),
      c.map((s) => s.tokenIds),
    );
  });

  test("temperature 0 is greedy: every token is the argmax of the training forward", () => {
    const seqs = generate(model, { prompts, maxTokens: 15, temperature: 0 });
    const V = SMALL.vocabSize;
    for (const s of seqs) {
      const p = prompts[s.promptIndex]!;
      const all = Int32Array.from([...p, ...s.tokenIds]);
      const z = model.forward(all, 1, all.length).logits;
      s.tokenIds.forEach((tok, j) => {
        const row = (p.length + j - 1) * V;
        let best = 0;
        for (let k = 1; k < V; k++) if (z[row + k]! > z[row + best]!) best = k;
        assert.equal(tok, best);
      });
      assert.ok(s.samplingLogprobs.every((x) => x === 0));
    }
  });

  test("top-k = 1 equals greedy", () => {
    const greedy = generate(model, { prompts, maxTokens: 15, temperature: 0 });
    const k1 = generate(model, { prompts, maxTokens: 15, temperature: 1.3, topK: 1, seed: 9 });
    assert.deepEqual(
      k1.map((s) => s.tokenIds),
      greedy.map((s) => s.tokenIds),
    );
    for (const s of k1) assert.ok(s.samplingLogprobs.every((x) => Math.abs(x) < 1e-12));
  });

  test("a stop token ends a sequence with finishReason stop; maxTokens gives length", () => {
    const free = generate(model, { prompts, maxTokens: 12, seed: 5 });
    for (const s of free) {
      assert.equal(s.finishReason, "length");
      assert.equal(s.tokenIds.length, 12);
      assert.equal(s.stopReason, null);
    }
    // stop on the 4th token of the first sequence: same stream up to there, then stop
    const stopTok = free[0]!.tokenIds[3]!;
    const stopped = generate(model, {
      prompts,
      maxTokens: 12,
      seed: 5,
      stopTokenIds: [stopTok],
    });
    const s0 = stopped[0]!;
    const cut = free[0]!.tokenIds.indexOf(stopTok) + 1;
    assert.equal(s0.finishReason, "stop");
    assert.equal(s0.stopReason, stopTok);
    assert.deepEqual(s0.tokenIds, free[0]!.tokenIds.slice(0, cut));
    stopped.forEach((s, i) => {
      const full = free[i]!.tokenIds;
      const at = full.indexOf(stopTok);
      assert.deepEqual(s.tokenIds, at < 0 ? full : full.slice(0, at + 1));
      assert.equal(s.finishReason, at < 0 ? "length" : "stop");
    });
  });

  test("stop sequences (token ids and strings) end a sequence", () => {
    const free = generate(model, { prompts, maxTokens: 12, seed: 5 });
    const seqStop = free[1]!.tokenIds.slice(4, 6);
    const bySeq = generate(model, { prompts, maxTokens: 12, seed: 5, stopSequences: [seqStop] });
    assert.equal(bySeq[1]!.finishReason, "stop");
    assert.deepEqual(bySeq[1]!.stopReason, seqStop);
    assert.ok(bySeq[1]!.tokenIds.length <= 6);
    const tail = bySeq[1]!.tokenIds.slice(-2);
    assert.deepEqual(tail, seqStop);
    // a string stop: encoded by the tokenizer (here a stub that maps chars to their codes)
    const str = String.fromCharCode(...seqStop);
    const byStr = generate(model, {
      prompts,
      maxTokens: 12,
      seed: 5,
      stopSequences: [str],
      tokenizer: { encode: (s) => Array.from(s, (c) => c.charCodeAt(0)) },
    });
    assert.deepEqual(
      byStr.map((s) => s.tokenIds),
      bySeq.map((s) => s.tokenIds),
    );
    assert.equal(byStr[1]!.stopReason, str);
  });

  test("batched results equal one-at-a-time results (per-prompt seeds, n samples)", () => {
    const seeds = [101, 202, 303];
    const opts = { maxTokens: 14, temperature: 0.9, topP: 0.95, topK: 50, n: 2 };
    const batch = generate(model, { ...opts, prompts, seed: seeds });
    const single = prompts.flatMap((p, i) =>
      generate(model, { ...opts, prompts: [p], seed: [seeds[i]!] }).map((s) => ({
        ...s,
        promptIndex: i,
      })),
    );
    assert.equal(batch.length, 6);
    batch.forEach((s, k) => {
      const o = single[k]!;
      assert.deepEqual(s.tokenIds, o.tokenIds);
      assert.equal(s.finishReason, o.finishReason);
      s.logprobs.forEach((lp, j) => {
        assert.ok(Math.abs(lp - o.logprobs[j]!) < 1e-5);
      });
    });
    // the n samples of a prompt differ
    assert.notDeepEqual(batch[0]!.tokenIds, batch[1]!.tokenIds);
  });

  test("repeated prompts (a group's attempts, sent as separate prompts) share one prefill and change nothing", () => {
    // the sampler's batch for a group: the same prompt once per request, each with its own seed
    const [a, b] = prompts;
    const batchPrompts = [a!, [...b!], [...a!], [...a!], b!];
    const seeds = [11, 12, 13, 14, 15];
    const opts = { maxTokens: 12, temperature: 1 };
    const batch = generate(model, { ...opts, prompts: batchPrompts, seed: seeds });
    // every sequence's cache holds its own prompt and what it sampled (all but the last token)
    const lengths = model.kvLengths;
    batchPrompts.forEach((p, i) => {
      assert.equal(lengths[i], p.length + batch[i]!.tokenIds.length - 1);
    });
    batchPrompts.forEach((p, i) => {
      const [one] = generate(model, { ...opts, prompts: [p], seed: [seeds[i]!] });
      assert.deepEqual(batch[i]!.tokenIds, one!.tokenIds, `prompt ${i}`);
      assert.deepEqual(batch[i]!.logprobs, one!.logprobs, `prompt ${i}: the same bits`);
    });
    // the same prompt with other seeds samples other answers from the shared cache
    assert.notDeepEqual(batch[0]!.tokenIds, batch[2]!.tokenIds);
  });

  test("the context limit ends a sequence with length; onToken streams every token", () => {
    const streamed: [number, number, number][] = [];
    const long = randomPrompts([SMALL.maxSeqLen - 3, 2, SMALL.maxSeqLen], 3);
    const seqs = generate(model, {
      prompts: long,
      maxTokens: 10,
      seed: 1,
      onToken: (s, tok, lp) => streamed.push([s, tok, lp]),
    });
    assert.equal(seqs[0]!.tokenIds.length, 3);
    assert.equal(seqs[0]!.finishReason, "length");
    assert.equal(seqs[1]!.tokenIds.length, 10);
    assert.deepEqual(seqs[2]!.tokenIds, []);
    assert.equal(seqs[2]!.finishReason, "length");
    for (const [i, s] of seqs.entries()) {
      const mine = streamed.filter(([k]) => k === i);
      assert.deepEqual(
        mine.map(([, tok]) => tok),
        s.tokenIds,
      );
      assert.deepEqual(
        mine.map(([, , lp]) => lp),
        s.logprobs,
      );
    }
    assert.deepEqual(
      generate(model, { prompts, maxTokens: 0 }).map((s) => s.tokenIds),
      [[], [], []],
    );
  });

  test("forward/backward still work between decode steps", () => {
    const m = smallModel("learned");
    const toks = Int32Array.from(randomPrompts([10], 4)[0]!);
    const before = m.tokenLogprobs(toks, 1, 10);
    m.forward(toks, 1, 10, { needCache: true });
    m.prefill([[1, 2, 3]]);
    m.decodeStep(Int32Array.of(4));
    // the cache region grew under the saved activations: backward must refuse, not misbehave
    assert.throws(() => m.backward(new Float32Array(10)), /forward/);
    m.forward(toks, 1, 10, { needCache: true });
    m.backward(new Float32Array(10).fill(1));
    assert.deepEqual(m.tokenLogprobs(toks, 1, 10), before);
    assert.throws(() => m.decodeStep(Int32Array.of(1, 2)), /expected 1 tokens/);
    assert.throws(() => m.prefill([[1, 999]]), /vocabulary/);
    assert.throws(() => m.decodeStep(Int32Array.of(1)), /prefill/);
  });
});

test("logSumExp (the one copy generate() and the sampler worker share) gives its former values", () => {
  // computed with generate.ts's and sampler-worker.ts's copies before they became one
  const z = Float32Array.from([0.5, -1.25, 3, 2.75, 0, -7.5, 1e-3, 10]);
  assert.equal(logSumExp(z, 0, 8), 10.001799166403135);
  assert.equal(logSumExp(z, 2, 4), 3.6035590618328843);
  assert.equal(logSumExp(z, 4, 4), 10.000090866263692);
});
