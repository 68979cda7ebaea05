/** `rllm train <benchmark>`: RL training of an agent's model (src/trainer/). */
import { join, resolve } from "node:path";
import { Command } from "commander";
import { LocalBackend } from "../backends/local/backend.js";
import {
  defaultEvaluator,
  defaultRollout,
  getBenchmark,
  loadBenchmark,
} from "../benchmarks/index.js";
import {
  backendOptions,
  ConfigError,
  type ConfigLayer,
  type LoadConfigOptions,
  loadConfig,
  progressEnabled,
  type RllmConfig,
} from "../config/index.js";
import { inProcessGatewayConfig } from "../engine/gateway.js";
import { type Evaluator, loadEvaluator, loadRollout, type Rollout } from "../sdk/index.js";
import {
  COUNTDOWN_RECIPE,
  countdownLocalAgent,
  countdownRecipeTasks,
  ensureCountdownBase,
  usesCountdownRecipe,
} from "../trainer/countdown-recipe.js";
import { readLatest } from "../trainer/state.js";
import { AgentTrainer, type TrainResult } from "../trainer/trainer.js";
import type { Episode, Task } from "../types/index.js";
import { addFlags, type FlagValues, flagLayer, TRAIN_FLAGS } from "./flags.js";
import { createLog } from "./log.js";

/** The parsed flags of `rllm train` (its table: TRAIN_FLAGS in flags.ts). */
export type TrainFlags = FlagValues<typeof TRAIN_FLAGS>;

/** The config layer of `rllm train`'s flags. */
export function trainFlagsToConfig(f: TrainFlags): ConfigLayer {
  return flagLayer(TRAIN_FLAGS, f);
}

export function trainCommand(): Command {
  const cmd = new Command("train")
    .description(
      "RL-train the model behind an agent on a benchmark: rollouts through the gateway, rewards, advantages, updates. " +
        "The defaults shown are the config's; a recipe (countdown on the local backend) brings its own, which a file, RLLM_* variables and flags override.",
    )
    .argument("<benchmark>", "a catalog benchmark (countdown trains out of the box on a laptop)");
  return addFlags(cmd, TRAIN_FLAGS).action(async (benchmark: string, flags: TrainFlags) => {
    const config = loadTrainConfig(benchmark, {
      file: flags.config,
      flags: trainFlagsToConfig(flags),
    });
    const r = await runTrainCommand(benchmark, config);
    process.exitCode = r.stoppedBy === "signal" ? 130 : 0;
  });
}

/**
 * The config of `rllm train <benchmark>`: when the run is the countdown recipe's, its RL settings
 * (COUNTDOWN_RECIPE.rl) come in as defaults under the file, the environment and the flags.
 */
export function loadTrainConfig(benchmark: string, options: LoadConfigOptions): RllmConfig {
  const config = loadConfig(options);
  const tc = config.trainer;
  const opts = { backend: config.backend.name, agent: tc.agent, dataDir: tc.dataDir };
  if (!usesCountdownRecipe(getBenchmark(benchmark).name, opts)) return config;
  return loadConfig({
    ...options,
    defaults: { name: "the countdown recipe", value: COUNTDOWN_RECIPE.rl as ConfigLayer },
  });
}

