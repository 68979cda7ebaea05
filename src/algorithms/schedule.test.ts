import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { learningRate } from "./schedule.js";

function close(a: number, b: number): void {
  assert.ok(Math.abs(a - b) < 1e-12, `${a} vs ${b}`);
}

describe("learning-rate schedule", () => {
  const base = { lr: 1, warmupSteps: 10, totalSteps: 110 };
  test("warmup then constant / linear / cosine", () => {
    close(learningRate({ ...base, decay: "constant" }, 0), 0.1);
    close(learningRate({ ...base, decay: "constant" }, 9), 1);
    close(learningRate({ ...base, decay: "constant" }, 100), 1);
    close(learningRate({ ...base, decay: "linear" }, 60), 0.5);
    close(learningRate({ ...base, decay: "linear" }, 110), 0);
    close(learningRate({ ...base, decay: "cosine" }, 60), 0.5);
    close(learningRate({ ...base, decay: "cosine", minRatio: 0.1 }, 110), 0.1);
    close(learningRate({ ...base, decay: "cosine" }, 35), 0.5 * (1 + Math.cos(Math.PI / 4)));
  });
  test("a time-bounded run decays by the share of its budget spent, not by step", () => {
    const open = { lr: 1, warmupSteps: 2, totalSteps: Number.POSITIVE_INFINITY };
    close(learningRate({ ...open, decay: "cosine" }, 0, 0.9), 0.5); // warmup still by step
    close(learningRate({ ...open, decay: "cosine" }, 50, 0.5), 0.5);
    close(learningRate({ ...open, decay: "linear", minRatio: 0.2 }, 7, 0.25), 0.8);
    close(learningRate({ ...open, decay: "cosine", minRatio: 0.1 }, 9, 1.7), 0.1); // past the budget
    close(learningRate({ ...open, decay: "constant" }, 9, 0.5), 1);
    close(learningRate({ ...base, decay: "linear" }, 60, 0), 1); // progress wins over steps
  });
});
