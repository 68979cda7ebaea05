/**
 * `rllm train harbor:DIR` on the local backend, one short step: the tool agent's episodes on the
 * Harbor fixtures (sampled by a tiny random GPT, so they solve nothing) are rewarded by each task's
 * verifier — no evaluator errors — and become training rows with tokens; a checkpoint is written.
 * About 5 s.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { loadConfig } from "../config/index.js";
import { saveTinyLocalCheckpoint } from "../testing/tiny-local.js";
import { runTrainCommand, trainFlagsToConfig } from "./train.js";

const FIXTURES = new URL("../benchmarks/fixtures/harbor", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "rllm-train-harbor-"));
after(() => rmSync(dir, { recursive: true, force: true }));

test("rllm train harbor:DIR: a step of RL on verifier rewards, on the local backend", async () => {
  const ckpt = join(dir, "ckpt");
  // maxSeqLen holds the tool agent's prompt (its system prompt and tool schemas, in bytes)
  await saveTinyLocalCheckpoint(ckpt, 4096);
  const output = join(dir, "run");
  const flags = trainFlagsToConfig({
    checkpoint: ckpt,
    output,
    maxSteps: 1,
    groupSize: 2,
    batchSize: 1,
    valFreq: 0,
  }) as { backend: object; trainer: object };
  const config = loadConfig({
    env: {},
    flags: {
      ...flags,
      backend: { ...flags.backend, name: "local", trainWorkers: 1 },
      trainer: { ...flags.trainer, samplingParams: { temperature: 1, max_tokens: 8 } },
      algorithm: { dropZeroVarianceGroups: false },
    },
  });
  const logs: string[] = [];
  const r = await runTrainCommand(`harbor:${FIXTURES}`, config, { log: (l) => logs.push(l) });
  assert.equal(r.steps, 1);
  assert.match(logs.join("\n"), /3 train \/ 0 val tasks, agent tool-agent, backend local/);
  const [step] = readFileSync(join(output, "metrics.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, number>);
  assert.equal(step!["rollout/errors"], 0, "every episode got its verifier's reward");
  assert.equal(step!["batch/episodes"], 2);
  assert.equal(step!["termination/tool-agent/env_done"], 1, "no episode ended in an error");
  assert.equal(step!["reward/mean"], 0);
  assert.equal(step!["datums/rows"], 2);
  assert.ok(step!["datums/tokens"]! > 1000);
  assert.ok(existsSync(join(output, "checkpoints", "step-1")));
});
