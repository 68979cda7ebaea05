/**
 * The countdown recipe of the local backend: what `rllm train countdown` and `rllm eval countdown
 * --backend local` use when no agent is given (on the torch backend: countdown-torch.ts, the same
 * recipe from the same base model exported as a Hugging Face directory). The embedded model has a byte-level vocabulary and
 * a short context, so the recipe has its own terse prompt (`3 7 12 -> 25`, the answer in
 * `<answer></answer>` as the countdown grader expects), its own difficulty, and a base model that
 * rllm produces itself: an SFT warm start on generated reference solutions, run on first use and
 * cached in $RLLM_HOME/models/.
 *
 * Everything that shapes the base model is in COUNTDOWN_RECIPE; its hash names the cache entry, so
 * changing the recipe builds a new base instead of reusing a stale one.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { LocalBackend } from "../backends/local/backend.js";
import { renderSft } from "../backends/local/chat-format.js";
import {
  COUNTDOWN_PRESETS,
  type CountdownConfig,
  countdownBucket,
  generateCountdown,
} from "../benchmarks/countdown.js";
import { ConfigError, type ConfigLayer, OptimConfigSchema } from "../config/index.js";
import { rllmHome } from "../home.js";
import { chatAgent, type Rollout } from "../sdk/index.js";
import { runSft, type SftExample, type SftStepMetrics } from "../trainer/sft.js";
import type { Task } from "../types/index.js";
import { VERSION } from "../version.js";
import type { Recipe } from "./recipe.js";

export const COUNTDOWN_RECIPE = {
  name: "countdown-local",
  version: 1,
  /** 3 numbers in 1–20 with + − ×: small enough for a byte-level model to learn from scratch. */
  task: { ...COUNTDOWN_PRESETS.easy } satisfies Required<CountdownConfig>,
  seeds: { sft: 11, train: 20_250_101, test: 20_250_202 },
  buckets: { test: [0], sft: [1, 2, 3, 4], train: [5, 6, 7, 8, 9] },
  counts: { sft: 6_000, train: 8_000, test: 200 },
  model: { dModel: 128, nLayers: 2, nHeads: 4, maxSeqLen: 96 },
  sft: { steps: 800, batchSize: 64, lr: 2e-3, warmupSteps: 20, seed: 0 },
  initSeed: 0,
  maxTokens: 40,
  /**
   * The RL run's settings, as defaults that a config file, the environment or a flag overrides
   * (measured in bench/learning: see bench/README.md): a peak lr of 2e-4 on a cosine over the time
   * budget; 64 tasks × 4 attempts a step (4 attempts learned faster than 8 or 16 for the same
   * answers; 64 tasks a step give twice the steps of 128 in 15 minutes; skipping settled tasks,
   * trainer.skipSettled, was no better within the runs' spread); a step's 256 answers generated
   * at once by 2 sampler workers (the train workers are idle meanwhile); validation and a
   * checkpoint every 50 steps (~30 s), so validating costs ~5% of the time. Training answers are
   * sampled at temperature 1.4, validation's (and rllm eval's) at 1: the update is still the
   * gradient of the temperature-1 policy (the sampler reports temperature-1 logprobs, as vLLM
   * does, so the PPO ratio is 1), taken at answers from further out in its tails, whose wrong ones
   * are pushed down. Measured on the same task orders (seeds 0, 1, 2): temperature 1.4 gained
   * +22.0, +21.1 and +20.4 points, 1.2 +20.9, +21.8 and +18.0; six runs at 1 gained +14.0 to +19.9. The
   * temperature-1 policy ends sharper (entropy 0.028–0.030 a token against 0.045), while the share
   * of groups holding a right and a wrong answer moves little (0.24–0.26 against 0.22).
   */
  rl: {
    optim: { lr: 2e-4, schedule: "cosine", minLrRatio: 0.05 },
    trainer: {
      batchSize: 64,
      groupSize: 4,
      valFreq: 50,
      saveFreq: 50,
      samplingParams: { temperature: 1.4 },
    },
    engine: { concurrency: 512 },
    backend: { sampler: { workers: 2, maxBatch: 256 } },
  },
  /** `rllm train countdown` with no length given trains for this long. */
  rlSeconds: 900,
} as const;

/** The user turn of a task: `3 7 12 -> 25`. */
export function countdownPrompt(task: Task): string {
  const { numbers, target } = task.data as { numbers?: unknown; target?: unknown };
  if (!Array.isArray(numbers) || typeof target !== "number")
    throw new Error(`task ${task.id}: data.numbers and data.target are needed for the prompt`);
  return `${numbers.join(" ")} -> ${target}`;
}

/** The recipe's agent: one chat call with the terse prompt. */
export function countdownLocalAgent(): Rollout {
  return chatAgent({ name: "countdown-local", userPrompt: countdownPrompt });
}

/**
 * The recipe's tasks. A hash splits the problem space in tenths: test (the held-out puzzles) is
 * bucket 0, the SFT warm start's solutions come from buckets 1–4 and RL trains on 5–9, so no split
 * shares a problem — RL cannot score by recalling an answer the warm start memorised, and what it
 * gains on its own tasks is what it gains on unseen ones.
 */
