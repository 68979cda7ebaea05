/**
 * `rllm train` rewarded by an LLM judge, on the local backend (a tiny random GPT), one short step:
 * an evaluator module grades with llm_equality over the run's judge (--judge-url/--judge-model, a
 * scripted fake judge), whose calls land in OUTPUT/judge-traces.db under judge sessions; the
 * judge's verdicts are the step's rewards. Then the judge never answers in its format: every
 * episode is infra-failed, nothing trains as 0, and the run stops saying so. A few seconds.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { loadConfig } from "../config/index.js";
import { Store } from "../store/sqlite.js";
import { type FakeUpstream, startFakeUpstream } from "../testing/fake-upstream.js";
import { saveTinyLocalCheckpoint } from "../testing/tiny-local.js";
import { runTrainCommand, trainFlagsToConfig } from "./train.js";

const dir = mkdtempSync(join(tmpdir(), "rllm-train-judge-"));
process.env.RLLM_HOME = join(dir, "home");
const here = (rel: string) => fileURLToPath(new URL(rel, import.meta.url));
let judge: FakeUpstream;
let verdict = "VERDICT: CORRECT";
const ckpt = join(dir, "ckpt");
const evaluatorFile = join(dir, "judged.mjs");

before(async () => {
  judge = await startFakeUpstream({ kind: "openai", model: "judge-m", respond: () => verdict });
  await saveTinyLocalCheckpoint(ckpt);
  // countdown rows hold numbers and a target: the judge is asked whether the answer is the target
  writeFileSync(
    evaluatorFile,
    `import { llmEqualityGrader, sharedJudge } from ${JSON.stringify(here("../rewards/index.ts"))};
     import { evaluator, finalResponse } from ${JSON.stringify(here("../sdk/index.ts"))};
     const grade = llmEqualityGrader(sharedJudge);
     export default evaluator((task, episode) =>
       grade({ id: task.id, data: { question: "Reach " + task.data.target, answer: String(task.data.target) } },
         finalResponse(episode) || "(nothing)"));\n`,
  );
});
after(async () => {
  await judge.close();
  rmSync(dir, { recursive: true, force: true });
});

const train = (output: string) => {
  const flags = trainFlagsToConfig({
    checkpoint: ckpt,
    output,
    maxSteps: 1,
    groupSize: 2,
    batchSize: 1,
    valFreq: 0,
    valExamples: 1,
    valAttempts: 1,
    evaluator: evaluatorFile,
    judgeUrl: `${judge.url}/v1`,
    judgeModel: "judge-m",
  }) as { backend: object; trainer: object; judge: object };
  const config = loadConfig({
    env: {},
    flags: {
      ...flags,
      backend: { ...flags.backend, name: "local", trainWorkers: 1 },
      trainer: { ...flags.trainer, samplingParams: { temperature: 1, max_tokens: 8 } },
      algorithm: { dropZeroVarianceGroups: false },
      judge: { ...flags.judge, cache: false, retries: 0 },
    },
  });
  return runTrainCommand("countdown", config, { log: () => {} });
};

test("rllm train: the judge's verdicts are the rewards, its calls traced in judge-traces.db", async () => {
  const output = join(dir, "run");
  const calls = judge.totalRequests;
  const r = await train(output);
  assert.equal(r.steps, 1);
  const lines = readFileSync(join(output, "metrics.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, number>);
  const step = lines.find((l) => l.step === 1 && !l.final);
  assert.equal(lines[0]!["val/reward_mean"], 1, "validation is judged too");
  assert.equal(step!["reward/mean"], 1);
  assert.equal(step!["rollout/errors"], 0);
  assert.equal(step!["datums/rows"], 2);
  assert.equal(
    judge.totalRequests - calls,
    4,
    "one judge call per episode: 2 trained, 2 validated",
  );
  const store = new Store({ path: join(output, "judge-traces.db") });
  try {
    const traces = store.queryTraces({}).map((t) => t.trace);
    assert.equal(traces.length, 4);
    assert.ok(traces.every((t) => t.sessionId.startsWith("judge/") && t.model === "judge-m"));
  } finally {
    store.close();
  }
});

test("rllm train: a judge without verdicts makes every episode infra-failed — no step trains on 0", async () => {
  verdict = "Hmm.";
  try {
    await assert.rejects(
      train(join(dir, "run-down")),
      /every rollout of .* failed .*evaluator: judge .*no verdict in the required format/,
    );
  } finally {
    verdict = "VERDICT: CORRECT";
  }
});
