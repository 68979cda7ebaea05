import assert from "node:assert/strict";
import { test } from "node:test";
import { LossSpecSchema } from "../algorithms/loss.js";
import { type BackendCapabilities, checkLossSupported, UnsupportedOptionError } from "./spi.js";

const caps: BackendCapabilities = {
  lossKinds: ["cross_entropy", "importance_sampling", "ppo"],
  kl: false,
  entropyBonus: true,
  tisCap: true,
  aggregations: ["token-mean"],
};

test("a loss the backend supports passes", () => {
  checkLossSupported("x", caps, LossSpecSchema.parse({ kind: "ppo", clipHigh: 0.28, tisCap: 2 }));
  checkLossSupported("x", caps, LossSpecSchema.parse({ kind: "cross_entropy" }));
});

test("an unsupported knob is a startup error naming it", () => {
  const cases: [unknown, RegExp][] = [
    [
      { kind: "cispo" },
      /does not support loss.kind "cispo"; it supports cross_entropy, importance_sampling, ppo/,
    ],
    [{ kind: "ppo", kl: { coef: 0.01 } }, /does not support loss.kl/],
    [
      { kind: "ppo", aggregation: "seq-mean-token-sum" },
      /loss.aggregation "seq-mean-token-sum"; it supports token-mean/,
    ],
  ];
  for (const [spec, re] of cases) {
    assert.throws(
      () => checkLossSupported("x", caps, LossSpecSchema.parse(spec)),
      (e: unknown) => e instanceof UnsupportedOptionError && re.test(e.message),
    );
  }
  assert.throws(
    () =>
      checkLossSupported(
        "x",
        { ...caps, entropyBonus: false },
        LossSpecSchema.parse({ kind: "ppo", entropyCoef: 0.01 }),
      ),
    /loss.entropyCoef/,
  );
  assert.throws(
    () =>
      checkLossSupported(
        "x",
        { ...caps, tisCap: false },
        LossSpecSchema.parse({ kind: "ppo", tisCap: 2 }),
      ),
    /tisCap/,
  );
});
