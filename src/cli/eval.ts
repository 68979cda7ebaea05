/** `rllm eval <benchmark>`: run an agent over a benchmark through the gateway and grade it. */

import { existsSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { Command } from "commander";
import { backendDefinition } from "../backends/registry.js";
import type { ServedCheckpoint } from "../backends/spi.js";
import {
  defaultEvaluator,
  getBenchmark,
  listBenchmarks,
  loadBenchmark,
  parseTaskIndices,
} from "../benchmarks/index.js";
import {
  ConfigError,
  type ConfigLayer,
  loadConfig,
  loadProvider,
  progressEnabled,
  type RllmConfig,
} from "../config/index.js";
import {
  createProgress,
  DEFAULT_CONCURRENCY,
  episodeWriter,
  formatSummary,
  type GatewayHandle,
  InProcessGateway,
  inProcessGatewayConfig,
  RemoteGateway,
  runRollouts,
  summarize,
  writeJsonAtomic,
} from "../engine/index.js";
import { type Recipe, recipeFor } from "../recipes/index.js";
import { closeSharedSandboxes, configureSandboxes } from "../sandbox/shared.js";
import { loadEvaluator } from "../sdk/index.js";
import { resolveCheckpoint } from "../trainer/checkpoint-path.js";
import type { Episode, Task } from "../types/index.js";
import { agentKey, agentLabel, checkAgentChoice, chooseRollout } from "./agent-choice.js";
import { catalogTable } from "./dataset.js";
import { EVAL_FLAGS } from "./flag-tables.js";
import { addFlags, type FlagValues, flagLayer, parseSamplingParams } from "./flags.js";
import { checkRunJudge, startRunJudge } from "./judge.js";
import { createLog } from "./log.js";
import { defaultRunDir, runStamp } from "./run-dir.js";

type TorchSection = Extract<RllmConfig["backend"], { name: "torch" }>;

/** The parsed flags of `rllm eval` (its table: EVAL_FLAGS in flag-tables.ts). */
type EvalFlags = FlagValues<typeof EVAL_FLAGS>;

export function evalCommand(): Command {
  const benchmarks = listBenchmarks().map((e) => e.name);
  const cmd = new Command("eval")
    .description("Evaluate an agent on a benchmark: rollouts through the gateway, graded, pass@k.")
    .argument(
      "[benchmark]",
      `a catalog benchmark (${benchmarks.join(", ")}), or harbor:DIR (Harbor tasks)`,
    );
  return addFlags(cmd, EVAL_FLAGS).action(
    async (benchmark: string | undefined, flags: EvalFlags) => {
      if (flags.list) {
        console.log(await catalogTable());
        return;
      }
      if (benchmark === undefined)
        throw new ConfigError("rllm eval needs a benchmark (rllm eval --list shows the catalog)");
      const config = loadConfig({ file: flags.config, flags: evalFlagsToConfig(flags) });
      const code = await runEvalCommand(benchmark, config);
      process.exitCode = code;
    },
  );
}

/** The config layer of `rllm eval`'s flags. */
export function evalFlagsToConfig(f: EvalFlags): ConfigLayer {
  return flagLayer(EVAL_FLAGS, f);
}

export { parseSamplingParams };

/** The rows of `tasks` that `--task-indices` names (all of them without it). */
function selectTasks(
  tasks: Task[],
  indices: string | undefined,
  where: { benchmark: string; split: string },
): Task[] {
  if (!indices) return tasks;
  return parseTaskIndices(indices).map((i) => {
    const t = tasks[i];
    if (!t)
      throw new ConfigError(
        `--task-indices ${i}: ${where.benchmark}/${where.split} has ${tasks.length} tasks`,
      );
    return t;
  });
}

/**
 * Serves a checkpoint in process for `rllm eval --backend NAME` (or `--checkpoint` alone): the one
 * --checkpoint (eval.checkpoint) names, else the backend section's `checkpoint`, else the torch
 * section's `model` as it is (--backend torch --model M), else the recipe's base model. Returns it
 * with the directory (or Hub id) served.
 */
async function serveCheckpoint(
  backend: string,
  config: RllmConfig,
  recipe: Recipe | undefined,
): Promise<ServedCheckpoint & { dir: string }> {
  if (config.model.baseUrl || config.engine.gateway)
    throw new ConfigError(
      `--backend ${backend} serves a checkpoint itself; drop --base-url/--gateway (or drop --backend ${backend})`,
    );
  const definition = backendDefinition(backend);
  if (!definition.serve)
    throw new ConfigError(`--backend ${backend} cannot serve a checkpoint for rllm eval`);
  if (config.backend.name !== backend)
    throw new ConfigError(
      `--backend ${backend}, but the config's backend section is ${config.backend.name}'s; make them agree`,
    );
  const { backend: section } = config;
  if (section.name === "torch" && section.model && !config.eval.checkpoint && !section.checkpoint)
    return serveTorchModel(section);
  const log = createLog().info;
  const given = config.eval.checkpoint ?? config.backend.checkpoint;
  const base = given ? { checkpoint: resolveCheckpoint(given) } : await recipe?.base({ log });
  if (base && "model" in base) {
    if (section.name !== "torch")
      throw new ConfigError(
        `the ${recipe?.name} recipe starts from the model directory ${base.model}, which --backend ${backend} cannot serve; pass --checkpoint DIR`,
      );
    return serveTorchModel({ ...section, model: base.model });
  }
  const dir = base?.checkpoint;
  if (!dir)
    throw new ConfigError(
      `--backend ${backend} needs --checkpoint DIR (a ${backend}-backend checkpoint)${backend === "torch" ? " or --model DIR|HUB_ID" : ""}`,
    );
  const served = await definition.serve(dir, config.backend, { log });
  log(
    `rllm eval: serving ${resolve(dir)} (weight version ${served.weightVersion}) at ${served.baseURL}`,
  );
  return { ...served, dir: resolve(dir) };
}

/** `rllm eval --backend torch --model M` without a checkpoint: M itself, weight version 0. */
async function serveTorchModel(section: TorchSection): Promise<ServedCheckpoint & { dir: string }> {
  const log = createLog().info;
  const { name: _name, ...config } = section;
  const model = config.model!;
  const { serveTorchModel: serve } = await import("../backends/torch/serve.js");
  const served = await serve(model, config, { log });
  log(`rllm eval: serving ${model} (not a checkpoint: its own weights) at ${served.baseURL}`);
  return { ...served, dir: existsSync(model) ? resolve(model) : model };
}

/** Runs the eval; returns the process exit code (0 done, 1 nothing scored, 130 cancelled). */
export async function runEvalCommand(benchmarkName: string, config: RllmConfig): Promise<number> {
  const entry = getBenchmark(benchmarkName);
  const ev = config.eval;
  const _agentCmd = ev.agentCmd;
  checkAgentChoice(ev, ["--agent", "--agent-cmd", "--harness"]);
  const inProcess = inProcessGatewayConfig(config, "rllm eval");
  const judged = { command: "rllm eval", benchmark: entry.name, grader: entry.grader } as const;
  checkRunJudge(config, judged);
  const log = createLog();
  // serving a checkpoint in process: --backend NAME, or --checkpoint alone (the configured backend)
  const serving = ev.backend ?? (ev.checkpoint !== undefined ? config.backend.name : undefined);
  const recipe = recipeFor({
    benchmark: entry.name,
    backend: serving,
    agent: agentKey(ev),
    dataDir: ev.dataDir,
    model:
      serving && "model" in config.backend && typeof config.backend.model === "string"
        ? config.backend.model
        : undefined,
  });
  const stored = serving ? undefined : loadProvider();
  let baseURL = config.model.baseUrl ?? stored?.baseURL;
  let model = config.model.name ?? stored?.model;
  const apiKey = config.model.apiKey ?? stored?.apiKey;
  let kind = config.model.kind ?? stored?.kind ?? "openai";
  let served: (ServedCheckpoint & { dir: string }) | undefined;
  if (serving) {
    served = await serveCheckpoint(serving, config, recipe);
    baseURL = served.baseURL;
    model = served.model;
    kind = served.kind;
  }
  // Code graders and tool agents get their sandboxes from the config's section.
  await configureSandboxes(config.sandbox);
  try {
    return await evaluate();
  } finally {
    await served?.close();
    await closeSharedSandboxes();
  }

  async function evaluate(): Promise<number> {
    if (!config.engine.gateway && !baseURL) {
      throw new ConfigError(
        "no model to evaluate: pass --base-url URL --model NAME, or store one with rllm model setup",
      );
    }
    if (!model)
      throw new ConfigError(
        "no model name: pass --model NAME (or store one with rllm model setup)",
      );
    const split = ev.split ?? recipe?.splits.test ?? entry.source.defaultSplit;
    const tasks = recipe
      ? selectTasks(recipe.tasks(split, ev.maxExamples ?? recipe.evalExamples), ev.taskIndices, {
          benchmark: entry.name,
          split,
        })
      : await loadBenchmark(entry.name, {
          split,
          ...(ev.dataDir ? { dataDir: ev.dataDir } : {}),
          ...(ev.maxExamples ? { maxExamples: ev.maxExamples } : {}),
          ...(ev.taskIndices ? { taskIndices: parseTaskIndices(ev.taskIndices) } : {}),
        });
    if (tasks.length === 0) throw new ConfigError(`no tasks selected from ${entry.name}/${split}`);

    const rollout = await chooseRollout(
      ev,
      entry,
      recipe && (() => recipe.agent()),
      config.engine.timeoutSeconds,
    );
    const samplingParams = { ...recipe?.samplingDefaults, ...ev.samplingParams };
    if (ev.seed !== undefined && samplingParams.seed !== undefined)
      throw new ConfigError(
        "--seed seeds every (task, attempt) apart and sampling seed gives all rollouts one seed; pass one of them",
      );
    const evaluator = ev.evaluator
      ? await loadEvaluator<Episode>(ev.evaluator)
      : defaultEvaluator(entry);

    const stamp = runStamp();
    const output = resolve(ev.output ?? defaultRunDir("eval", entry.name, stamp));
    mkdirSync(output, { recursive: true });

    let gateway: GatewayHandle;
    if (config.engine.gateway) {
      gateway = new RemoteGateway(config.engine.gateway, config.engine.gatewayAdminKey);
    } else {
      gateway = await InProcessGateway.start(
        {
          ...inProcess.config,
          upstreams: [{ url: baseURL!, kind, ...(apiKey ? { apiKey } : {}), model }],
          model,
        },
        { storePath: join(output, "traces.db"), storeSynchronous: inProcess.storeSynchronous },
      );
    }
    // The judge's calls are traced beside the episodes' (cli/judge.ts).
    const judge = await startRunJudge(config, {
      ...judged,
      model: { baseURL, kind, apiKey },
      store: gateway instanceof InProcessGateway ? gateway.gateway.store : undefined,
      storePath: join(output, "judge-traces.db"),
    }).catch(async (err) => {
      await gateway.close();
      throw err;
    });

    // Ctrl-C once: no new rollouts, running ones finish; twice: abort them; three times: exit now.
    const graceful = new AbortController();
    const hard = new AbortController();
    let interrupts = 0;
    const onSigint = () => {
      interrupts++;
      if (interrupts === 1) {
        process.stderr.write(
          "\nrllm eval: stopping — running rollouts will finish (Ctrl-C again to abort them)\n",
        );
        graceful.abort();
      } else if (interrupts === 2) {
        process.stderr.write("\nrllm eval: aborting running rollouts\n");
        hard.abort();
      } else process.exit(130);
    };
    process.on("SIGINT", onSigint);

    const startedAt = new Date();
    const reproducible = {
      benchmark: entry.name,
      split,
      model,
      baseURL: baseURL ?? null,
      upstreamKind: kind,
      gateway: config.engine.gateway ?? null,
      dataDir: ev.dataDir ? resolve(ev.dataDir) : null,
      maxExamples: ev.maxExamples ?? null,
      taskIndices: ev.taskIndices ?? null,
      taskCount: tasks.length,
      attempts: ev.attempts,
      concurrency: config.engine.concurrency ?? DEFAULT_CONCURRENCY,
      timeoutSeconds: config.engine.timeoutSeconds,
      infraRetries: config.engine.infraRetries,
      samplingParams,
      seed: ev.seed ?? null,
      agent: agentLabel(ev, rollout),
      evaluator: ev.evaluator ?? `grader:${entry.grader}`,
      tokenizer: config.gateway.tokenizer ?? null,
      checkpoint: served?.dir ?? null,
      judge: judge
        ? { model: judge.model, baseURL: config.judge.baseUrl ?? baseURL ?? null }
        : null,
    };
    log.info(
      `rllm eval ${entry.name}/${split}: ${tasks.length} tasks × ${ev.attempts} attempts, model ${model}, output ${output}`,
    );
    try {
      const writeEpisode = episodeWriter(output);
      const result = await runRollouts(tasks, {
        gateway,
        rollout,
        evaluator,
        groupSize: ev.attempts,
        concurrency: config.engine.concurrency,
        timeoutMs: config.engine.timeoutSeconds * 1000,
        infraRetries: config.engine.infraRetries,
        model,
        samplingParams,
        ...(ev.seed !== undefined ? { seed: ev.seed } : {}),
        isValidation: true,
        runId: `eval-${entry.name}-${stamp}`,
        signal: graceful.signal,
        hardSignal: hard.signal,
        onEpisode: writeEpisode,
        ...(progressEnabled() ? { progress: createProgress({ label: "rollouts" }) } : {}),
      });
      const summary = summarize(result.episodes, {
        benchmark: entry.name,
        model,
        agent: rollout.name,
        attempts: ev.attempts,
        cancelled: result.cancelled || graceful.signal.aborted,
        metrics: result.metrics,
        config: reproducible,
        startedAt,
      });
      writeJsonAtomic(join(output, "results.json"), summary);
      console.log(formatSummary(summary));
      console.log(`  results: ${join(output, "results.json")}`);
      if (summary.cancelled) return 130;
      return summary.total === 0 ? 1 : 0;
    } finally {
      process.off("SIGINT", onSigint);
      await judge?.close();
      await gateway.close();
    }
  }
}
