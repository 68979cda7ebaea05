/** `rllm train <benchmark>`: RL training of an agent's model (src/trainer/). */
import { join, resolve } from "node:path";
import { Command, Option } from "commander";
import { backendDefinition, backendNames } from "../backends/registry.js";
import { checkLossSupported } from "../backends/spi.js";
import {
  type BenchmarkEntry,
  defaultEvaluator,
  defaultRollout,
  getBenchmark,
  loadBenchmark,
} from "../benchmarks/index.js";
import {
  ConfigError,
  type ConfigLayer,
  type LoadConfigOptions,
  loadConfig,
  type RllmConfig,
} from "../config/index.js";
import { type Recipe, recipeFor } from "../recipes/index.js";
import { type Evaluator, loadEvaluator, loadRollout, type Rollout } from "../sdk/index.js";
import { resolveCheckpoint } from "../trainer/checkpoint-path.js";
import { readLatest } from "../trainer/state.js";
import { AgentTrainer, type TrainResult } from "../trainer/trainer.js";
import type { Episode, Task } from "../types/index.js";
import { int, num } from "./flags.js";
import { defaultRunDir } from "./run-dir.js";

export interface TrainFlags {
  backend?: string;
  checkpoint?: string;
  agent?: string;
  evaluator?: string;
  groupSize?: number;
  batchSize?: number;
  lr?: number;
  epochs?: number;
  maxSteps?: number;
  maxSeconds?: number;
  valFreq?: number;
  saveFreq?: number;
  valExamples?: number;
  valAttempts?: number;
  loss?: string;
  advEstimator?: string;
  klCoef?: number;
  clipLow?: number;
  clipHigh?: number;
  async?: boolean;
  staleness?: number;
  skipSettled?: number;
  seed?: number;
  config?: string;
  dataDir?: string;
  output?: string;
  resume?: boolean;
}

export function trainFlagsToConfig(f: TrainFlags): ConfigLayer {
  const lossFlags = {
    clipLow: f.clipLow,
    clipHigh: f.clipHigh,
    ...(f.klCoef !== undefined ? { kl: { coef: f.klCoef } } : {}),
  };
  const anyLossFlag = Object.values(lossFlags).some((v) => v !== undefined);
  // a clip or KL flag alone tunes the default loss (ppo) unless a config file names the kind
  const kind = f.loss ?? (anyLossFlag && !f.config ? "ppo" : undefined);
  return {
    backend: {
      name: f.backend,
      checkpoint: f.checkpoint,
    },
    optim: { lr: f.lr },
    algorithm: {
      estimator: f.advEstimator,
      ...(kind || anyLossFlag ? { loss: { kind, ...lossFlags } } : {}),
    },
    trainer: {
      groupSize: f.groupSize,
      batchSize: f.batchSize,
      epochs: f.epochs,
      maxSteps: f.maxSteps,
      maxSeconds: f.maxSeconds,
      valFreq: f.valFreq,
      saveFreq: f.saveFreq,
      maxValExamples: f.valExamples,
      valAttempts: f.valAttempts,
      async: f.async,
      staleness: f.staleness,
      skipSettled: f.skipSettled,
      seed: f.seed,
      dataDir: f.dataDir,
      agent: f.agent,
      evaluator: f.evaluator,
      output: f.output,
      resume: f.resume,
    },
  } as ConfigLayer;
}

