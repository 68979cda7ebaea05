/**
 * A recipe: everything a benchmark needs beyond its catalog entry to train and evaluate out of the
 * box on one backend — its tasks, its agent, the checkpoint a run starts from, and the settings
 * that were measured to work. `rllm train` and `rllm eval` ask for the run's recipe (recipes/
 * index.ts) and use its parts; without one they fall back to the benchmark's dataset, agent and
 * grader, and to the config as given.
 *
 * A recipe applies to a run only as a whole: a user's own agent or dataset is not the recipe's,
 * so neither are its defaults.
 */
import type { ConfigLayer } from "../config/index.js";
import type { Rollout } from "../sdk/index.js";
import type { SamplingParams, Task } from "../types/index.js";

/** What decides whether a recipe is a run's. */
export interface RecipeRun {
  /** The catalog name of the benchmark. */
  benchmark: string;
  /** The backend that trains or serves the model; undefined: a model server (--base-url). */
  backend: string | undefined;
  /** The user's agent (--agent or --agent-cmd), if any. */
  agent: string | undefined;
  /** The user's dataset folder (--data-dir), if any. */
  dataDir: string | undefined;
  /** The backend section's `model` (backends that train a Hugging Face directory), if any. */
  model: string | undefined;
}

/**
 * Where a run starts without --checkpoint: a checkpoint of the run's backend (what its create()
 * takes as `checkpoint`), or a model directory (the backend section's `model`).
 */
export type RecipeBase = { checkpoint: string } | { model: string };

export interface Recipe {
  /** Named in logs and errors: "the countdown recipe". */
  readonly name: string;
  appliesTo(run: RecipeRun): boolean;
  /** The split training uses, and the held-out one that validation and eval default to. */
  readonly splits: { readonly train: string; readonly test: string };
  /**
   * The first `count` tasks of `split` (without a count: all of it), the same every time. A split
   * the recipe does not have is a ConfigError naming those it has.
   */
  tasks(split: string, count?: number): Task[];
  /** Tasks `rllm eval` takes from a split when no --max-examples is given (undefined: all). */
  readonly evalExamples?: number;
  /** The agent that runs its tasks. */
  agent(): Rollout;
  /** What training and eval start from without --checkpoint (built on first use, cached). */
  base(io: { log?: (line: string) => void; home?: string }): Promise<RecipeBase>;
  /** Config defaults: a layer under the config file, the environment and the flags. */
  readonly configDefaults: ConfigLayer;
  /** Sampling defaults under the run's own (training, validation and eval alike), e.g. max_tokens. */
  readonly samplingDefaults: SamplingParams;
  /** How long `rllm train` runs when no length (steps, epochs, seconds) is given. */
  readonly trainSeconds?: number;
}
