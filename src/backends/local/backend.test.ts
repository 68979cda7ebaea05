import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type LossSpecInput, LossSpecSchema } from "../../algorithms/loss.js";
import { mulberry32 } from "../../random.js";
import type { Datum } from "../../types/index.js";
import { LocalBackend } from "./backend.js";
import { lossAndGrad } from "./loss-and-grad.js";
import { Gpt, type GptConfig } from "./model.js";
import { AdamW, decayMask } from "./optim.js";

const tiny = {
  vocabSize: 264 as const,
  dModel: 32,
  nLayers: 1,
  nHeads: 2,
  maxSeqLen: 48,
  mlpRatio: 4,
  positional: "rope" as const,
  tiedHead: true as const,
} satisfies GptConfig;

/** Rows of varied length with random tokens, advantages and plausible sampling logprobs. */
function makeDatums(n: number, seed: number): Datum[] {
  const r = mulberry32(seed);
  return Array.from({ length: n }, (_, i) => {
    const len = 6 + Math.floor(r() * 30);
    const tokens = Array.from({ length: len }, () => Math.floor(r() * 264));
    const prompt = 2 + Math.floor(r() * 4);
    const adv = r() * 2 - 1;
    return {
      tokens,
      lossMask: tokens.map((_, t) => (t >= prompt ? 1 : 0)),
      advantages: tokens.map((_, t) => (t >= prompt ? adv : 0)),
      samplingLogprobs: tokens.map((_, t) => (t >= prompt ? -5.6 + (r() - 0.5) * 0.4 : 0)),
      weightVersion: 0,
      groupId: `g${i % 3}`,
    };
  });
}

function maxAbs(a: ArrayLike<number>, b: ArrayLike<number>): number {
  assert.equal(a.length, b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}

function maxAbsOf(a: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]!));
  return m;
}

