/**
 * Validation's metrics over a real engine run (fake vLLM upstream behind an in-process gateway):
 * an episode whose evaluator's infrastructure failed (an LLM judge down) is left out of
 * val/reward_mean as it is out of pass@k — never counted as reward 0.
 */
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import OpenAI from "openai";
import { InProcessGateway } from "../engine/index.js";
import { evaluator, rollout } from "../sdk/index.js";
import { startFakeUpstream } from "../testing/fake-upstream.js";
import { type Episode, InfrastructureError, type Task } from "../types/index.js";
import { RunDir } from "./run-dir.js";
import { Validation } from "./validation.js";

test("validation: an infra-failed episode is not a 0 in val/reward_mean", async () => {
  const up = await startFakeUpstream({ kind: "vllm", respond: () => "an answer" });
  const gateway = await InProcessGateway.start({
    upstreams: [{ url: up.url, kind: "vllm" }],
    healthCheckIntervalMs: 0,
  });
  const agent = rollout(async (t, config) => {
    const client = new OpenAI({ baseURL: config.baseURL, apiKey: config.apiKey, maxRetries: 0 });
    await client.chat.completions.create({
      model: config.model,
      messages: [{ role: "user", content: String(t.data.question) }],
    });
  });
  // Task "judged" scores 1; task "judge-down" has its judge unreachable.
  const judged = evaluator<Episode>((t) => {
    if (t.id === "judge-down") throw new InfrastructureError("judge http://j/v1: HTTP 503");
    return { reward: 1, isCorrect: true };
  });
  const tasks: Task[] = [
    { id: "judged", data: { question: "q1" } },
    { id: "judge-down", data: { question: "q2" } },
  ];
  try {
    const validation = new Validation({
      tasks,
      attempts: 1,
      gateway,
      rollout: agent,
      evaluator: judged,
      model: "m",
      samplingParams: {},
      seed: 1,
      engine: { timeoutSeconds: 30, infraRetries: 0 },
      runDir: RunDir.open(mkdtempSync(join(tmpdir(), "rllm-val-"))),
    });
    const m = await validation.run(1, 1);
    assert.equal(m["val/pass@1"], 1, "pass@1 leaves the infra-failed episode out");
    assert.equal(m["val/reward_mean"], 1, "so does the reward mean");
    assert.equal(m["val/infra_failed"], 1);
  } finally {
    await gateway.close();
    await up.close();
  }
});
