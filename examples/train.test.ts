/**
 * `rllm train` on the local backend trains a framework agent unchanged: the AI SDK example
 * (examples/ai-sdk.ts, its calculator tool and all) runs against the local sampler for two
 * on-policy steps on gsm8k rows and the model is updated from its traces.
 *
 * The tiny random model cannot do math (nor call the calculator on purpose), so the reward here is
 * one with variance inside a group — the parity of the first sampled token — given as a plain
 * evaluator module; what the test checks is the loop: the agent's calls carry its tool, their
 * token ids and logprobs become training rows, the update has a gradient, and step 2 samples from
 * the weights step 1 made. Only this example trains in CI (one run is ~15 s here): the LangGraph
 * and Mastra agents train the same way; the OpenAI Agents one treats a response cut at max_tokens
 * (`status: "incomplete"` in the Responses API) as an error, as it does against OpenAI, so it
 * needs a token budget its answers fit in.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { runTrainCommand, trainFlagsToConfig } from "../src/cli/train.js";
import { type ConfigLayer, loadConfig } from "../src/config/index.js";
import { Store } from "../src/store/sqlite.js";
import { saveTinyLocalCheckpoint } from "../src/testing/tiny-local.js";

const DATA = new URL("../src/benchmarks/fixtures/data/", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "rllm-example-train-"));
process.env.RLLM_HOME = join(dir, "home");
after(() => rmSync(dir, { recursive: true, force: true }));

test("rllm train on the local backend trains the AI SDK agent unchanged", async () => {
  const checkpoint = join(dir, "ckpt");
  await saveTinyLocalCheckpoint(checkpoint, 1536);
  const evaluator = join(dir, "parity.mjs");
  writeFileSync(
    evaluator,
    "export default (task, episode) => episode.trajectories[0].steps[0].completionIds[0] % 2;\n",
  );
  const output = join(dir, "run");
  const flags = trainFlagsToConfig({
    checkpoint,
    output,
    agent: new URL("./ai-sdk.ts", import.meta.url).pathname,
    evaluator,
    dataDir: DATA,
    maxSteps: 2,
    groupSize: 4,
    batchSize: 2,
    valFreq: 0,
    seed: 1,
  }) as ConfigLayer & { trainer: Record<string, unknown> };
  const config = loadConfig({
    env: {},
    flags: {
      ...flags,
      trainer: { ...flags.trainer, samplingParams: { temperature: 1, max_tokens: 8 } },
      // groups where every answer got the same reward still train (their advantage is 0)
      algorithm: { dropZeroVarianceGroups: false },
    },
  });
  const result = await runTrainCommand("gsm8k", config, { log: () => {} });
  assert.equal(result.steps, 2);
  assert.equal(result.weightVersion, 2);

  const metrics = readFileSync(join(output, "metrics.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, number>)
    .filter((m) => m.step! > 0 && !m.final);
  assert.deepEqual(
    metrics.map((m) => m.step),
    [1, 2],
  );
  for (const m of metrics) {
    assert.equal(m["rollout/errors"], 0);
    assert.equal(m["datums/rows"], 8, "one training row per episode");
    assert.equal(m["datums/missing_logprob_tokens"], 0);
    assert.ok(m["optim/grad_norm"]! > 0, `step ${m.step} updated the model`);
  }

  const store = new Store({ path: join(output, "traces.db") });
  try {
    const traces = store.queryTraces({}).map((t) => t.trace);
    assert.equal(traces.length, 16, "one LLM call per episode: the model answers without a tool");
    for (const t of traces) {
      assert.equal(t.api, "chat.completions");
      const tools = (t.request as { tools?: { function: { name: string } }[] }).tools;
      assert.deepEqual(
        tools?.map((tool) => tool.function.name),
        ["calculator"],
      );
      assert.ok(t.promptIds!.length > 0 && t.choices[0]!.completionIds!.length > 0);
    }
    assert.deepEqual(
      traces.map((t) => t.weightVersion),
      [...Array(8).fill(0), ...Array(8).fill(1)],
      "step 2 samples from the weights of step 1",
    );
  } finally {
    store.close();
  }
});
