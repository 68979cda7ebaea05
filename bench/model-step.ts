/**
 * One training step of the local model on one thread: zeroGrad, lossAndGrad (cross-entropy) and
 * an AdamW step over a batch of 32 rows × 32 random tokens, with the countdown-sized model (d128,
 * 2 layers, 4 heads, vocabulary 264, RoPE). Prints the parameter count, ms per step (mean and
 * median of 10 steps after 3 warm-up steps) and training tokens per second.
 *
 *   node --import tsx bench/model-step.ts
 *
 * (It was the "timing" test of model.test.ts, which asserted nothing; bench/local-backend.ts
 * measures the same step at more shapes, against PyTorch, with its phases.)
 */
import { type LossDatum, lossAndGrad } from "../src/backends/local/loss-and-grad.js";
import { Gpt, type GptConfig } from "../src/backends/local/model.js";
import { AdamW, decayMask } from "../src/backends/local/optim.js";
import { mulberry32 } from "../src/random.js";

const B = 32;
const T = 32;
const WARMUP = 3;
const STEPS = 10;

const config: GptConfig = {
  vocabSize: 264,
  dModel: 128,
  nLayers: 2,
  nHeads: 4,
  maxSeqLen: T,
  mlpRatio: 4,
  positional: "rope",
  tiedHead: true,
};

const model = new Gpt(config, { seed: 0 });
const rand = mulberry32(1);
const datums: LossDatum[] = Array.from({ length: B }, () => {
  const tokens = Array.from({ length: T }, () => Math.floor(rand() * config.vocabSize));
  const zeros = tokens.map(() => 0);
  return { tokens, lossMask: tokens.map(() => 1), advantages: zeros, samplingLogprobs: zeros };
});
const opt = new AdamW(model.numParams, decayMask(model.params, model.numParams));
const step = () => {
  model.zeroGrad();
  lossAndGrad(model, datums, { kind: "cross_entropy" });
  opt.step(model.paramData, model.gradData, { lr: 1e-3, maxGradNorm: 1 });
};

for (let i = 0; i < WARMUP; i++) step();
const times: number[] = [];
for (let i = 0; i < STEPS; i++) {
  const t0 = performance.now();
  step();
  times.push(performance.now() - t0);
}
const mean = times.reduce((a, b) => a + b, 0) / STEPS;
const median = times.sort((a, b) => a - b)[STEPS >> 1]!;
console.log(
  `\n## One local-model training step, B${B}×T${T}, d${config.dModel}, L${config.nLayers}, H${config.nHeads}, vocab ${config.vocabSize} (single thread${model.usesWasm ? ", wasm SIMD" : ", plain JS"})\n`,
);
console.log(
  `${model.numParams} params: ${mean.toFixed(1)} ms/step mean, ${median.toFixed(1)} median, ` +
    `${(((B * T) / mean) * 1000).toFixed(0)} tok/s`,
);
