import assert from "node:assert/strict";
import { test } from "node:test";
import { COUNTDOWN_RECIPE, countdownBaseDir, countdownRecipe, recipeHash } from "./countdown.js";
import { recipeFor } from "./index.js";

const run = { benchmark: "countdown", backend: "local", agent: undefined, dataDir: undefined };

test("the countdown recipe is the run's only on the local backend with no agent or data of the user's", () => {
  assert.equal(recipeFor(run), countdownRecipe);
  assert.equal(recipeFor({ ...run, benchmark: "gsm8k" }), undefined);
  assert.equal(recipeFor({ ...run, backend: undefined }), undefined, "a model server");
  assert.equal(recipeFor({ ...run, backend: "torch" }), undefined);
  assert.equal(recipeFor({ ...run, agent: "agent.ts" }), undefined);
  assert.equal(recipeFor({ ...run, dataDir: "data" }), undefined);
});

test("the base model's cache name is unchanged by the move to recipes/", () => {
  // a changed hash would train a new base model on every machine instead of reusing the cached one
  assert.equal(recipeHash(), "09a3ae7849e5");
  assert.equal(countdownBaseDir("/h"), "/h/models/countdown-local-09a3ae7849e5");
});

test("the countdown recipe's parts", () => {
  const r = countdownRecipe;
  assert.equal(r.tasks(r.splits.test).length, COUNTDOWN_RECIPE.counts.test);
  assert.equal(r.tasks(r.splits.train, 5).length, 5);
  assert.deepEqual(
    r.tasks("test", 3).map((t) => t.id),
    r
      .tasks("test")
      .slice(0, 3)
      .map((t) => t.id),
  );
  assert.throws(() => r.tasks("validation"), /has splits train and test, not "validation"/);
  assert.equal(r.agent().name, "countdown-local");
  assert.deepEqual(r.samplingDefaults, { max_tokens: COUNTDOWN_RECIPE.maxTokens });
  assert.equal(r.configDefaults, COUNTDOWN_RECIPE.rl);
  assert.equal(r.trainSeconds, 900);
});
