/**
 * The torch backend's trainer on several processes, end to end with the real distributed worker
 * (python/rllm_worker under torchrun, gloo on the CPU, fp32) and a tiny random Qwen3:
 *
 *   1. nproc 2: a forwardBackward + optimStep, then computeLogprobs; a checkpoint; then rank 1
 *      killed with SIGKILL during a forwardBackward — the call rejects naming rank 1 and close()
 *      leaves no process;
 *   2. nproc 1 on the same datums: the same loss, gradient norm and logprobs after the step (1e-5);
 *      a second step; then load() of the 2-rank checkpoint gives the 2-rank logprobs again;
 *   3. two "nodes" on loopback (nnodes 2, nproc 1 each; node 1 started as `rllm worker` starts it)
 *      created from the 2-rank checkpoint (a new backend resuming after the kill): its logprobs,
 *      then a step equal to the 1-process run's second step — the optimizer state came through
 *      the distributed checkpoint onto another layout.
 *
 *   4. `rllm train gsm8k --backend torch --nproc 2` (LoRA on a tiny Qwen3 with Qwen3's tokenizer):
 *      a step through the whole trainer — the sampler a plain worker fed by the 2-rank trainer's
 *      export — and its checkpoint (resuming a checkpoint is 2. and 3.'s).
 *
 * Six worker launches (~5–10 s each on two cores); about 2 minutes in all.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { LossSpecSchema } from "../../algorithms/loss.js";
import { loadTrainConfig, runTrainCommand, trainFlagsToConfig } from "../../cli/train.js";
import { nodeCommand, startNodeCommand } from "../../cli/worker.js";
import { allGone } from "../../testing/procs.js";
import { tinyQwen3, writeTinyModels } from "../../testing/tiny-models.js";
import type { Datum } from "../../types/index.js";
import { TorchBackend } from "./backend.js";
import { resolvePython } from "./python-env.js";
import { freeLocalEndpoint } from "./torchrun.js";

const tmp = mkdtempSync(join(tmpdir(), "rllm-torch-dist-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

const VOCAB = 512;
const [MODEL] = writeTinyModels([{ dir: join(tmp, "model"), vocabSize: VOCAB }]) as [string];
const COMMON = { model: MODEL, device: "cpu", dtype: "float32", seed: 1 } as const;
const LOSS = LossSpecSchema.parse({ kind: "ppo" });
const OPTIM = { lr: 1e-3, maxGradNorm: 0 };
const TOL = 1e-5;

/** Rows of random tokens of these lengths: the first two masked out, advantages ±1. */
function datums(rows: number[], seed: number): Datum[] {
  let s = seed;
  const rand = () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
  return rows.map((n, i) => {
    const tokens = Array.from({ length: n }, () => Math.floor(rand() * VOCAB));
    return {
      tokens,
      lossMask: tokens.map((_, t) => (t < 2 ? 0 : 1)),
      advantages: tokens.map(() => (i % 2 ? -1 : 1)),
      samplingLogprobs: tokens.map((_, t) => -6 - (t % 3) * 0.1),
    } as Datum;
  });
}
const BATCH = datums([9, 14, 5, 11, 7], 3);

function near(actual: number, expected: number, what: string): void {
  if (Number.isNaN(expected) && Number.isNaN(actual)) return;
  assert.ok(
    Math.abs(actual - expected) <= TOL * (1 + Math.abs(expected)),
    `${what}: ${actual} vs ${expected}`,
  );
}

function nearRows(actual: number[][], expected: number[][], what: string): void {
  assert.equal(actual.length, expected.length);
  for (const [i, row] of actual.entries()) {
    assert.equal(row.length, expected[i]!.length);
    for (const [t, x] of row.entries()) near(x, expected[i]![t]!, `${what} row ${i} token ${t}`);
  }
}

interface Step {
  loss: number;
  metrics: Record<string, number>;
  gradNorm: number;
}

async function step(b: TorchBackend): Promise<Step> {
  const fb = await b.forwardBackward(BATCH, LOSS);
  const o = await b.optimStep(OPTIM);
  return { loss: fb.loss, metrics: fb.metrics, gradNorm: o.gradNorm };
}

function sameStep(actual: Step, expected: Step, what: string): void {
  near(actual.loss, expected.loss, `${what} loss`);
  near(actual.gradNorm, expected.gradNorm, `${what} gradNorm`);
  assert.deepEqual(Object.keys(actual.metrics).sort(), Object.keys(expected.metrics).sort());
  for (const [k, v] of Object.entries(expected.metrics))
    near(actual.metrics[k]!, v, `${what} metric ${k}`);
}