export function trainCommand(): Command {
  return new Command("train")
    .description(
      "RL-train the model behind an agent on a benchmark: rollouts through the gateway, rewards, advantages, updates.",
    )
    .argument("<benchmark>", "a catalog benchmark (countdown trains out of the box on a laptop)")
    .addOption(
      new Option("--backend <name>", `training backend (default ${backendNames()[0]})`).choices(
        backendNames(),
      ),
    )
    .option("--checkpoint <dir>", "start from this checkpoint (default: the recipe's base model)")
    .option("--agent <file[#export]>", "a module exporting a rollout (default: the benchmark's)")
    .option("--evaluator <file[#export]>", "a module exporting an evaluator")
    .option("--group-size <n>", "attempts per task (GRPO group)", int("--group-size"))
    .option("--batch-size <n>", "tasks per step", int("--batch-size"))
    .option(
      "--lr <x>",
      "peak learning rate (default 1e-4; the countdown recipe: 2e-4, cosine over its time budget)",
      num("--lr"),
    )
    .option("--epochs <n>", "passes over the training tasks", int("--epochs"))
    .option("--max-steps <n>", "stop after n steps", int("--max-steps"))
    .option("--max-seconds <s>", "stop after s seconds of training", num("--max-seconds"))
    .option(
      "--val-freq <n>",
      "validate every n steps (0: before and after only)",
      int("--val-freq"),
    )
    .option("--save-freq <n>", "checkpoint every n steps", int("--save-freq"))
    .option("--val-examples <n>", "validation tasks (default 200)", int("--val-examples"))
    .option("--val-attempts <k>", "attempts per validation task: pass@1..k", int("--val-attempts"))
    .option("--loss <kind>", "ppo (default), importance_sampling, cispo or cross_entropy")
    .option("--adv-estimator <name>", "grpo (default), rloo, reinforce, ...")
    .option("--kl-coef <x>", "KL penalty to the starting model", num("--kl-coef"))
    .option("--clip-low <x>", "PPO/CISPO lower clip ε", num("--clip-low"))
    .option("--clip-high <x>", "PPO/CISPO upper clip ε (clip-higher)", num("--clip-high"))
    .option("--async", "generate ahead of training (bounded staleness, truncated IS)")
    .option("--staleness <n>", "most weight versions a sample may lag (async)", int("--staleness"))
    .option(
      "--skip-settled <p>",
      "skip a task whose last group scored all alike with probability p (0–1) when it comes round again",
      num("--skip-settled"),
    )
    .option("--seed <n>", "seed of the task order and the sampling", int("--seed"))
    .option("--data-dir <dir>", "read DIR/<benchmark>/<split>.jsonl instead of generating/the Hub")
    .option("--output <dir>", "run directory (default runs/train/<benchmark>-<time>)")
    .option("--resume", "continue the run in --output from its latest checkpoint")
    .option("--config <file>", "YAML or JSON config file")
    .action(async (benchmark: string, flags: TrainFlags) => {
      const config = loadTrainConfig(benchmark, {
        file: flags.config,
        flags: trainFlagsToConfig(flags),
      });
      const r = await runTrainCommand(benchmark, config);
      process.exitCode = r.stoppedBy === "signal" ? 130 : 0;
    });
}

/** The recipe of a `rllm train` run (recipes/), if one applies. */
function trainRecipe(benchmark: string, config: RllmConfig): Recipe | undefined {
  const tc = config.trainer;
  return recipeFor({
    benchmark: getBenchmark(benchmark).name,
    backend: config.backend.name,
    agent: tc.agent,
    dataDir: tc.dataDir,
  });
}

/**
 * The config of `rllm train <benchmark>`: when a recipe applies to the run, its settings come in
 * as defaults under the file, the environment and the flags.
 */
export function loadTrainConfig(benchmark: string, options: LoadConfigOptions): RllmConfig {
  const config = loadConfig(options);
  const recipe = trainRecipe(benchmark, config);
  if (!recipe) return config;
  return loadConfig({
    ...options,
    defaults: { name: `the ${recipe.name} recipe`, value: recipe.configDefaults },
  });
}

/** The training and validation tasks: the recipe's, else the benchmark's dataset. */
async function trainTasks(
  entry: BenchmarkEntry,
  tc: RllmConfig["trainer"],
  recipe: Recipe | undefined,
): Promise<{ train: Task[]; val: Task[] }> {
  if (recipe)
    return {
      train: recipe.tasks(recipe.splits.train, tc.maxTrainExamples),
      val: recipe.tasks(recipe.splits.test, tc.maxValExamples),
    };
  const trainSplit = tc.trainSplit ?? entry.source.defaultSplit;
  const valSplit = tc.valSplit ?? (entry.source.splits.includes("test") ? "test" : undefined);
  const common = tc.dataDir ? { dataDir: tc.dataDir } : {};
  const train = await loadBenchmark(entry.name, {
    ...common,
    split: trainSplit,
    ...(tc.maxTrainExamples ? { maxExamples: tc.maxTrainExamples } : {}),
  });
  const val =
    valSplit && valSplit !== trainSplit
      ? await loadBenchmark(entry.name, {
          ...common,
          split: valSplit,
          maxExamples: tc.maxValExamples,
        })
      : [];
  return { train, val };
}

