/**
 * Golden cases of the reference loss for the torch worker (python/tests/test_loss.py): every loss
 * kind × aggregation × KL estimator × entropy bonus × TIS cap, each on a few input batches (masks,
 * zero advantages, ratios clipped on both sides, capped TIS weights, proximal logprobs given or
 * not, a batch with no masked-in token). The cases are built here from {@link referenceLoss} and
 * compared with the committed JSON, so loss.ts cannot drift from what the worker is tested
 * against: after a deliberate change to loss.ts, rewrite the file with
 *
 *     RLLM_WRITE_GOLDENS=1 node --import tsx --test src/algorithms/loss-goldens.test.ts
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import {
  AggregationSchema,
  type LossRow,
  type LossSpecInput,
  LossSpecSchema,
  referenceLoss,
} from "./loss.js";

const GOLDEN_PATH = fileURLToPath(
  new URL("../../python/tests/golden/loss_cases.json", import.meta.url),
);
const REWRITE = "RLLM_WRITE_GOLDENS=1 node --import tsx --test src/algorithms/loss-goldens.test.ts";

// Ratios r = exp(logprob − proximal) of about 1.6, 0.5, 1.05, 0.9, 1.35, 0.6: above and below both
// clip ranges, with advantages of both signs and zero; exp(proximal − sampling) above and below
// the TIS cap of 1.5.
const withProximal: LossRow[] = [
  {
    logprobs: [-1.2, -0.3, -2.0, -0.05, -0.7],
    samplingLogprobs: [-1.0, -1.4, -1.1, -0.2, -0.9],
    proximalLogprobs: [-1.1, -0.77, -1.3, -0.1, -0.6],
    refLogprobs: [-1.3, -0.5, -1.7, -0.1, -1.0],
    advantages: [0.5, 1.0, -1.0, 0.0, -0.5],
    mask: [0, 1, 1, 1, 1],
    entropy: [2.0, 1.1, 0.4, 2.5, 0.9],
  },
  {
    logprobs: [-0.4, -1.6, -0.9, -3.0],
    samplingLogprobs: [-0.5, -2.3, -0.7, -2.4],
    proximalLogprobs: [-0.6, -1.9, -0.8, -2.5],
    refLogprobs: [-0.2, -1.9, -1.4, -2.2],
    advantages: [-1.5, -1.5, 2.0, 2.0],
    mask: [0, 1, 0, 1],
    entropy: [0.3, 1.7, 0.8, 3.1],
  },
  {
    logprobs: [-0.8, -0.9],
    samplingLogprobs: [-0.8, -0.85],
    proximalLogprobs: [-0.8, -0.88],
    refLogprobs: [-0.8, -0.9],
    advantages: [1.0, 1.0],
    mask: [0, 0],
    entropy: [1.0, 1.0],
  },
];

const samplingOnly: LossRow[] = withProximal.map(({ proximalLogprobs: _p, ...row }) => row);

const noTokens: LossRow[] = withProximal.map((row) => ({
  ...row,
  mask: row.mask.map(() => 0),
}));

const INPUTS: Record<string, LossRow[]> = {
  proximal: withProximal,
  sampling: samplingOnly,
  "no-tokens": noTokens,
};

const KINDS: LossSpecInput[] = [
  { kind: "cross_entropy" },
  { kind: "importance_sampling" },
  { kind: "ppo", clipLow: 0.2, clipHigh: 0.28 },
  { kind: "cispo", clipLow: 0.3, clipHigh: 0.28 },
];

function specs(): LossSpecInput[] {
  const out: LossSpecInput[] = [];
  for (const base of KINDS)
    for (const aggregation of AggregationSchema.options)
      for (const estimator of [undefined, "k1", "k2", "k3"] as const)
        for (const entropyCoef of [0, 0.01])
          for (const tisCap of base.kind === "cross_entropy" ? [undefined] : [undefined, 1.5]) {
            const spec = { ...base, aggregation, entropyCoef } as LossSpecInput;
            if (estimator) spec.kl = { coef: 0.1, estimator };
            if (tisCap !== undefined && spec.kind !== "cross_entropy") spec.tisCap = tisCap;
            out.push(spec);
          }
  return out;
}

function buildGoldens() {
  const cases = [];
  for (const input of specs())
    for (const [name, rows] of Object.entries(INPUTS)) {
      const r = referenceLoss(input, rows);
      // the spec as the torch backend sends it: defaults filled in
      cases.push({
        spec: LossSpecSchema.parse(input),
        inputs: name,
        loss: r.loss,
        grad: r.grad,
        metrics: r.metrics,
      });
    }
  return { generatedBy: "src/algorithms/loss-goldens.test.ts", inputs: INPUTS, cases };
}

test("the torch worker's loss goldens match referenceLoss", () => {
  const goldens = buildGoldens();
  if (process.env["RLLM_WRITE_GOLDENS"] === "1") {
    // one line per case, so a change to loss.ts shows in a diff as the cases it moved
    const lines = goldens.cases.map((c) => JSON.stringify(c));
    const head = `"generatedBy": ${JSON.stringify(goldens.generatedBy)},\n"inputs": ${JSON.stringify(goldens.inputs)}`;
    writeFileSync(GOLDEN_PATH, `{${head},\n"cases": [\n${lines.join(",\n")}\n]}\n`);
    return;
  }
  let committed: unknown;
  try {
    committed = JSON.parse(readFileSync(GOLDEN_PATH, "utf8"));
  } catch (e) {
    assert.fail(`cannot read ${GOLDEN_PATH} (${(e as Error).message}); write it with: ${REWRITE}`);
  }
  assert.deepStrictEqual(
    committed,
    JSON.parse(JSON.stringify(goldens)),
    `python/tests/golden/loss_cases.json differs from what loss.ts computes now; if loss.ts changed on purpose, rewrite it with: ${REWRITE}`,
  );
});

test("the goldens cover every kind, aggregation, KL estimator, entropy bonus and TIS cap", () => {
  const { cases } = buildGoldens();
  const seen = (f: (s: (typeof cases)[number]["spec"]) => unknown) =>
    new Set(cases.map((c) => JSON.stringify(f(c.spec) ?? null)));
  assert.equal(seen((s) => s.kind).size, 4);
  assert.equal(seen((s) => s.aggregation).size, 3);
  assert.equal(seen((s) => s.kl?.estimator).size, 4);
  assert.equal(seen((s) => s.entropyCoef).size, 2);
  assert.equal(seen((s) => ("tisCap" in s ? s.tisCap : undefined)).size, 2);
  // the inputs exercise what the formulas branch on
  const ppo = cases.filter((c) => c.spec.kind === "ppo" && c.inputs === "proximal");
  assert.ok(ppo.every((c) => c.metrics["loss/clip_fraction"]! > 0));
  const capped = cases.filter((c) => "tisCap" in c.spec && c.inputs === "proximal");
  assert.ok(capped.every((c) => c.metrics["loss/tis_capped_fraction"]! > 0));
  assert.ok(cases.filter((c) => c.inputs === "no-tokens").every((c) => c.loss === 0));
});