describe("the torch trainer on several processes (real torchrun, gloo, fp32)", () => {
  const checkpoint = join(tmp, "ck-2ranks");
  let two: { step: Step; logprobs: number[][] } | undefined;
  let one: { first: Step; second: Step } | undefined;

  test("nproc 2: a step and logprobs; a checkpoint; a rank killed mid-call is named, nothing is left", async () => {
    const b = await TorchBackend.create({ ...COMMON, nproc: 2 });
    let pids: number[] = [];
    try {
      const world = b.trainerHello.world!;
      assert.equal(world.size, 2);
      pids = world.ranks.map((r) => r.pid);
      const s = await step(b);
      two = { step: s, logprobs: await b.computeLogprobs(BATCH) };
      await b.save(checkpoint);
      const victim = world.ranks.find((r) => r.rank === 1)!;
      const t0 = Date.now();
      const call = b.forwardBackward(BATCH, LOSS);
      process.kill(victim.pid, "SIGKILL");
      await assert.rejects(
        call,
        new RegExp(
          `^Error: forward_backward: the torch trainer's rank 1 of 2 \\(node 0, local rank 1, host [^,]+, pid ${victim.pid}\\) was killed by SIGKILL`,
        ),
      );
      assert.ok(Date.now() - t0 < 30_000, `reported after ${Date.now() - t0} ms`);
    } finally {
      await b.close();
    }
    assert.ok(await allGone(pids, 10_000), "no rank outlives close()");
  });

  test("nproc 1 on the same batch: the same loss, gradient norm and logprobs; the 2-rank checkpoint loads", async () => {
    assert.ok(two, "the nproc 2 test ran");
    const b = await TorchBackend.create(COMMON);
    try {
      assert.equal(b.trainerHello.world, undefined, "a plain worker");
      const first = await step(b);
      sameStep(first, two.step, "1 vs 2 processes");
      nearRows(await b.computeLogprobs(BATCH), two.logprobs, "logprobs after the step");
      const second = await step(b);
      one = { first, second };
      const moved = (await b.computeLogprobs(BATCH)).flat();
      const before = two.logprobs.flat();
      assert.ok(
        moved.some((x, i) => Math.abs(x - before[i]!) > 1e-4),
        "the second step moved the logprobs (so the load below restores something)",
      );
      await b.load(checkpoint);
      assert.equal(b.step, 1);
      nearRows(await b.computeLogprobs(BATCH), two.logprobs, "logprobs of the 2-rank checkpoint");
    } finally {
      await b.close();
    }
  });

  test("two nodes on loopback resume the 2-rank checkpoint: its logprobs, then the 1-process second step", async () => {
    assert.ok(two && one, "the tests before ran");
    const rdzvEndpoint = await freeLocalEndpoint();
    const node1 = startNodeCommand(
      nodeCommand({
        nproc: 1,
        nnodes: 2,
        nodeRank: 1,
        rdzvEndpoint,
        collectiveTimeoutS: 120,
        python: resolvePython(undefined),
      }),
      "ignore",
    );
    try {
      const b = await TorchBackend.create({
        device: "cpu",
        dtype: "float32",
        seed: 1,
        checkpoint,
        nproc: 1,
        nnodes: 2,
        rdzvEndpoint,
        timeouts: { collectiveS: 120 },
      });
      try {
        const world = b.trainerHello.world!;
        assert.deepEqual(world.ranks.map((r) => [r.rank, r.node, r.localRank]).sort(), [
          [0, 0, 0],
          [1, 1, 0],
        ]);
        assert.equal(b.step, 1);
        nearRows(await b.computeLogprobs(BATCH), two.logprobs, "logprobs on two nodes");
        sameStep(await step(b), one.second, "two nodes vs 1 process, second step");
      } finally {
        await b.close();
      }
      assert.equal(await node1.exited, 0, "node 1's torchrun ends with node 0's shutdown");
    } finally {
      node1.child.kill("SIGTERM");
    }
  });

  test("rllm train --nproc 2: a step through the whole trainer, and its checkpoint", async () => {
    const model = tinyQwen3(join(tmp, "qwen3"));
    const output = join(tmp, "gsm8k-run");
    const file = join(tmp, "gsm8k.json");
    writeFileSync(
      file,
      JSON.stringify({
        backend: { name: "torch", model, device: "cpu", lora: { rank: 4 }, sampler: { lanes: 1 } },
        trainer: { samplingParams: { temperature: 1, max_tokens: 6 } },
        algorithm: { dropZeroVarianceGroups: false },
      }),
    );
    const logs: string[] = [];
    const config = loadTrainConfig("gsm8k", {
      file,
      env: {},
      flags: trainFlagsToConfig({
        backend: "torch",
        nproc: 2,
        maxSteps: 1,
        groupSize: 2,
        batchSize: 2,
        valFreq: 0,
        valExamples: 1,
        valAttempts: 1,
        dataDir: new URL("../../benchmarks/fixtures/data/", import.meta.url).pathname,
        output,
      }),
    });
    const first = await runTrainCommand("gsm8k", config, { log: (l) => logs.push(l) });
    assert.equal(first.steps, 1);
    assert.ok(existsSync(join(output, "checkpoints", "step-1", "backend", "adapter_config.json")));
    assert.ok(
      logs.some((l) => /on 2 × cpu/.test(l)),
      `the trainer ran on 2 processes:\n${logs.join("\n")}`,
    );
  });
});
