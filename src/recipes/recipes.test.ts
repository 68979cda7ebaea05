import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { renderChat as renderLocalChat } from "../backends/local/chat-format.js";
import { loadServing } from "../hf/serving.js";
import {
  COUNTDOWN_RECIPE,
  countdownBaseDir,
  countdownRecipe,
  ensureCountdownBase,
  recipeHash,
} from "./countdown.js";
import { COUNTDOWN_TORCH_DEFAULTS, countdownTorchRecipe } from "./countdown-torch.js";
import { recipeFor } from "./index.js";

const run = {
  benchmark: "countdown",
  backend: "local",
  agent: undefined,
  dataDir: undefined,
  model: undefined,
};

test("the countdown recipe is the run's only on the local backend with no agent or data of the user's", () => {
  assert.equal(recipeFor(run), countdownRecipe);
  assert.equal(recipeFor({ ...run, benchmark: "gsm8k" }), undefined);
  assert.equal(recipeFor({ ...run, backend: undefined }), undefined, "a model server");
  assert.equal(recipeFor({ ...run, agent: "agent.ts" }), undefined);
  assert.equal(recipeFor({ ...run, dataDir: "data" }), undefined);
});

test("on the torch backend the countdown-torch recipe applies, unless the user gives a model, agent or data", () => {
  const torch = { ...run, backend: "torch" };
  assert.equal(recipeFor(torch), countdownTorchRecipe);
  assert.equal(recipeFor({ ...torch, model: "Qwen/Qwen3-0.6B" }), undefined);
  assert.equal(recipeFor({ ...torch, agent: "agent.ts" }), undefined);
  assert.equal(recipeFor({ ...torch, dataDir: "data" }), undefined);
  assert.equal(recipeFor({ ...torch, benchmark: "gsm8k" }), undefined);
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

test("the torch recipe: the local recipe's tasks, agent and sampling; its RL settings with torch's knobs", () => {
  const t = countdownTorchRecipe;
  assert.deepEqual(
    t.tasks("test", 5).map((x) => x.id),
    countdownRecipe.tasks("test", 5).map((x) => x.id),
  );
  assert.equal(t.agent().name, "countdown-local");
  assert.deepEqual(t.samplingDefaults, countdownRecipe.samplingDefaults);
  assert.equal(t.trainSeconds, countdownRecipe.trainSeconds);
  const { backend, ...rest } = COUNTDOWN_TORCH_DEFAULTS;
  const { backend: _local, ...localRest } = COUNTDOWN_RECIPE.rl;
  assert.deepEqual(rest, localRest, "lr, schedule, batch, group, temperature: the local recipe's");
  assert.deepEqual(
    backend,
    { name: "torch", device: "cpu", microBatchTokens: 1024, sampler: { maxBatch: 256 } },
    "no sampler.workers",
  );
  assert.equal(t.configDefaults, COUNTDOWN_TORCH_DEFAULTS);
});

test("the torch recipe's base: the local base exported as a Hugging Face directory, cached", async () => {
  const home = mkdtempSync(join(tmpdir(), "rllm-recipe-"));
  try {
    // a 2-step SFT base in the place of the real one (800 steps), so base() finds it cached
    renameSync(
      await ensureCountdownBase({ home, steps: 2, log: () => {} }),
      countdownBaseDir(home),
    );
    const base = await countdownTorchRecipe.base({ home, log: () => {} });
    assert.ok("model" in base, "a model directory, not a checkpoint");
    const dir = base.model;
    assert.equal(dir, `${countdownBaseDir(home)}-hf`);
    const config = JSON.parse(readFileSync(join(dir, "config.json"), "utf8"));
    assert.deepEqual(config.architectures, ["GPTNeoXForCausalLM"]);
    const serving = await loadServing(dir);
    const messages = [{ role: "user" as const, content: "3 7 12 -> 25" }];
    assert.deepEqual(
      serving.renderChat(messages, { addGenerationPrompt: true }),
      renderLocalChat(messages, { addGenerationPrompt: true }),
      "the chat template renders the local chat format",
    );
    assert.equal(
      serving.tokenizer.decode(serving.tokenizer.encode("<answer>1+2</answer>")),
      "<answer>1+2</answer>",
    );
    const mtime = statSync(join(dir, "model.safetensors")).mtimeMs;
    assert.deepEqual(await countdownTorchRecipe.base({ home, log: () => {} }), base);
    assert.equal(
      statSync(join(dir, "model.safetensors")).mtimeMs,
      mtime,
      "cached, not exported again",
    );
    assert.ok(!existsSync(`${dir}.tmp-${process.pid}`), "no temporary directory left");
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