describe("LocalBackend", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "rllm-local-backend-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("data-parallel gradients equal one model's, for every loss kind and aggregation", async () => {
    const b = await LocalBackend.create({
      model: tiny,
      seed: 3,
      trainWorkers: 2,
      microBatchTokens: 96, // several micro-batches per worker: accumulation is exercised
    });
    const ref = new Gpt(tiny, { seed: 3, kernel: "js" });
    const refModel = new Gpt(tiny, { seed: 3, kernel: "js" }); // the KL reference (= start)
    try {
      const datums = makeDatums(9, 1);
      const specs: LossSpecInput[] = [
        { kind: "cross_entropy" },
        { kind: "importance_sampling", tisCap: 2, aggregation: "seq-mean-token-sum" },
        { kind: "ppo", clipLow: 0.2, clipHigh: 0.28, kl: { coef: 0.1, estimator: "k3" } },
        { kind: "cispo", entropyCoef: 0.01, aggregation: "seq-mean-token-mean" },
      ];
      for (const spec of specs) {
        const fb = await b.forwardBackward(datums, LossSpecSchema.parse(spec));
        const got = b.accumulatedGrad;
        ref.zeroGrad();
        const kl = LossSpecSchema.parse(spec).kl !== undefined;
        const want = lossAndGrad(
          ref,
          datums.map((d) => ({
            ...d,
            refLogprobs: kl
              ? Array.from(refModel.tokenLogprobs(Int32Array.from(d.tokens), 1, d.tokens.length))
              : undefined,
          })),
          spec,
        );
        const scale = maxAbsOf(ref.gradData);
        assert.ok(scale > 0);
        const err = maxAbs(got, ref.gradData) / scale;
        assert.ok(err < 1e-4, `${spec.kind}: gradient rel err ${err}`);
        assert.ok(Math.abs(fb.loss - want.loss) < 1e-5 * Math.max(1, Math.abs(want.loss)));
        for (const k of ["loss/tokens", "loss/clip_fraction", "loss/entropy_mean", "loss/kl_mean"])
          assert.ok(
            Math.abs(fb.metrics[k]! - want.metrics[k]!) <
              1e-6 * Math.max(1, Math.abs(want.metrics[k]!)),
            `${spec.kind} ${k}: ${fb.metrics[k]} vs ${want.metrics[k]}`,
          );
        // clear the accumulated gradient without moving the weights
        await b.optimStep({ lr: 0 });
      }
    } finally {
      await b.close();
    }
  });

  it("computeLogprobs equals the model's own, whatever the split", async () => {
    const b = await LocalBackend.create({ model: tiny, seed: 5, trainWorkers: 2 });
    try {
      const ref = new Gpt(tiny, { seed: 5, kernel: "js" });
      const datums = makeDatums(7, 2);
      const lp = await b.computeLogprobs(datums);
      for (const [i, d] of datums.entries()) {
        const want = ref.tokenLogprobs(Int32Array.from(d.tokens), 1, d.tokens.length);
        assert.equal(lp[i]!.length, d.tokens.length);
        assert.equal(lp[i]![0], 0);
        assert.ok(maxAbs(lp[i]!, want) < 1e-5, `row ${i}`);
      }
    } finally {
      await b.close();
    }
  });

  it("a step matches AdamW on one model; seeded runs are identical", async () => {
    const datums = makeDatums(6, 4);
    const run = async (workers: number) => {
      const b = await LocalBackend.create({ model: tiny, seed: 9, trainWorkers: workers });
      try {
        for (let s = 0; s < 3; s++) {
          await b.forwardBackward(datums, { kind: "cross_entropy" } as never);
          await b.optimStep({ lr: 1e-2, weightDecay: 0.1, maxGradNorm: 1 });
        }
        return b.params.slice();
      } finally {
        await b.close();
      }
    };
    const a1 = await run(2);
    const a2 = await run(2);
    assert.deepEqual(a1, a2, "same seed and config: bit-identical weights");
    const ref = new Gpt(tiny, { seed: 9, kernel: "js" });
    const opt = new AdamW(ref.numParams, decayMask(ref.params, ref.numParams));
    for (let s = 0; s < 3; s++) {
      ref.zeroGrad();
      lossAndGrad(ref, datums, { kind: "cross_entropy" });
      opt.step(ref.paramData, ref.gradData, { lr: 1e-2, weightDecay: 0.1, maxGradNorm: 1 });
    }
    assert.ok(maxAbs(a1, ref.paramData) < 1e-4, `vs one model: ${maxAbs(a1, ref.paramData)}`);
  });

  it("save → load gives identical logprobs and an identical next step", async () => {
    const datums = makeDatums(6, 6);
    const ce = LossSpecSchema.parse({ kind: "cross_entropy" });
    const ckpt = join(dir, "step-2");
    const a = await LocalBackend.create({ model: tiny, seed: 1 });
    const b = await LocalBackend.create({ model: tiny, seed: 77 }); // different weights
    try {
      for (let s = 0; s < 2; s++) {
        await a.forwardBackward(datums, ce);
        await a.optimStep({ lr: 3e-3 });
      }
      await a.saveForSampler();
      await a.save(ckpt);
      await b.load(ckpt);
      assert.equal(b.step, 2);
      assert.equal(b.weightVersion, 1);
      assert.deepEqual(await b.computeLogprobs(datums), await a.computeLogprobs(datums));
      for (const x of [a, b]) {
        await x.forwardBackward(datums, ce);
        await x.optimStep({ lr: 3e-3 });
      }
      assert.deepEqual(b.params, a.params, "the step after a load is the step without one");
      // a backend created from the checkpoint resumes the optimizer too
      const c = await LocalBackend.create({ checkpoint: ckpt });
      try {
        assert.equal(c.step, 2);
        await c.forwardBackward(datums, ce);
        await c.optimStep({ lr: 3e-3 });
        assert.deepEqual(c.params, a.params);
      } finally {
        await c.close();
      }
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("SFT on a fixed tiny dataset drives the loss down", async () => {
    const b = await LocalBackend.create({ model: tiny, seed: 2, initStd: 0.05 });
    try {
      const text = ["2+3=5", "4*2=8", "9-7=2", "6/3=2"];
      const datums: Datum[] = text.map((s, i) => {
        const tokens = [258, ...Buffer.from(s)];
        return {
          tokens,
          lossMask: tokens.map((_, t) => (t >= 4 ? 1 : 0) as 0 | 1),
          advantages: tokens.map(() => 0),
          samplingLogprobs: tokens.map(() => 0),
          weightVersion: 0,
          groupId: String(i),
        };
      });
      const ce = LossSpecSchema.parse({ kind: "cross_entropy" });
      const first = (await b.forwardBackward(datums, ce)).loss;
      await b.optimStep({ lr: 1e-2 });
      let last = first;
      for (let s = 0; s < 40; s++) {
        last = (await b.forwardBackward(datums, ce)).loss;
        await b.optimStep({ lr: 1e-2 });
      }
      assert.ok(first > 4, `starts near log(264): ${first}`);
      assert.ok(last < first / 4, `loss ${first} → ${last}`);
    } finally {
      await b.close();
    }
  });

  it("its sampler reports the logprobs computeLogprobs gives; saveForSampler goes live", async () => {
    const b = await LocalBackend.create({ model: tiny, seed: 12, initStd: 0.08, trainWorkers: 2 });
    try {
      const s = await b.sampler();
      assert.equal(s.kind, "vllm");
      assert.equal(s.weightVersion, 0);
      const ask = async () => {
        const res = await fetch(`${s.baseURL}/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            model: s.model,
            prompt: [258, 104, 105],
            max_tokens: 20,
            n: 4,
            seed: 5,
            logprobs: 0,
            return_token_ids: true,
          }),
        });
        assert.equal(res.status, 200);
        const body = (await res.json()) as {
          prompt_token_ids?: number[];
          choices: { token_ids: number[]; logprobs: { token_logprobs: number[] } }[];
        };
        return { version: res.headers.get("x-rllm-weight-version"), body };
      };
      const check = async (r: Awaited<ReturnType<typeof ask>>) => {
        let worst = 0;
        for (const c of r.body.choices) {
          const tokens = [258, 104, 105, ...c.token_ids];
          const [lp] = await b.computeLogprobs([{ tokens }]);
          const mine = lp!.slice(3);
          worst = Math.max(worst, maxAbs(mine, c.logprobs.token_logprobs));
        }
        return worst;
      };
      const r0 = await ask();
      assert.equal(r0.version, "0");
      const d0 = await check(r0);
      assert.ok(d0 < 1e-4, `sampler vs computeLogprobs: max abs diff ${d0}`);
      // a step, then saveForSampler: the sampler answers with the new weights at once
      await b.forwardBackward(makeDatums(4, 13), LossSpecSchema.parse({ kind: "cross_entropy" }));
      await b.optimStep({ lr: 5e-2 });
      assert.equal((await ask()).version, "0", "not live before saveForSampler");
      assert.deepEqual(await b.saveForSampler(), { weightVersion: 1 });
      const r1 = await ask();
      assert.equal(r1.version, "1");
      assert.equal((await b.sampler()).weightVersion, 1);
      const d1 = await check(r1);
      assert.ok(d1 < 1e-4, `after the update: max abs diff ${d1}`);
      assert.notDeepEqual(r1.body.choices, r0.body.choices);
      console.log(`sampler vs computeLogprobs max abs diff: ${Math.max(d0, d1).toExponential(2)}`);
    } finally {
      await b.close();
    }
  });

  it("refuses bad config and bad input with errors that say what to fix", async () => {
    await assert.rejects(LocalBackend.create({ trainWorker: 2 } as never), /trainWorker/);
    await assert.rejects(
      LocalBackend.create({ model: { ...tiny, dModel: 33 } }),
      /dModel 33 must be a multiple of nHeads 2/,
    );
    await assert.rejects(
      LocalBackend.create({ checkpoint: join(dir, "nope") }),
      /no checkpoint at .*nope/,
    );
    const b = await LocalBackend.create({ model: tiny, trainWorkers: 1 });
    try {
      const [d] = makeDatums(1, 8);
      const ce = LossSpecSchema.parse({ kind: "cross_entropy" });
      await assert.rejects(
        b.forwardBackward([{ ...d!, tokens: [...d!.tokens.slice(0, -1), 999] }], ce),
        /token id 999, outside the model's vocabulary \[0, 264\)/,
      );
      await assert.rejects(
        b.forwardBackward([{ ...d!, lossMask: [1] }], ce),
        /datum 0: lossMask has 1 entries but tokens has/,
      );
      const long = Array.from({ length: 60 }, () => 1 as const);
      await assert.rejects(
        b.forwardBackward(
          [{ ...d!, tokens: long, lossMask: long, advantages: long, samplingLogprobs: long }],
          ce,
        ),
        /60 tokens; the model's context is 48 \(truncate it, or raise model.maxSeqLen\)/,
      );
      await assert.rejects(b.optimStep({ lr: Number.NaN }), /lr must be a finite number/);
      await b.forwardBackward([d!], ce);
      await assert.rejects(b.save(join(dir, "pending")), /call optimStep\(\) first/);
      await b.optimStep({ lr: 1e-3 });
      await b.save(join(dir, "tiny"));
      await assert.rejects(
        LocalBackend.create({ checkpoint: join(dir, "tiny"), model: { ...tiny, nLayers: 2 } }),
        /differs from the checkpoint's config \(nLayers: 2 vs 1\)/,
      );
      const other = await LocalBackend.create({ model: { ...tiny, dModel: 64 }, trainWorkers: 1 });
      try {
        await assert.rejects(other.load(join(dir, "tiny")), /another config \(dModel: 64 vs 32\)/);
      } finally {
        await other.close();
      }
    } finally {
      await b.close();
    }
    await assert.rejects(b.computeLogprobs([{ tokens: [1, 2] }]), /closed/);
  });
});
