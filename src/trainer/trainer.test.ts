import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { LossSpecSchema } from "../algorithms/loss.js";
import { LocalBackend } from "../backends/local/backend.js";
import { loadConfig } from "../config/index.js";
import { countdownPrompt, countdownRecipeTasks } from "../recipes/countdown.js";
import {
  chatAgent,
  type Evaluator,
  evaluator,
  finalResponse,
  type Rollout,
  rollout,
} from "../sdk/index.js";
import type { MetricsSink } from "../store/metrics.js";
import { Store } from "../store/sqlite.js";
import type { Episode, Task } from "../types/index.js";
import { readLatest } from "./state.js";
import { AgentTrainer, type AgentTrainerOptions } from "./trainer.js";

const tiny = { dModel: 32, nLayers: 1, nHeads: 2, maxSeqLen: 64 };

/** A fresh tiny model with small initial weights (one train worker unless `more` says otherwise). */
function tinyBackend(seed: number, more: Parameters<typeof LocalBackend.create>[0] = {}) {
  return LocalBackend.create({ model: tiny, seed, initStd: 0.05, trainWorkers: 1, ...more });
}

/** A reward with variance under a random model: the parity of the answer's length. */
const parity = evaluator<Episode>((_task, ep) => {
  const text = finalResponse(ep) ?? "";
  const reward = text.length % 2;
  return { reward, isCorrect: reward === 1 };
});

function readJsonl(path: string): ({ step: number } & Record<string, number>)[] {
  return readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
}

function config(trainer: Record<string, unknown>) {
  return loadConfig({
    flags: {
      trainer: {
        groupSize: 4,
        batchSize: 2,
        valAttempts: 2,
        samplingParams: { temperature: 1, max_tokens: 6 },
        valSamplingParams: { temperature: 1, max_tokens: 6 },
        ...trainer,
      },
      engine: { concurrency: 16 },
      optim: { lr: 0.01 },
      // keep uniform groups too, so every step has rows to train on
      algorithm: { loss: { kind: "ppo" }, dropZeroVarianceGroups: false },
    },
  });
}

/** Trains a fresh tiny model into `output` (the agent defaults to countdown's chat agent); closes it. */
async function trainTiny(o: {
  output: string;
  seed: number;
  trainDataset: Task[];
  evaluator: Evaluator<Episode>;
  config: AgentTrainerOptions["config"];
  rollout?: Rollout;
}): Promise<void> {
  const backend = await tinyBackend(o.seed);
  try {
    await new AgentTrainer({
      rollout: o.rollout ?? chatAgent({ name: "cd", userPrompt: countdownPrompt }),
      evaluator: o.evaluator,
      trainDataset: o.trainDataset,
      backend,
      config: o.config,
      output: o.output,
      log: () => {},
    }).train();
  } finally {
    await backend.close();
  }
}