export function countdownRecipeTasks(split: "sft" | "train" | "test", count?: number): Task[] {
  const buckets = COUNTDOWN_RECIPE.buckets[split];
  return generateCountdown({
    ...COUNTDOWN_RECIPE.task,
    seed: COUNTDOWN_RECIPE.seeds[split],
    count: count ?? COUNTDOWN_RECIPE.counts[split],
    split: split === "sft" ? "sft" : split,
    accept: (n, t) => (buckets as readonly number[]).includes(countdownBucket(n, t)),
  });
}

/** An SFT row: the prompt and the reference solution as the assistant's answer. */
export function countdownSftExample(task: Task): SftExample {
  const solution = String((task.data as { solution?: unknown }).solution ?? "").replace(/ /g, "");
  const r = renderSft([
    { role: "user", content: countdownPrompt(task) },
    { role: "assistant", content: `<answer>${solution}</answer>` },
  ]);
  return { tokens: r.ids, lossMask: r.lossMask.map((m) => (m ? 1 : 0)) };
}

/** A hash of what shapes the base model (not the RL settings), naming its cache entry. */
export function recipeHash(): string {
  const r = COUNTDOWN_RECIPE;
  const base = { v: r.version, task: r.task, seeds: r.seeds, buckets: r.buckets, counts: r.counts };
  const more = { model: r.model, sft: r.sft, initSeed: r.initSeed };
  return createHash("sha256")
    .update(JSON.stringify({ ...base, ...more }))
    .digest("hex")
    .slice(0, 12);
}

/** Where the base model of the recipe is cached. */
export function countdownBaseDir(home = rllmHome()): string {
  return join(home, "models", `${COUNTDOWN_RECIPE.name}-${recipeHash()}`);
}

/**
 * The recipe's base model: from the cache, or trained now (SFT, with progress through `log`) and
 * cached. Returns the checkpoint directory.
 */
export async function ensureCountdownBase(
  options: {
    home?: string;
    log?: (line: string) => void;
    /** Override the SFT steps (tests use a few). */
    steps?: number;
    trainWorkers?: number;
  } = {},
): Promise<string> {
  const dir =
    options.steps === undefined
      ? countdownBaseDir(options.home)
      : `${countdownBaseDir(options.home)}-steps${options.steps}`;
  if (existsSync(join(dir, "rllm.json"))) return dir;
  const log = options.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  const r = COUNTDOWN_RECIPE;
  const steps = options.steps ?? r.sft.steps;
  log(
    `countdown base model: not cached at ${dir}; training it now (SFT on ${r.counts.sft} generated solutions, ${steps} steps; once per machine)`,
  );
  const rows = countdownRecipeTasks("sft").map(countdownSftExample);
  const backend = await LocalBackend.create({
    model: r.model,
    seed: r.initSeed,
    ...(options.trainWorkers ? { trainWorkers: options.trainWorkers } : {}),
  });
  const tmp = `${dir}.tmp-${process.pid}`;
  try {
    const t0 = performance.now();
    await runSft({
      backend,
      train: rows,
      epochs: 1_000,
      batchSize: r.sft.batchSize,
      maxSteps: steps,
      optim: OptimConfigSchema.parse({
        lr: r.sft.lr,
        warmupSteps: Math.min(r.sft.warmupSteps, steps),
        schedule: "cosine",
        minLrRatio: 0.1,
      }),
      seed: r.sft.seed,
      onStep: (m: SftStepMetrics, total) => {
        if (m.step % 25 === 0 || m.step === total)
          log(
            `  sft step ${m.step}/${total}  loss ${m.loss.toFixed(4)}  ${((performance.now() - t0) / 1000).toFixed(0)} s`,
          );
      },
    });
    mkdirSync(join(dir, ".."), { recursive: true });
    rmSync(tmp, { recursive: true, force: true });
    await backend.save(tmp);
    rmSync(dir, { recursive: true, force: true });
    renameSync(tmp, dir);
    log(`countdown base model: saved to ${dir} (rllm ${VERSION})`);
    return dir;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
    await backend.close();
  }
}

/**
 * The recipe as `rllm train` and `rllm eval` use it: countdown on the local backend with neither
 * an agent nor a dataset of the user's.
 */
export const countdownRecipe: Recipe = {
  name: "countdown",
  appliesTo: (run) =>
    run.benchmark === "countdown" && run.backend === "local" && !run.agent && !run.dataDir,
  splits: { train: "train", test: "test" },
  tasks(split, count) {
    if (split !== "train" && split !== "test")
      throw new ConfigError(`countdown (local recipe) has splits train and test, not "${split}"`);
    return countdownRecipeTasks(split, count);
  },
  // an eval of the training split (8,000 tasks) takes as many as the test split holds
  evalExamples: COUNTDOWN_RECIPE.counts.test,
  agent: countdownLocalAgent,
  base: async (io) => ({ checkpoint: await ensureCountdownBase(io) }),
  configDefaults: COUNTDOWN_RECIPE.rl as ConfigLayer,
  samplingDefaults: { max_tokens: COUNTDOWN_RECIPE.maxTokens },
  trainSeconds: COUNTDOWN_RECIPE.rlSeconds,
};
