import assert from "node:assert/strict";
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { loadConfig } from "../config/index.js";
import { COUNTDOWN_RECIPE, countdownBaseDir, ensureCountdownBase } from "../recipes/countdown.js";
import { saveTinyLocalCheckpoint } from "../testing/tiny-local.js";
import { loadTrainConfig, runTrainCommand, trainFlagsToConfig } from "./train.js";

const run = promisify(execFile);
const cli = join(import.meta.dirname, "index.ts");

function lines(path: string): { step: number; tasks: { id: string; ordinal: number }[] }[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .flatMap((l) => {
      try {
        return [JSON.parse(l)];
      } catch {
        return [];
      }
    });
}

describe("rllm train", () => {
  const dir = mkdtempSync(join(tmpdir(), "rllm-train-cli-"));
  const ckpt = join(dir, "ckpt");
  const cfg = join(dir, "config.json");
  before(async () => {
    await saveTinyLocalCheckpoint(ckpt);
    writeFileSync(
      cfg,
      JSON.stringify({
        backend: { name: "local", trainWorkers: 1 },
        trainer: {
          samplingParams: { temperature: 1, max_tokens: 8 },
          valSamplingParams: { temperature: 1, max_tokens: 8 },
        },
        // the random model rarely solves a task: keep the groups so every step trains
        algorithm: { dropZeroVarianceGroups: false },
      }),
    );
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it("kill -9 mid-run, then --resume: every task trained exactly once, steps continue", async () => {
    const output = join(dir, "run");
    const args = [
      "--import",
      "tsx",
      cli,
      "train",
      "countdown",
      "--checkpoint",
      ckpt,
      "--output",
      output,
      "--max-steps",
      "8",
      "--save-freq",
      "2",
      "--group-size",
      "2",
      "--batch-size",
      "2",
      "--val-freq",
      "0",
      "--val-examples",
      "2",
      "--val-attempts",
      "1",
      "--config",
      cfg,
    ];
    const consumedPath = join(output, "consumed.jsonl");
    const child: ChildProcess = spawn(process.execPath, args, { stdio: "ignore", detached: true });
    const exited = new Promise((r) => child.once("exit", r));
    // wait until step 3 is recorded (a checkpoint exists at step 2), then kill at once
    const t0 = Date.now();
    while (lines(consumedPath).length < 3) {
      if (Date.now() - t0 > 120_000) throw new Error("the run made no progress");
      if (child.exitCode !== null) throw new Error(`the run exited early (${child.exitCode})`);
      await new Promise((r) => setTimeout(r, 20));
    }
    process.kill(-child.pid!, "SIGKILL");
    await exited;
    const before = lines(consumedPath).length;
    assert.ok(before >= 3);

    const { stderr } = await run(process.execPath, [...args, "--resume"]);
    assert.match(stderr, /resume: step [2-8] from/);
    const consumed = lines(consumedPath);
    assert.deepEqual(
      consumed.map((c) => c.step),
      [1, 2, 3, 4, 5, 6, 7, 8],
      "each step once",
    );
    const ordinals = consumed.flatMap((c) => c.tasks.map((t) => t.ordinal)).sort((a, b) => a - b);
    assert.deepEqual(
      ordinals,
      Array.from({ length: 16 }, (_, i) => i),
      "each task once",
    );
    const steps = lines(join(output, "metrics.jsonl"))
      .filter((m) => !(m as { final?: number }).final)
      .map((m) => m.step);
    assert.deepEqual(steps, [0, 1, 2, 3, 4, 5, 6, 7, 8]);
    assert.match(stderr, /rllm train: 8 steps/);
  });

  it("bad flags are errors that say what to fix", async () => {
    const fail = async (flags: Parameters<typeof trainFlagsToConfig>[0], re: RegExp) =>
      assert.rejects(
        (async () =>
          runTrainCommand("countdown", loadConfig({ env: {}, flags: trainFlagsToConfig(flags) }), {
            log: () => {},
          }))(),
        re,
      );
    await fail({ loss: "dpo" }, /algorithm\.loss/);
    await fail({ resume: true }, /--resume needs --output DIR/);
    // the judge is checked before anything starts: no policy as the judge, no stray judge keys
    await fail({ judgeModel: "j" }, /judge\.baseUrl \(--judge-url URL\): rllm train's judge/);
    await fail({ judgeUrl: "http://127.0.0.1:9/v1" }, /judge\.baseUrl: set judge\.model/);
    await fail({ backend: "tinker" }, /backend\.name/);
    await fail(
      { checkpoint: join(dir, "nope"), output: join(dir, "x") },
      /no checkpoint at .*nope/,
    );
    // --checkpoint goes through the one resolver (trainer/checkpoint-path.ts) that eval and serve use
    await fail(
      { checkpoint: dir, output: join(dir, "x") },
      /is not an rllm checkpoint, a training step or a run directory: looked for rllm\.json/,
    );
    // the recipe's tasks come from the configured splits: one it does not have is refused
    await assert.rejects(
      runTrainCommand(
        "countdown",
        loadConfig({
          env: {},
          flags: { trainer: { valSplit: "validation", output: join(dir, "x") } },
        }),
        { log: () => {} },
      ),
      /countdown \(local recipe\) has splits train and test, not "validation"/,
    );
    await assert.rejects(
      run(process.execPath, ["--import", "tsx", cli, "train", "countdown", "--group-size", "x"]),
      /--group-size x: must be a non-negative integer/,
    );
  });

  it("the countdown recipe's RL settings are defaults that a file, the environment and flags override", () => {
    const rl = COUNTDOWN_RECIPE.rl;
    const recipe = loadTrainConfig("countdown", { env: {}, flags: trainFlagsToConfig({}) });
    assert.equal(recipe.optim.lr, rl.optim.lr);
    assert.equal(recipe.optim.schedule, "cosine");
    assert.equal(recipe.engine.concurrency, rl.engine.concurrency);
    assert.equal(recipe.trainer.batchSize, rl.trainer.batchSize);
    assert.equal(recipe.trainer.valFreq, rl.trainer.valFreq);
    // training answers explore at 1.4; validation samples the policy itself, at 1
    assert.deepEqual(recipe.trainer.samplingParams, { temperature: 1.4 });
    assert.deepEqual(recipe.trainer.valSamplingParams, { temperature: 1 });
    const b = recipe.backend as { sampler: { workers: number } };
    assert.equal(b.sampler.workers, rl.backend.sampler.workers);
    // the flag, the file and the environment win over the recipe
    assert.equal(
      loadTrainConfig("countdown", { env: {}, flags: trainFlagsToConfig({ lr: 5e-5 }) }).optim.lr,
      5e-5,
    );
    const file = join(dir, "rl.yaml");
    writeFileSync(
      file,
      "optim:\n  schedule: constant\nengine:\n  concurrency: 16\ntrainer:\n  samplingParams:\n    top_p: 0.9\n",
    );
    const fromFile = loadTrainConfig("countdown", { file, env: {}, flags: {} });
    assert.equal(fromFile.optim.schedule, "constant");
    assert.deepEqual(fromFile.trainer.samplingParams, { temperature: 1.4, top_p: 0.9 });
    assert.equal(fromFile.engine.concurrency, 16);
    assert.equal(fromFile.optim.lr, rl.optim.lr);
    const env = loadTrainConfig("countdown", { env: { RLLM_OPTIM_LR: "3e-5" }, flags: {} });
    assert.equal(env.optim.lr, 3e-5);
    // not the recipe (another benchmark, or an agent of one's own): no recipe defaults
    for (const other of [
      loadTrainConfig("gsm8k", { env: {}, flags: {} }),
      loadTrainConfig("countdown", { env: {}, flags: trainFlagsToConfig({ agent: "a.ts" }) }),
    ]) {
      assert.equal(other.optim.lr, undefined);
      assert.equal(other.optim.schedule, "constant");
    }
  });

  it("the recipe's base model is trained once and then read from the cache", async () => {
    const home = join(dir, "home");
    const log: string[] = [];
    const a = await ensureCountdownBase({
      home,
      steps: 2,
      trainWorkers: 1,
      log: (l) => log.push(l),
    });
    assert.ok(a.startsWith(countdownBaseDir(home)));
    assert.ok(existsSync(join(a, "rllm.json")));
    assert.match(log[0]!, /not cached .* training it now/);
    const n = log.length;
    assert.equal(await ensureCountdownBase({ home, steps: 2, log: (l) => log.push(l) }), a);
    assert.equal(log.length, n, "no training the second time");
  });
});
