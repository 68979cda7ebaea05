/** `rllm train <benchmark>`: RL training of an agent's model (src/trainer/). */
import { join, resolve } from "node:path";
import { Command } from "commander";
import { backendDefinition } from "../backends/registry.js";
import {
  type BenchmarkEntry,
  defaultEvaluator,
  getBenchmark,
  loadBenchmark,
} from "../benchmarks/index.js";
import {
  ConfigError,
  type ConfigLayer,
  type LoadConfigOptions,
  loadConfig,
  progressEnabled,
  type RllmConfig,
} from "../config/index.js";
import { inProcessGatewayConfig } from "../engine/gateway.js";
import { type Recipe, recipeFor } from "../recipes/index.js";
import { closeSharedSandboxes, configureSandboxes } from "../sandbox/shared.js";
import { type Evaluator, loadEvaluator, type Rollout } from "../sdk/index.js";
import { resolveCheckpoint } from "../trainer/checkpoint-path.js";
import { readLatest, STEP_BACKEND_DIR } from "../trainer/state.js";
import { AgentTrainer, type TrainResult } from "../trainer/trainer.js";
import type { Episode, Task } from "../types/index.js";
import { agentKey, checkAgentChoice, chooseRollout } from "./agent-choice.js";
import { TRAIN_FLAGS } from "./flag-tables.js";
import { addFlags, type FlagValues, flagLayer } from "./flags.js";
import { checkRunJudge, type RunJudge, startRunJudge } from "./judge.js";
import { createLog } from "./log.js";
import { defaultRunDir } from "./run-dir.js";

/** The parsed flags of `rllm train` (its table: TRAIN_FLAGS in flag-tables.ts). */
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
    .argument(
      "<benchmark>",
      "a catalog benchmark (countdown trains out of the box on a laptop), or harbor:DIR (Harbor tasks)",
    );
  return addFlags(cmd, TRAIN_FLAGS).action(async (benchmark: string, flags: TrainFlags) => {
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
    agent: agentKey(tc),
    dataDir: tc.dataDir,
    model:
      "model" in config.backend && typeof config.backend.model === "string"
        ? config.backend.model
        : undefined,
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
    defaults: { name: `the ${recipe.name} recipe`, value: samplerDefaults(recipe, config) },
  });
}

/**
 * A recipe's defaults, less its in-process sampler knobs when the run generates on vLLM or SGLang
 * servers (`--sampler`): those knobs would be refused as foreign to the external engine.
 */
function samplerDefaults(recipe: Recipe, config: RllmConfig): ConfigLayer {
  const d = recipe.configDefaults;
  const b = config.backend;
  if (b.name !== "torch" || b.sampler.engine === "torch") return d;
  if (typeof d.backend !== "object" || d.backend === null) return d;
  const { sampler: _inProcess, ...backend } = d.backend as Record<string, unknown>;
  return { ...d, backend };
}

/** The training and validation tasks: the recipe's, else the benchmark's dataset. */
async function trainTasks(
  entry: BenchmarkEntry,
  tc: RllmConfig["trainer"],
  recipe: Recipe | undefined,
): Promise<{ train: Task[]; val: Task[] }> {
  if (recipe)
    return {
      train: recipe.tasks(tc.trainSplit ?? recipe.splits.train, tc.maxTrainExamples),
      val: recipe.tasks(tc.valSplit ?? recipe.splits.test, tc.maxValExamples),
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
    log: createLog().info,
  },
): Promise<TrainResult> {
  const entry = getBenchmark(benchmarkName);
  const tc = config.trainer;
  checkAgentChoice(tc, ["--agent", "--harness"]);
  if (tc.resume && !tc.output)
    throw new ConfigError("--resume needs --output DIR: the run directory to continue");
  const gateway = inProcessGatewayConfig(config, "rllm train");
  const judged = { command: "rllm train", benchmark: entry.name, grader: entry.grader } as const;
  checkRunJudge(config, judged);
  const recipe = trainRecipe(entry.name, config);
  const output = resolve(tc.output ?? defaultRunDir("train", entry.name));

  const { train, val } = await trainTasks(entry, tc, recipe);
  const rollout: Rollout = await chooseRollout(
    tc,
    entry,
    recipe && (() => recipe.agent()),
    config.engine.timeoutSeconds,
  );
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
  const base = latest || given ? undefined : await recipe?.base({ log: io.log, home: io.home });
  const checkpoint = latest
    ? join(latest.dir, STEP_BACKEND_DIR)
    : given
      ? resolveCheckpoint(given)
      : base && "checkpoint" in base
        ? base.checkpoint
        : undefined;
  const model = base && "model" in base ? base.model : undefined;
  const userModel = config.backend.name === "torch" ? config.backend.model : undefined;
  if (!checkpoint && !model && !userModel)
    io.log(
      "warning: no --checkpoint: training starts from a randomly initialised model, which will not solve much",
    );
  const backend = await backendDefinition(config.backend.name).create(
    { ...config.backend, ...(model ? { model } : {}), checkpoint },
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
    gateway,
    output,
    log: io.log,
    signal,
    progress: Boolean(process.stderr.isTTY) && !io.signal && progressEnabled(),
  });
  io.log(
    `rllm train ${entry.name}: ${train.length} train / ${val.length} val tasks, agent ${rollout.name}, backend ${backend.name} (${checkpoint ?? model ?? "fresh init"}), ${tc.async ? `async, staleness ${tc.staleness}` : "on-policy"}${budget.maxSeconds ? `, ${budget.maxSeconds} s of RL (the recipe's budget; --max-steps, --epochs or --max-seconds to change)` : ""}, output ${output}`,
  );
  const onSigint = () => {
    io.log(
      "\nrllm train: stopping after this step (a checkpoint is written); Ctrl-C again to quit now",
    );
    if (ac.signal.aborted) process.exit(130);
    ac.abort();
  };
  process.on("SIGINT", onSigint);
  // Code graders and tool agents get their sandboxes from the config's section.
  await configureSandboxes(config.sandbox);
  let judge: RunJudge | undefined;
  try {
    // The judge's calls are traced in OUTPUT/judge-traces.db (cli/judge.ts).
    judge = await startRunJudge(config, { ...judged, storePath: join(output, "judge-traces.db") });
    const r = await trainer.train();
    const pct = (x?: number) => (x === undefined ? "–" : `${(x * 100).toFixed(1)}%`);
    io.log(
      `rllm train: ${r.steps} steps (${r.newSteps} this run, stopped by ${r.stoppedBy}); val pass@1 ${pct(r.valBefore)} → ${pct(r.valAfter)}; checkpoint ${r.lastCheckpoint ?? "none"}`,
    );
    if (r.lastCheckpoint)
      io.log(
        `  evaluate it: rllm eval ${entry.name} --backend ${backend.name} --checkpoint ${r.lastCheckpoint}`,
      );
    return r;
  } finally {
    process.off("SIGINT", onSigint);
    await judge?.close();
    await backend.close();
    await closeSharedSandboxes();
  }
}