describe("AgentTrainer", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "rllm-trainer-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("trains, validates, checkpoints, and resumes at the right step and data position", async () => {
    const output = join(dir, "sync");
    const train = countdownRecipeTasks("train", 40);
    const val = countdownRecipeTasks("test", 3);
    const run = async (maxSteps: number, resume: boolean) => {
      const backend = await tinyBackend(1);
      try {
        return await new AgentTrainer({
          rollout: chatAgent({ name: "cd", userPrompt: countdownPrompt }),
          evaluator: parity,
          trainDataset: train,
          valDataset: val,
          backend,
          config: config({ maxSteps, saveFreq: 2, valFreq: 2, resume }),
          output,
          log: () => {},
        }).train();
      } finally {
        await backend.close();
      }
    };
    const t1 = performance.now();
    const r1 = await run(3, false);
    const wall1 = (performance.now() - t1) / 1000;
    assert.equal(r1.steps, 3);
    assert.equal(r1.weightVersion, 3, "one new weight version per step");
    assert.equal(typeof r1.valBefore, "number");
    assert.equal(typeof r1.valAfter, "number");
    let metrics = readJsonl(join(output, "metrics.jsonl"));
    assert.deepEqual(
      metrics.map((m) => m.step),
      [0, 1, 2, 3, 3],
    );
    for (const m of metrics.filter((x) => x.step > 0 && !x.final)) {
      for (const k of [
        "reward/mean",
        "loss",
        "entropy",
        "kl",
        "clip_fraction",
        "lr",
        "time/train_s",
      ])
        assert.equal(typeof m[k], "number", `step ${m.step}: ${k}`);
      assert.ok(m["logprob_diff/max_abs"]! < 1e-4, "sampler and trainer agree");
      assert.equal(m["staleness/max"], 0, "on-policy");
    }
    assert.equal(typeof metrics[2]!["val/pass@1"], "number", "validation at step 2");
    assert.equal(typeof metrics[2]!["val/pass@2"], "number");
    const saved = readLatest(output)!.state;
    assert.equal(saved.step, 3);
    assert.ok(
      saved.elapsedSeconds > 0 && saved.elapsedSeconds <= wall1,
      `training time ${saved.elapsedSeconds} s within the run's ${wall1} s`,
    );
    assert.ok(existsSync(join(output, "checkpoints", "step-2", "backend", "rllm.json")));
    // traces carry the weight version they were sampled with
    const store = new Store({ path: join(output, "traces.db") });
    try {
      const versions = new Set(
        store
          .queryTraces({ limit: 100_000 })
          .filter((t) => t.trace.sessionId.startsWith("train-"))
          .map((t) => t.trace.weightVersion),
      );
      assert.deepEqual([...versions].sort(), [0, 1, 2]);
      // and the metrics, for the dashboard
      const runs = store.listRuns();
      assert.equal(runs.length, 1);
      assert.equal(runs[0]!.kind, "train");
      const stored = store.runMetrics(runs[0]!.id);
      assert.deepEqual(
        stored.map((m) => m.step),
        [0, 1, 2, 3],
      );
      assert.equal(stored[3]!.final, 1, "the final validation merges into the last step");
      assert.equal(typeof stored[3]!.loss, "number");
    } finally {
      store.close();
    }

    const r2 = await run(5, true);
    assert.equal(r2.steps, 5);
    assert.equal(r2.newSteps, 2);
    assert.equal(r2.weightVersion, 5, "the version continues");
    metrics = readJsonl(join(output, "metrics.jsonl"));
    assert.deepEqual(
      metrics.filter((m) => !m.final).map((m) => m.step),
      [0, 1, 2, 3, 4, 5],
    );
    const consumed = readJsonl(join(output, "consumed.jsonl")) as unknown as {
      step: number;
      tasks: { id: string; ordinal: number }[];
    }[];
    assert.deepEqual(
      consumed.map((c) => c.step),
      [1, 2, 3, 4, 5],
    );
    const ordinals = consumed.flatMap((c) => c.tasks.map((t) => t.ordinal));
    assert.deepEqual(
      ordinals.sort((a, b) => a - b),
      Array.from({ length: 10 }, (_, i) => i),
      "every task once, in order of the loader",
    );
  });

  it("async: generation overlaps training, staleness stays within the bound, TIS is on", async () => {
    const output = join(dir, "async");
    const backend = await tinyBackend(2);
    const slow = chatAgent({ name: "cd", userPrompt: countdownPrompt });
    let running = 0;
    let overlapped = 0;
    const agent = rollout(
      async (task, cfg) => {
        running++;
        await new Promise((r) => setTimeout(r, 150)); // a slow upstream
        try {
          await slow.run(task, cfg);
        } finally {
          running--;
        }
      },
      { name: "slow" },
    );
    try {
      const trainer = new AgentTrainer({
        rollout: agent,
        evaluator: parity,
        trainDataset: countdownRecipeTasks("train", 40),
        backend: {
          name: backend.name,
          capabilities: backend.capabilities,
          sampler: () => backend.sampler(),
          forwardBackward: async (d, l, o) => {
            if (running > 0) overlapped++; // rollouts of later batches are still generating
            return backend.forwardBackward(d, l, o);
          },
          optimStep: (o) => backend.optimStep(o),
          computeLogprobs: (d) => backend.computeLogprobs(d),
          saveForSampler: () => backend.saveForSampler(),
          save: (d) => backend.save(d),
          load: (d) => backend.load(d),
          close: () => backend.close(),
        },
        config: config({ maxSteps: 5, saveFreq: 0, valFreq: 0, async: true, staleness: 1 }),
        output,
        log: () => {},
      });
      assert.equal(
        (trainer.loss() as { tisCap?: number }).tisCap,
        2,
        "truncated IS is on by default in async mode",
      );
      const r = await trainer.train();
      assert.equal(r.steps, 5);
      const metrics = readJsonl(join(output, "metrics.jsonl")).filter((m) => m.step > 0);
      assert.equal(metrics.length, 5);
      for (const m of metrics) {
        assert.ok(m["staleness/max"]! <= 1, `step ${m.step}: staleness ${m["staleness/max"]}`);
        assert.ok(m["staleness/launch_max"]! <= 1);
      }
      assert.ok(
        metrics.some((m) => m["staleness/launch_max"] === 1),
        "some groups were generated ahead, with older weights",
      );
      assert.ok(overlapped > 0, "rollouts were generating while the backend trained");
      assert.equal(running, 0);
    } finally {
      await backend.close();
    }
  });

  it("skipSettled: a task whose last group scored all alike is skipped when it comes round, consumed once; resume keeps the record", async () => {
    const output = join(dir, "skip");
    const train = countdownRecipeTasks("train", 8);
    // the first 4 tasks score the same whatever the model says (settled: 1, 1, 0, 0); each of
    // the rest scores 0, 1, 0, 1, … call after call, so every group of 4 is half right
    const fixed = new Map(train.slice(0, 4).map((t, i) => [t.id, i < 2 ? 1 : 0]));
    const calls = new Map<string, number>();
    const mixed = evaluator<Episode>((task) => {
      const n = calls.get(task.id) ?? 0;
      calls.set(task.id, n + 1);
      const reward = fixed.get(task.id) ?? n % 2;
      return { reward, isCorrect: reward === 1 };
    });
    const run = async (maxSteps: number, resume: boolean) => {
      const backend = await LocalBackend.create({ model: tiny, seed: 3, trainWorkers: 1 });
      try {
        return await new AgentTrainer({
          rollout: chatAgent({ name: "cd", userPrompt: countdownPrompt }),
          evaluator: mixed,
          trainDataset: train,
          backend,
          config: config({
            maxSteps,
            saveFreq: 1,
            valFreq: 0,
            skipSettled: 1,
            epochs: 100,
            resume,
          }),
          output,
          log: () => {},
        }).train();
      } finally {
        await backend.close();
      }
    };
    await run(5, false); // epoch 1 is steps 1–4: nothing is settled before a task's first group
    const state = readLatest(output)!.state;
    assert.deepEqual(
      [...state.settled!].sort(),
      [...fixed.keys()].sort(),
      "the tasks that scored all alike are recorded as settled, and only they",
    );
    await run(9, true);
    const consumed = readJsonl(join(output, "consumed.jsonl")) as unknown as {
      step: number;
      tasks: { id: string; ordinal: number }[];
      skipped?: { id: string; ordinal: number }[];
    }[];
    assert.deepEqual(
      consumed.map((c) => c.step),
      [1, 2, 3, 4, 5, 6, 7, 8, 9],
    );
    const skippedTasks = consumed.flatMap((c) => c.skipped ?? []);
    assert.equal(
      consumed.slice(0, 4).flatMap((c) => c.skipped ?? []).length,
      0,
      "epoch 1: nothing to skip",
    );
    assert.ok(skippedTasks.length >= 4, `${skippedTasks.length} skipped`);
    for (const t of skippedTasks) assert.ok(fixed.has(t.id), `${t.id} was settled`);
    // with p = 1 no settled task runs again: every group after epoch 1 is an unsettled task's
    for (const c of consumed.slice(4))
      for (const t of c.tasks) assert.ok(!fixed.has(t.id), `step ${c.step} ran settled ${t.id}`);
    // trained and skipped together: every ordinal exactly once, none missing below the last
    const ordinals = consumed
      .flatMap((c) => [...c.tasks, ...(c.skipped ?? [])].map((t) => t.ordinal))
      .sort((a, b) => a - b);
    assert.deepEqual(
      ordinals,
      Array.from({ length: ordinals.length }, (_, i) => i),
    );
    const metrics = readJsonl(join(output, "metrics.jsonl")).filter((m) => m.step > 4);
    assert.ok(metrics.some((m) => m["data/skipped_settled"]! > 0));
    assert.ok(metrics.every((m) => m["data/settled_tasks"]! >= 4));
    assert.throws(
      () => config({ skipSettled: 1.5 }),
      /skipSettled/,
      "a probability above 1 is refused",
    );
  });

  it("the same seed repeats an on-policy run: every sample, reward, loss and validation; another seed does not", async () => {
    const train = countdownRecipeTasks("train", 12);
    const val = countdownRecipeTasks("test", 3);
    const run = async (name: string, seed: number) => {
      const backend = await tinyBackend(1, { trainWorkers: 2, sampler: { workers: 2 } });
      try {
        await new AgentTrainer({
          rollout: chatAgent({ name: "cd", userPrompt: countdownPrompt }),
          evaluator: parity,
          trainDataset: train,
          valDataset: val,
          backend,
          config: config({ maxSteps: 3, valFreq: 1, saveFreq: 0, seed }),
          output: join(dir, name),
          log: () => {},
        }).train();
      } finally {
        await backend.close();
      }
      const keys = ["reward/mean", "loss", "entropy", "optim/grad_norm", "datums/tokens"];
      return readJsonl(join(dir, name, "metrics.jsonl")).map((m) => [
        m.step,
        m["val/pass@1"],
        m["val/pass@2"],
        ...keys.map((k) => m[k]),
      ]);
    };
    const a = await run("seed-a", 3);
    assert.equal(a.length, 5, "steps 0–3 and the final validation");
    assert.deepEqual(await run("seed-b", 3), a);
    const c = await run("seed-c", 4);
    assert.notDeepEqual(c.slice(1), a.slice(1));
  });

  it("metrics sinks: a custom sink is told of the run, cut back on resume, and gets every step's metrics as metrics.jsonl has them", async () => {
    const output = join(dir, "sinks");
    const calls: unknown[][] = [];
    const sink: MetricsSink = {
      runStarted: (r) => void calls.push(["runStarted", r.id, r.kind]),
      truncateAfter: (step) => void calls.push(["truncateAfter", step]),
      write: (step, m) => void calls.push(["write", step, m]),
    };
    const run = async (maxSteps: number, resume: boolean) => {
      const backend = await tinyBackend(1);
      try {
        await new AgentTrainer({
          rollout: chatAgent({ name: "cd", userPrompt: countdownPrompt }),
          evaluator: parity,
          trainDataset: countdownRecipeTasks("train", 8),
          backend,
          config: config({ maxSteps, saveFreq: 1, valFreq: 0, resume }),
          output,
          log: () => {},
          metricsSinks: [sink],
        }).train();
      } finally {
        await backend.close();
      }
    };
    await run(2, false);
    const runId = `train:${output}`;
    assert.deepEqual(calls.slice(0, 2), [
      ["runStarted", runId, "train"],
      ["truncateAfter", 0],
    ]);
    const written = () =>
      calls.filter((c) => c[0] === "write").map((c) => ({ step: c[1], ...(c[2] as object) }));
    assert.deepEqual(written(), readJsonl(join(output, "metrics.jsonl")));
    assert.deepEqual(
      written().map((m) => m.step),
      [1, 2],
    );
    calls.length = 0;
    await run(3, true);
    assert.deepEqual(calls.slice(0, 2), [
      ["runStarted", runId, "train"],
      ["truncateAfter", 2],
    ]);
    assert.deepEqual(
      written().map((m) => m.step),
      [3],
    );
    assert.deepEqual(written()[0], readJsonl(join(output, "metrics.jsonl"))[2]);
  });

  it("engine.concurrency caps the rollouts generating at once, below one batch too; unset, a whole batch generates at once", async () => {
    const train = countdownRecipeTasks("train", 8);
    const agent = chatAgent({ name: "cd", userPrompt: countdownPrompt });
    const run = async (name: string, concurrency: number | undefined) => {
      let running = 0;
      let peak = 0;
      const counted = rollout(
        async (task, cfg) => {
          peak = Math.max(peak, ++running);
          await new Promise((r) => setTimeout(r, 40));
          try {
            await agent.run(task, cfg);
          } finally {
            running--;
          }
        },
        { name: "counted" },
      );
      const cfg = config({ maxSteps: 2, saveFreq: 0, valFreq: 0 });
      await trainTiny({
        output: join(dir, name),
        seed: 1,
        rollout: counted,
        evaluator: parity,
        trainDataset: train,
        config: { ...cfg, engine: { ...cfg.engine, concurrency } },
      });
      const consumed = readJsonl(join(dir, name, "consumed.jsonl")) as unknown as {
        tasks: unknown[];
      }[];
      return { peak, groupsPerStep: consumed.map((c) => c.tasks.length) };
    };
    // groupSize 4 × batchSize 2 = 8 rollouts a batch
    assert.deepEqual(await run("conc-3", 3), { peak: 3, groupsPerStep: [2, 2] });
    assert.deepEqual(await run("conc-5", 5), { peak: 4, groupsPerStep: [2, 2] }, "whole groups");
    assert.deepEqual(await run("conc-unset", undefined), { peak: 8, groupsPerStep: [2, 2] });
  });

  it("algorithm.rejectionSampling: groups with every reward alike are rejected and replaced by more draws, consumed once, counted", async () => {
    const train = countdownRecipeTasks("train", 8);
    // the first 4 tasks score the same whatever the model says; the rest are half right per group
    const fixed = new Map(train.slice(0, 4).map((t, i) => [t.id, i % 2]));
    const run = async (name: string, enabled: boolean, more: Record<string, unknown> = {}) => {
      const calls = new Map<string, number>();
      const mixed = evaluator<Episode>((task) => {
        const n = calls.get(task.id) ?? 0;
        calls.set(task.id, n + 1);
        const reward = fixed.get(task.id) ?? n % 2;
        return { reward, isCorrect: reward === 1 };
      });
      const cfg = config({ maxSteps: 2, saveFreq: 0, valFreq: 0, ...more });
      await trainTiny({
        output: join(dir, name),
        seed: 3,
        evaluator: mixed,
        trainDataset: train,
        config: {
          ...cfg,
          algorithm: {
            ...cfg.algorithm,
            rejectionSampling: { ...cfg.algorithm.rejectionSampling, enabled },
          },
        },
      });
      const consumed = readJsonl(join(dir, name, "consumed.jsonl")) as unknown as {
        tasks: { id: string; ordinal: number }[];
        rejected?: { id: string; ordinal: number }[];
      }[];
      const metrics = readJsonl(join(dir, name, "metrics.jsonl"));
      return { consumed, metrics };
    };
    const off = await run("rejection-off", false);
    assert.ok(
      off.consumed.some((c) => c.tasks.some((t) => fixed.has(t.id))),
      "without it, a settled task is trained",
    );
    assert.ok(off.metrics.every((m) => m["rejection/draws"] === undefined));

    const on = await run("rejection-on", true);
    const trained = on.consumed.flatMap((c) => c.tasks);
    const rejected = on.consumed.flatMap((c) => c.rejected ?? []);
    assert.deepEqual(
      on.consumed.map((c) => c.tasks.length),
      [2, 2],
      "full batches of accepted groups",
    );
    for (const t of trained) assert.ok(!fixed.has(t.id), `${t.id} scores all alike, trained`);
    assert.ok(rejected.length > 0);
    for (const t of rejected) assert.ok(fixed.has(t.id), `${t.id} was rejected`);
    const ordinals = [...trained, ...rejected].map((t) => t.ordinal).sort((a, b) => a - b);
    assert.deepEqual(ordinals, [...new Set(ordinals)], "every task generated once");
    assert.deepEqual(
      on.metrics.map((m) => m["rejection/groups_accepted"]),
      [2, 2],
    );
    assert.equal(
      on.metrics.reduce(
        (a, m) => a + m["rejection/rejected_solved_all"]! + m["rejection/rejected_solved_none"]!,
        0,
      ),
      rejected.length,
    );
    await assert.rejects(
      run("rejection-async", true, { async: true }),
      /algorithm\.rejectionSampling.*trainer\.async/,
    );
  });

  it("refuses a loss the backend cannot compute before anything runs, naming the option", async () => {
    const backend = await LocalBackend.create({ model: tiny, trainWorkers: 1 });
    try {
      const cfg = config({ maxSteps: 1 });
      const output = join(dir, "unsupported");
      const trainer = new AgentTrainer({
        rollout: chatAgent({ name: "cd", userPrompt: countdownPrompt }),
        evaluator: parity,
        trainDataset: countdownRecipeTasks("train", 4),
        // the local backend, declaring that it computes no CISPO
        backend: {
          name: backend.name,
          capabilities: { ...backend.capabilities, lossKinds: ["ppo"] },
          sampler: () => backend.sampler(),
          forwardBackward: (d, l, o) => backend.forwardBackward(d, l, o),
          optimStep: (o) => backend.optimStep(o),
          computeLogprobs: (d) => backend.computeLogprobs(d),
          saveForSampler: () => backend.saveForSampler(),
          save: (d) => backend.save(d),
          load: (d) => backend.load(d),
          close: () => backend.close(),
        },
        config: {
          ...cfg,
          algorithm: { ...cfg.algorithm, loss: LossSpecSchema.parse({ kind: "cispo" }) },
        },
        output,
        log: () => {},
      });
      await assert.rejects(
        trainer.train(),
        /backend "local" does not support loss\.kind "cispo"; it supports ppo/,
      );
      assert.equal(existsSync(output), false, "nothing of the run was written");
    } finally {
      await backend.close();
    }
  });

  it("refuses to overwrite a run without --resume", async () => {
    const backend = await LocalBackend.create({ model: tiny, trainWorkers: 1 });
    try {
      await assert.rejects(
        new AgentTrainer({
          rollout: chatAgent({ name: "cd", userPrompt: countdownPrompt }),
          evaluator: parity,
          trainDataset: countdownRecipeTasks("train", 4),
          backend,
          config: config({ maxSteps: 1 }),
          output: join(dir, "sync"),
          log: () => {},
        }).train(),
        /already holds a run with checkpoints; pass --resume/,
      );
      // a time budget alone: a decaying schedule follows the time spent, not the steps
      const cfg = config({ maxSeconds: 2.5, valFreq: 0, saveFreq: 0 });
      const timed = await new AgentTrainer({
        rollout: chatAgent({ name: "cd", userPrompt: countdownPrompt }),
        evaluator: parity,
        trainDataset: countdownRecipeTasks("train", 4),
        backend,
        config: { ...cfg, optim: { ...cfg.optim, schedule: "cosine", minLrRatio: 0.1 } },
        output: join(dir, "cosine"),
        log: () => {},
      }).train();
      assert.equal(timed.stoppedBy, "time");
      const steps = readJsonl(join(dir, "cosine", "metrics.jsonl")).filter(
        (m) => m.lr !== undefined,
      );
      assert.ok(steps.length >= 3, `${steps.length} steps in 2.5 s`);
      for (const m of steps) {
        // lr = min + (peak − min)·½(1 + cos(π·elapsed/budget)), elapsed taken before the step
        // (elapsed at the step's end bounds the progress its lr was taken at)
        const p = Math.min(1, m["time/elapsed_s"]! / 2.5);
        assert.ok(m.lr! < 0.01 && m.lr! >= 0.001 - 1e-12, `lr ${m.lr}`);
        assert.ok(
          m.lr! >= 0.001 + 0.009 * 0.5 * (1 + Math.cos(Math.PI * p)) - 1e-12,
          `step ${m.step}`,
        );
      }
      for (let i = 1; i < steps.length; i++) assert.ok(steps[i]!.lr! < steps[i - 1]!.lr!);
    } finally {
      await backend.close();
    }
  });
  it("stops at the first step (or validation) whose every rollout failed, with the error, training nothing", async () => {
    const backend = await LocalBackend.create({ model: tiny, seed: 1, trainWorkers: 1 });
    try {
      const broken = rollout(
        async () => {
          throw new Error("the agent's model server is misconfigured");
        },
        { name: "broken" },
      );
      const run = (output: string, valBeforeTrain: boolean) =>
        new AgentTrainer({
          rollout: broken,
          evaluator: parity,
          trainDataset: countdownRecipeTasks("train", 8),
          valDataset: countdownRecipeTasks("test", 2),
          backend,
          config: config({ maxSteps: 3, valBeforeTrain }),
          output,
          log: () => {},
        }).train();
      await assert.rejects(
        run(join(dir, "broken-val"), true),
        /every rollout of validation at step 0 failed \(4 of 4\); the first error: .*misconfigured/,
      );
      const output = join(dir, "broken-train");
      await assert.rejects(
        run(output, false),
        /every rollout of step 1 failed \(8 of 8\); the first error: .*misconfigured.*--resume/,
      );
      assert.equal(readLatest(output), undefined, "no checkpoint: no step was trained");
      const consumed = join(output, "consumed.jsonl");
      assert.ok(!existsSync(consumed) || readFileSync(consumed, "utf8").trim() === "");
    } finally {
      await backend.close();
    }
  });
});
