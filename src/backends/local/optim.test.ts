import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { Gpt } from "./model.js";
import { AdamW, clipGradNorm, decayMask } from "./optim.js";

const close = (a: number, b: number, tol = 1e-6) =>
  assert.ok(Math.abs(a - b) <= tol, `${a} vs ${b}`);

describe("AdamW", () => {
  test("matches a hand-computed step on 3 parameters", () => {
    // θ = [1, −2, 0.5], g = [0.1, −0.2, 0], lr 0.1, β₁ 0.9, β₂ 0.999, ε 1e-8, λ 0.01, decay on 0 and 2.
    // Step 1: m = 0.1·g, v = 0.001·g², m̂ = g, v̂ = g², so m̂/(√v̂ + ε) = sign(g) (0 where g = 0):
    //   θ₀ = 1 − 0.1·0.01·1 − 0.1·1 = 0.899
    //   θ₁ = −2 − 0.1·(−1) = −1.9                       (no decay)
    //   θ₂ = 0.5 − 0.1·0.01·0.5 − 0 = 0.4995
    const p = Float32Array.from([1, -2, 0.5]);
    const g = Float32Array.from([0.1, -0.2, 0]);
    const opt = new AdamW(3, Uint8Array.from([1, 0, 1]));
    const o = { lr: 0.1, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.01 };
    const r = opt.step(p, g, o);
    close(r.gradNorm, Math.sqrt(0.05));
    close(p[0]!, 0.899);
    close(p[1]!, -1.9);
    close(p[2]!, 0.4995);
    // Step 2 with g = [0.3, −0.2, 0]: m₀ = 0.9·0.01 + 0.1·0.3 = 0.039, v₀ = 0.999·1e-5 + 0.001·0.09
    //   = 9.999e-5; m̂ = 0.039/0.19, v̂ = 9.999e-5/(1 − 0.999²)
    const g2 = Float32Array.from([0.3, -0.2, 0]);
    opt.step(p, g2, o);
    const mHat = 0.039 / (1 - 0.9 ** 2);
    const vHat = 9.999e-5 / (1 - 0.999 ** 2);
    close(p[0]!, 0.899 - 0.1 * 0.01 * 0.899 - (0.1 * mHat) / (Math.sqrt(vHat) + 1e-8), 1e-6);
    close(p[1]!, -1.8, 1e-6); // g constant: m̂/√v̂ = −1 again
    assert.equal(opt.state.step, 2);
  });

  test("global gradient-norm clipping", () => {
    const g = Float32Array.from([3, 4]);
    close(clipGradNorm(g, 1), 5);
    close(Math.hypot(g[0]!, g[1]!), 1, 1e-5);
    const h = Float32Array.from([0.3, 0.4]);
    clipGradNorm(h, 1);
    assert.deepEqual(h, Float32Array.from([0.3, 0.4]));
  });

  test("decay applies to linear weights only", () => {
    const model = new Gpt({
      vocabSize: 8,
      dModel: 4,
      nLayers: 1,
      nHeads: 1,
      maxSeqLen: 4,
      mlpRatio: 4,
      positional: "learned",
      tiedHead: true,
    });
    const mask = decayMask(model.params, model.numParams);
    for (const p of model.params) {
      const want = p.kind === "linear" ? 1 : 0;
      for (let i = p.offset; i < p.offset + p.size; i++) assert.equal(mask[i], want, p.name);
    }
  });
});
