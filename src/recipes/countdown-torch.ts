/**
 * The countdown recipe on the torch backend: `rllm train countdown --backend torch` with neither a
 * model, an agent nor a dataset of the user's. The same tasks, agent, prompt and sampling defaults
 * as the local recipe (countdown.ts), and the same base model: the local recipe's SFT warm start,
 * exported as a Hugging Face directory (export-hf.ts: GPT-NeoX, its byte-level tokenizer and chat
 * template) that the torch worker fine-tunes in full — so the two backends start RL from the same
 * weights and their curves compare.
 *
 * Config defaults: the local recipe's RL settings (lr, schedule, batch, group, temperature,
 * validation and checkpoints) with the torch backend's own knobs — one sampler worker whose
 * running batch holds a step's 256 answers (sampler.maxBatch), and the CPU unless the user says
 * otherwise (backend.device): the model is 0.4M parameters, too small to gain from a GPU.
 */
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { exportLocalAsHf } from "../backends/local/export-hf.js";
import type { ConfigLayer } from "../config/index.js";
import { COUNTDOWN_RECIPE, countdownRecipe, ensureCountdownBase } from "./countdown.js";
import type { Recipe } from "./recipe.js";

/** The local recipe's RL settings, less the local backend's knobs, plus the torch backend's. */
export const COUNTDOWN_TORCH_DEFAULTS = {
  ...COUNTDOWN_RECIPE.rl,
  // named, so the layer's keys are checked against the torch section (the recipe is torch's only)
  backend: { name: "torch", device: "cpu", microBatchTokens: 1024, sampler: { maxBatch: 256 } },
} as const;

/**
 * The local recipe's base model as a Hugging Face directory, beside it in $RLLM_HOME/models/
 * (`<base>-hf`): from the cache, or exported now (into a temporary directory renamed into place,
 * so an interrupted export is never taken for a finished one). Builds the local base first when it
 * is not cached; `steps` as ensureCountdownBase's (tests use a few).
 */
export async function ensureCountdownHfBase(
  options: { home?: string; log?: (line: string) => void; steps?: number } = {},
): Promise<string> {
  const local = await ensureCountdownBase(options);
  const dir = `${local}-hf`;
  if (existsSync(dir)) return dir;
  const tmp = `${dir}.tmp-${process.pid}`;
  try {
    mkdirSync(dirname(dir), { recursive: true });
    rmSync(tmp, { recursive: true, force: true });
    await exportLocalAsHf(local, tmp);
    renameSync(tmp, dir);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  options.log?.(`countdown base model: exported as a Hugging Face directory to ${dir}`);
  return dir;
}

/** The recipe as `rllm train` and `rllm eval` use it on the torch backend. */
export const countdownTorchRecipe: Recipe = {
  ...countdownRecipe,
  name: "countdown-torch",
  appliesTo: (run) =>
    run.benchmark === "countdown" &&
    run.backend === "torch" &&
    !run.agent &&
    !run.dataDir &&
    !run.model,
  base: async (io) => ({ model: await ensureCountdownHfBase(io) }),
  configDefaults: COUNTDOWN_TORCH_DEFAULTS as ConfigLayer,
};