export async function runTrainCommand(
  benchmarkName: string,
  config: RllmConfig,
  io: { log: (line: string) => void; signal?: AbortSignal; home?: string } = {
    log: createLog().info,
  },
): Promise<TrainResult> {
  const entry = getBenchmark(benchmarkName);
  const tc = config.trainer;
  if (config.backend.name !== "local")
    throw new ConfigError(`--backend ${config.backend.name}: only the local backend exists so far`);
  if (tc.resume && !tc.output)
    throw new ConfigError("--resume needs --output DIR: the run directory to continue");
  const gateway = inProcessGatewayConfig(config, "rllm train");
  const recipe = usesCountdownRecipe(entry.name, {
    backend: config.backend.name,
    agent: tc.agent,
    dataDir: tc.dataDir,
  });
  const stamp = new Date().toISOString().replace(/[-:]/g, "").replace(/\..*/, "").replace("T", "-");
  const output = resolve(tc.output ?? join("runs", "train", `${entry.name}-${stamp}`));

  // the datasets
  let train: Task[];
  let val: Task[];
  if (recipe) {
    train = countdownRecipeTasks("train", tc.maxTrainExamples);
    val = countdownRecipeTasks("test", tc.maxValExamples);
  } else {
    const splits = entry.source.splits;
    const trainSplit = tc.trainSplit ?? entry.source.defaultSplit;
    const valSplit = tc.valSplit ?? (splits.includes("test") ? "test" : undefined);
    const common = tc.dataDir ? { dataDir: tc.dataDir } : {};
    train = await loadBenchmark(entry.name, {
      ...common,
      split: trainSplit,
      ...(tc.maxTrainExamples ? { maxExamples: tc.maxTrainExamples } : {}),
    });
    val =
      valSplit && valSplit !== trainSplit
        ? await loadBenchmark(entry.name, {
            ...common,
            split: valSplit,
            maxExamples: tc.maxValExamples,
          })
        : [];
  }
  const rollout: Rollout = tc.agent
    ? await loadRollout(tc.agent)
    : recipe
      ? countdownLocalAgent()
      : defaultRollout(entry);
  const evaluator: Evaluator<Episode> = tc.evaluator
    ? await loadEvaluator<Episode>(tc.evaluator)
    : defaultEvaluator(entry);
  // the recipe's run length: 15 minutes of RL unless a length is given
  const budget =
    recipe && tc.maxSteps === undefined && tc.epochs === undefined && tc.maxSeconds === undefined
      ? { maxSeconds: COUNTDOWN_RECIPE.rlSeconds }
      : {};
  const samplingParams = recipe
    ? { max_tokens: COUNTDOWN_RECIPE.maxTokens, ...tc.samplingParams }
    : tc.samplingParams;
  const valSamplingParams = recipe
    ? { max_tokens: COUNTDOWN_RECIPE.maxTokens, ...tc.valSamplingParams }
    : tc.valSamplingParams;

  // the starting weights: a resumed run's latest checkpoint, --checkpoint, or the recipe's base
  const latest = tc.resume ? readLatest(output) : undefined;
  let checkpoint = config.backend.checkpoint;
  if (latest) checkpoint = join(latest.dir, "backend");
  else if (!checkpoint && recipe)
    checkpoint = await ensureCountdownBase({ log: io.log, home: io.home });
  if (!checkpoint)
    io.log(
      "warning: no --checkpoint: training starts from a randomly initialised model, which will not solve much",
    );
  const backend = await LocalBackend.create({ ...backendOptions(config.backend), checkpoint });
  const ac = new AbortController();
  const signal = io.signal ? AbortSignal.any([io.signal, ac.signal]) : ac.signal;
  const trainer = new AgentTrainer({
    rollout,
    evaluator,
    trainDataset: train,
    valDataset: val,
    backend,
    config: { ...config, trainer: { ...tc, ...budget, samplingParams, valSamplingParams } },
    gateway,
    output,
    log: io.log,
    signal,
    progress: Boolean(process.stderr.isTTY) && !io.signal && progressEnabled(),
  });
  try {
    backend.checkLoss(trainer.loss());
  } catch (e) {
    await backend.close();
    throw e;
  }
  io.log(
    `rllm train ${entry.name}: ${train.length} train / ${val.length} val tasks, agent ${rollout.name}, backend local (${checkpoint ?? "fresh init"}), ${tc.async ? `async, staleness ${tc.staleness}` : "on-policy"}${budget.maxSeconds ? `, ${budget.maxSeconds} s of RL (the recipe's budget; --max-steps, --epochs or --max-seconds to change)` : ""}, output ${output}`,
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
        `  evaluate it: rllm eval ${entry.name} --backend local --checkpoint ${join(r.lastCheckpoint, "backend")}`,
      );
    return r;
  } finally {
    process.off("SIGINT", onSigint);
    await backend.close();
  }
}
