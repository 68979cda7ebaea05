/** The recipes rllm ships, and the one a run uses (at most one applies to a run). */
import { countdownRecipe } from "./countdown.js";
import { countdownTorchRecipe } from "./countdown-torch.js";
import type { Recipe, RecipeRun } from "./recipe.js";

export type { Recipe, RecipeBase } from "./recipe.js";

const RECIPES: readonly Recipe[] = [countdownRecipe, countdownTorchRecipe];

/** The recipe of `run`, or undefined: the benchmark's own dataset, agent and grader. */
export function recipeFor(run: RecipeRun): Recipe | undefined {
  return RECIPES.find((r) => r.appliesTo(run));
}