export async function runTrainCommand(
  benchmarkName: string,
  config: RllmConfig,
  io: { log: (line: string) => void; signal?: AbortSignal; home?: string } = {
    log: (l) => console.error(l),
  },
): Promise<TrainResult> {
  const entry = getBenchmark(benchmarkName);
  const tc = config.trainer;
  if (tc.resume && !tc.output)
    throw new ConfigError("--resume needs --output DIR: the run directory to continue");
  const recipe = trainRecipe(entry.name, config);
  const output = resolve(tc.output ?? defaultRunDir("train", entry.name));

  const { train, val } = await trainTasks(entry, tc, recipe);
  const rollout: Rollout = tc.agent
    ? await loadRollout(tc.agent)
    : (recipe?.agent() ?? defaultRollout(entry));
  const evaluator: Evaluator<Episode> = tc.evaluator
    ? await loadEvaluator<Episode>(tc.evaluator)
    : defaultEvaluator(entry);
  // the recipe's run length (15 minutes of RL for countdown) unless a length is given
  const budget =
    recipe?.trainSeconds !== undefined &&
    tc.maxSteps === undefined &&
    tc.epochs === undefined &&
    tc.maxSeconds === undefined
      ? { maxSeconds: recipe.trainSeconds }
      : {};
  const samplingParams = { ...recipe?.samplingDefaults, ...tc.samplingParams };
  const valSamplingParams = { ...recipe?.samplingDefaults, ...tc.valSamplingParams };

  // the starting weights: a resumed run's latest checkpoint, --checkpoint, or the recipe's base
  const latest = tc.resume ? readLatest(output) : undefined;
  const given = config.backend.checkpoint;
  const checkpoint = latest
    ? join(latest.dir, "backend")
    : given
      ? resolveCheckpoint(given)
      : await recipe?.baseCheckpoint({ log: io.log, home: io.home });
  if (!checkpoint)
    io.log(
      "warning: no --checkpoint: training starts from a randomly initialised model, which will not solve much",
    );
  const backend = await backendDefinition(config.backend.name).create(
    { ...config.backend, checkpoint },
    { log: io.log },
  );
  const ac = new AbortController();
  const signal = io.signal ? AbortSignal.any([io.signal, ac.signal]) : ac.signal;
  const trainer = new AgentTrainer({
    rollout,
    evaluator,
    trainDataset: train,
    valDataset: val,
    backend,
    config: { ...config, trainer: { ...tc, ...budget, samplingParams, valSamplingParams } },
    output,
    log: io.log,
    signal,
    progress: Boolean(process.stderr.isTTY) && !io.signal,
  });
  try {
    checkLossSupported(backend.name, backend.capabilities, trainer.loss());
  } catch (e) {
    await backend.close();
    throw e;
  }
  io.log(
    `rllm train ${entry.name}: ${train.length} train / ${val.length} val tasks, agent ${rollout.name}, backend ${backend.name} (${checkpoint ?? "fresh init"}), ${tc.async ? `async, staleness ${tc.staleness}` : "on-policy"}${budget.maxSeconds ? `, ${budget.maxSeconds} s of RL (the recipe's budget; --max-steps, --epochs or --max-seconds to change)` : ""}, output ${output}`,
  );
  const onSigint = () => {
    io.log(
      "\nrllm train: stopping after this step (a checkpoint is written); Ctrl-C again to quit now",
    );
    if (ac.signal.aborted) process.exit(130);
    ac.abort();
  };
  process.on("SIGINT", onSigint);
  try {
    const r = await trainer.train();
    const pct = (x?: number) => (x === undefined ? "–" : `${(x * 100).toFixed(1)}%`);
    io.log(
      `rllm train: ${r.steps} steps (${r.newSteps} this run, stopped by ${r.stoppedBy}); val pass@1 ${pct(r.valBefore)} → ${pct(r.valAfter)}; checkpoint ${r.lastCheckpoint ?? "none"}`,
    );
    if (r.lastCheckpoint)
      io.log(
        `  evaluate it: rllm eval ${entry.name} --backend ${backend.name} --checkpoint ${join(r.lastCheckpoint, "backend")}`,
      );
    return r;
  } finally {
    process.off("SIGINT", onSigint);
    await backend.close();
  }
}
