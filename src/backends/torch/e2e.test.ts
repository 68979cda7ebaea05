/**
 * End to end through the CLI's entry points (runTrainCommand / runEvalCommand with config layers,
 * as src/cli/*.test.ts call them) on the torch backend and its real worker:
 *
 *   - `rllm train gsm8k --backend torch` with backend.model a tiny random Qwen3 (Qwen3's vocabulary
 *     and its real tokenizer and chat template; LoRA): 2 steps with metrics and a checkpoint, then
 *     --resume continues the step count;
 *   - `rllm train countdown --backend torch` from the countdown recipe's base exported as a Hugging
 *     Face directory (a 2-step SFT base in a temporary RLLM_HOME), full fine-tuning: 2 steps with
 *     metrics and a checkpoint; then `rllm eval countdown --backend torch --checkpoint RUN` scores.
 *
 * Seven worker starts in all (a trainer and a sampler per training run, a sampler for the eval).
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { evalFlagsToConfig, runEvalCommand } from "../../cli/eval.js";
import { loadTrainConfig, runTrainCommand, trainFlagsToConfig } from "../../cli/train.js";
import { loadConfig } from "../../config/index.js";
import type { EvalResults } from "../../engine/index.js";
import { countdownBaseDir, ensureCountdownBase } from "../../recipes/countdown.js";
import { tinyQwen3 } from "../../testing/tiny-models.js";
import { readTorchManifest } from "./checkpoint.js";

const tmp = mkdtempSync(join(tmpdir(), "rllm-torch-e2e-"));
after(() => rmSync(tmp, { recursive: true, force: true }));
const DATA = new URL("../../benchmarks/fixtures/data/", import.meta.url).pathname;

function writeJson(path: string, value: unknown): string {
  writeFileSync(path, JSON.stringify(value));
  return path;
}

/** The training steps metrics.jsonl records (its final line aside). */
function metricSteps(run: string): number[] {
  return readFileSync(join(run, "metrics.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { step: number; final?: unknown })
    .filter((m) => !m.final)
    .map((m) => m.step);
}

/** What every run here shares: small steps, no validation between, every group trained. */
const SMALL = {
  backend: "torch",
  groupSize: 2,
  batchSize: 2,
  valFreq: 0,
  valExamples: 1,
  valAttempts: 1,
} as const;

describe("rllm train gsm8k --backend torch, backend.model a tiny Qwen3", () => {
  const model = join(tmp, "qwen3");
  const output = join(tmp, "gsm8k-run");
  const logs: string[] = [];
  const train = (flags: Parameters<typeof trainFlagsToConfig>[0]) => {
    const file = writeJson(join(tmp, "gsm8k.json"), {
      backend: { name: "torch", model, device: "cpu", lora: { rank: 4 }, sampler: { lanes: 1 } },
      trainer: {
        samplingParams: { temperature: 1, max_tokens: 6 },
        valSamplingParams: { temperature: 1, max_tokens: 6 },
      },
      algorithm: { dropZeroVarianceGroups: false },
    });
    const config = loadTrainConfig("gsm8k", {
      file,
      env: {},
      flags: trainFlagsToConfig({ ...SMALL, dataDir: DATA, output, ...flags }),
    });
    return runTrainCommand("gsm8k", config, { log: (l) => logs.push(l) });
  };

  test("2 steps: metrics and a checkpoint; --resume continues the step count", async () => {
    tinyQwen3(model);
    const first = await train({ maxSteps: 2 });
    assert.equal(first.steps, 2);
    assert.ok(first.lastCheckpoint, "a checkpoint");
    assert.deepEqual(
      metricSteps(output).filter((s) => s > 0),
      [1, 2],
    );
    const step2 = join(output, "checkpoints", "step-2", "backend");
    const manifest = await readTorchManifest(step2);
    assert.equal(manifest.kind, "lora");
    assert.equal(manifest.baseModel, model);

    const resumed = await train({ maxSteps: 3, resume: true });
    assert.equal(resumed.steps, 3);
    assert.equal(resumed.newSteps, 1, "one step this run, after the two of the first");
    assert.deepEqual(
      metricSteps(output).filter((s) => s > 0),
      [1, 2, 3],
    );
    assert.ok(
      logs.some((l) => /resume: step 2 from/.test(l)),
      logs.join("\n"),
    );
    assert.ok(existsSync(join(output, "checkpoints", "step-3", "backend", "rllm.json")));
  });
});

describe("rllm train countdown --backend torch, then rllm eval --checkpoint RUN", () => {
  const home = join(tmp, "home");
  const output = join(tmp, "countdown-run");

  test("from the exported countdown base: 2 steps with metrics and a checkpoint, then eval scores", async () => {
    // a 2-step SFT base where the recipe looks for its 800-step one
    renameSync(
      await ensureCountdownBase({ home, steps: 2, log: () => {} }),
      countdownBaseDir(home),
    );
    const logs: string[] = [];
    const file = writeJson(join(tmp, "countdown.json"), {
      backend: { name: "torch", sampler: { lanes: 1 } },
      algorithm: { dropZeroVarianceGroups: false },
    });
    const config = loadTrainConfig("countdown", {
      file,
      env: {},
      flags: trainFlagsToConfig({ ...SMALL, maxSteps: 2, output }),
    });
    assert.equal(
      config.backend.name === "torch" && config.backend.device,
      "cpu",
      "the recipe's default",
    );
    const r = await runTrainCommand("countdown", config, { log: (l) => logs.push(l), home });
    assert.equal(r.steps, 2);
    assert.deepEqual(
      metricSteps(output).filter((s) => s > 0),
      [1, 2],
    );
    const hf = `${countdownBaseDir(home)}-hf`;
    assert.ok(existsSync(join(hf, "config.json")), "the base exported as a Hugging Face directory");
    const manifest = await readTorchManifest(join(output, "checkpoints", "step-2", "backend"));
    assert.equal(manifest.kind, "full");
    assert.equal(manifest.baseModel, hf, "trained from the recipe's base");
    assert.ok(
      logs.some((l) => l.includes("agent countdown-local") && l.includes(hf)),
      logs.join("\n"),
    );

    const evalOut = join(tmp, "countdown-eval");
    const code = await runEvalCommand(
      "countdown",
      loadConfig({
        file: writeJson(join(tmp, "eval.json"), {
          backend: { name: "torch", device: "cpu", sampler: { lanes: 1 } },
        }),
        env: {},
        flags: evalFlagsToConfig({
          backend: "torch",
          checkpoint: output,
          maxExamples: 3,
          output: evalOut,
        }),
      }),
    );
    assert.equal(code, 0);
    const results = JSON.parse(readFileSync(join(evalOut, "results.json"), "utf8")) as EvalResults;
    assert.equal(results.total, 3);
    assert.equal(results.infraFailed, 0);
    assert.equal(results.agent, "countdown-local");
    assert.ok(results.items.every((i) => i.taskId.startsWith("countdown/test/")));
    assert.equal(typeof results.passAtK["1"], "number");
  });
});
