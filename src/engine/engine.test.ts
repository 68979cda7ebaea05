import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { evaluator, finalResponse, processRollout, rollout } from "../sdk/index.js";
import { type FakeUpstream, startFakeUpstream } from "../testing/fake-upstream.js";
import { type Episode, InfrastructureError, type Task } from "../types/index.js";
import { rolloutSeed, runRollouts } from "./engine.js";
import { InProcessGateway } from "./gateway.js";

const tasks: Task[] = [0, 1, 2].map((i) => ({
  id: `t/${i}`,
  index: i,
  data: { question: `q${i}`, answer: `Echo: q${i}` },
}));

/** An agent written with the unmodified openai client, using only config.baseURL and apiKey. */
const openaiAgent = rollout(
  async (task, config) => {
    const client = new OpenAI({ baseURL: config.baseURL, apiKey: config.apiKey, maxRetries: 0 });
    await client.chat.completions.create(
      { model: config.model, messages: [{ role: "user", content: String(task.data.question) }] },
      { signal: config.signal },
    );
  },
  { name: "solver" },
);

const exact = evaluator<Episode>((task, ep) => finalResponse(ep) === task.data.answer);

describe("the rollout engine", () => {
  let up: FakeUpstream;
  let gw: InProcessGateway;
  before(async () => {
    up = await startFakeUpstream({
      kind: "vllm",
      respond: (r) => `Echo: ${String(r.messages?.at(-1)?.content ?? "")}`,
    });
    gw = await InProcessGateway.start({
      upstreams: [{ url: up.url, kind: "vllm" }],
      healthCheckIntervalMs: 0,
      connectRetries: 0,
    });
  });
  after(async () => {
    await gw.close();
    await up.close();
  });

  test("multi-turn: a turn sent with the model's reply rewritten is a prefix break, counted per episode and run", async () => {
    const twoTurns = (rewrite: boolean) =>
      rollout(async (task, config) => {
        const client = new OpenAI({
          baseURL: config.baseURL,
          apiKey: config.apiKey,
          maxRetries: 0,
        });
        const user = { role: "user" as const, content: String(task.data.question) };
        const first = await client.chat.completions.create({
          model: config.model,
          messages: [user],
        });
        const reply = first.choices[0]!.message.content ?? "";
        await client.chat.completions.create({
          model: config.model,
          messages: [
            user,
            { role: "assistant", content: rewrite ? reply.toUpperCase() : reply },
            { role: "user", content: "again" },
          ],
        });
      });
    const kept = await runRollouts([tasks[0]!], {
      gateway: gw,
      rollout: twoTurns(false),
      model: "m",
    });
    const keptSteps = kept.episodes[0]!.trajectories[0]!.steps;
    assert.equal(keptSteps.length, 2);
    assert.equal(keptSteps[1]!.info?.prefixBreak, undefined);
    assert.equal(kept.episodes[0]!.metrics?.prefixBreaks, 0);
    assert.equal(kept.metrics.prefixBreaks, 0);

    const rewritten = await runRollouts(tasks.slice(0, 2), {
      gateway: gw,
      rollout: twoTurns(true),
      model: "m",
    });
    for (const e of rewritten.episodes) {
      const mark = e.trajectories[0]!.steps[1]!.info?.prefixBreak as { at: number; reason: string };
      assert.match(mark.reason, /differ from step 0's prompt \+ completion at token \d+/);
      assert.ok(mark.at >= e.trajectories[0]!.steps[0]!.promptIds.length, "inside the reply");
      assert.equal(e.metrics?.prefixBreaks, 1);
    }
    assert.equal(rewritten.metrics.prefixBreaks, 2);
  });

  test("tasks × group size through an openai-client agent: episodes from traces, scored, timed", async () => {
    const r = await runRollouts(tasks, {
      gateway: gw,
      rollout: openaiAgent,
      evaluator: exact,
      groupSize: 2,
      concurrency: 4,
      model: "m",
    });
    assert.equal(r.episodes.length, 6);
    assert.deepEqual(
      r.episodes.map((e) => [e.taskId, e.attempt]),
      [
        ["t/0", 0],
        ["t/0", 1],
        ["t/1", 0],
        ["t/1", 1],
        ["t/2", 0],
        ["t/2", 1],
      ],
    );
    for (const e of r.episodes) {
      assert.equal(e.terminationReason, "env_done");
      assert.equal(e.reward, 1);
      assert.equal(e.isCorrect, true);
      assert.equal(e.trajectories.length, 1);
      const t = e.trajectories[0]!;
      assert.equal(t.name, "solver");
      assert.equal(t.reward, 1);
      const s = t.steps[0]!;
      assert.match(s.traceId!, /^tr_/);
      assert.ok(s.promptIds.length > 0 && s.completionIds.length === s.logprobs.length);
      for (const k of [
        "setupMs",
        "agentMs",
        "tracesMs",
        "evaluatorMs",
        "turns",
        "promptTokens",
        "completionTokens",
      ]) {
        assert.equal(typeof e.metrics?.[k], "number", k);
      }
      assert.equal(e.metrics?.turns, 1);
    }
    assert.equal(r.metrics.completed, 6);
    assert.equal(r.metrics.meanReward, 1);
    assert.ok(r.metrics.tokens.completion > 0);
    // Sessions are deleted once read; their traces stay in the store.
    assert.equal(gw.gateway.store.sessionTraces(r.episodes[0]!.sessionId!).length, 1);
    assert.equal(gw.gateway.sessions.get(r.episodes[0]!.sessionId!), undefined);
  });

  test("an agent's own trajectory is joined to the traces by trace id", async () => {
    const agent = rollout(async (_task, config) => {
      const client = new OpenAI({ baseURL: config.baseURL, apiKey: config.apiKey, maxRetries: 0 });
      const steps = [];
      for (const q of ["a", "b"]) {
        const { response } = await client.chat.completions
          .create({ model: "m", messages: [{ role: "user", content: q }] })
          .withResponse();
        steps.push({
          traceId: response.headers.get("x-rllm-trace-id")!,
          reward: q === "b" ? 0.5 : 0,
        });
      }
      // Listed in reverse: the join is by id, not position.
      return { name: "planner", steps: steps.reverse(), reward: 0.25 };
    });
    const r = await runRollouts(tasks.slice(0, 1), { gateway: gw, rollout: agent, model: "m" });
    const ep = r.episodes[0]!;
    assert.equal(ep.reward, 0.25, "the agent's reward is used when there is no evaluator");
    const steps = ep.trajectories[0]!.steps;
    assert.equal(ep.trajectories[0]!.name, "planner");
    assert.deepEqual(
      steps.map((s) => s.response?.content),
      ["Echo: b", "Echo: a"],
    );
    assert.deepEqual(
      steps.map((s) => s.reward),
      [0.5, 0],
    );
    assert.ok(steps.every((s) => s.completionIds.length > 0));
    const bad = rollout(() => ({ steps: [{ traceId: "tr_not_mine" }] }));
    const r2 = await runRollouts(tasks.slice(0, 1), { gateway: gw, rollout: bad, model: "m" });
    assert.equal(r2.episodes[0]!.terminationReason, "error");
    assert.match(r2.episodes[0]!.error!, /trace id tr_not_mine, which this session did not record/);
  });

  test("agent exceptions and bad return values are termination 'error', with reward 0", async () => {
    const throws = rollout(() => {
      throw new Error("tool crashed");
    });
    const r = await runRollouts(tasks.slice(0, 1), {
      gateway: gw,
      rollout: throws,
      evaluator: exact,
      model: "m",
    });
    assert.equal(r.episodes[0]!.terminationReason, "error");
    assert.equal(r.episodes[0]!.error, "tool crashed");
    assert.equal(r.episodes[0]!.reward, 0);
    assert.equal(r.episodes[0]!.infraFailed, false);
    assert.equal(r.metrics.errors, 1);
    const weird = rollout(() => 42);
    const r2 = await runRollouts(tasks.slice(0, 1), { gateway: gw, rollout: weird, model: "m" });
    assert.match(r2.episodes[0]!.error!, /returned a number; return nothing/);
  });

  test("a rollout past its timeout is termination 'timeout' and the run goes on", async () => {
    const slow = rollout(async (_t, config) => {
      await new Promise((_r, reject) =>
        config.signal.addEventListener("abort", () => reject(config.signal.reason)),
      );
    });
    const r = await runRollouts(tasks.slice(0, 2), {
      gateway: gw,
      rollout: slow,
      timeoutMs: 100,
      model: "m",
      concurrency: 2,
    });
    assert.deepEqual(
      r.episodes.map((e) => e.terminationReason),
      ["timeout", "timeout"],
    );
    assert.match(r.episodes[0]!.error!, /timed out after 100 ms/);
    assert.equal(r.metrics.timeouts, 2);
  });

  test("infrastructure failures are retried, then marked infra-failed — never a silent zero", async () => {
    up.faults.push({ kind: "status", status: 500 });
    const r = await runRollouts(tasks.slice(0, 1), {
      gateway: gw,
      rollout: openaiAgent,
      evaluator: exact,
      model: "m",
      infraRetries: 2,
    });
    assert.equal(r.episodes[0]!.infraFailed, false);
    assert.equal(r.episodes[0]!.reward, 1);
    assert.equal(r.metrics.retries, 1);
    up.faults.push(...Array(3).fill({ kind: "status", status: 503 }));
    const r2 = await runRollouts(tasks.slice(0, 1), {
      gateway: gw,
      rollout: openaiAgent,
      evaluator: exact,
      model: "m",
      infraRetries: 2,
    });
    const e = r2.episodes[0]!;
    assert.equal(e.infraFailed, true);
    assert.equal(e.reward, null, "no reward for an infra failure");
    assert.match(e.error!, /502|upstream/);
    assert.equal(r2.metrics.infraFailed, 1);
    assert.equal(r2.metrics.retries, 2);
    assert.equal(r2.metrics.meanReward, null);
  });

  test("an evaluator's InfrastructureError marks the episode infra-failed, unretried; another evaluator error is reward 0", async () => {
    let agentRuns = 0;
    const counted = rollout(async (task, config) => {
      agentRuns++;
      await openaiAgent.run(task, config);
    });
    let judged = 0;
    const judgeDown = evaluator<Episode>(() => {
      judged++;
      throw new InfrastructureError(
        "judge http://127.0.0.1:9/v1: connection refused after 3 tries",
      );
    });
    const r = await runRollouts(tasks.slice(0, 1), {
      gateway: gw,
      rollout: counted,
      evaluator: judgeDown,
      model: "m",
      infraRetries: 2,
    });
    const e = r.episodes[0]!;
    assert.equal(e.infraFailed, true);
    assert.equal(e.reward, null, "never a reward of 0");
    assert.match(e.error!, /^evaluator: judge http:\/\/127\.0\.0\.1:9\/v1: connection refused/);
    assert.equal(e.trajectories.length, 1, "what the agent did is kept");
    assert.equal(agentRuns, 1, "the agent is not re-run for the evaluator's failure");
    assert.equal(judged, 1);
    assert.equal(r.metrics.infraFailed, 1);
    assert.equal(r.metrics.retries, 0);
    assert.equal(r.metrics.errors, 0);
    assert.equal(r.metrics.meanReward, null);

    const buggy = evaluator<Episode>(() => {
      throw new Error("grader bug");
    });
    const r2 = await runRollouts(tasks.slice(0, 1), {
      gateway: gw,
      rollout: openaiAgent,
      evaluator: buggy,
      model: "m",
    });
    assert.equal(r2.episodes[0]!.infraFailed, false);
    assert.equal(r2.episodes[0]!.reward, 0);
    assert.equal(r2.episodes[0]!.terminationReason, "error");
    assert.match(r2.episodes[0]!.error!, /evaluator failed: grader bug/);
  });

  test("cancellation stops new rollouts and keeps every finished one", async () => {
    const controller = new AbortController();
    let started = 0;
    const agent = rollout(async (task, config) => {
      started++;
      if (started === 2) controller.abort();
      await new Promise((r) => setTimeout(r, 20));
      const client = new OpenAI({ baseURL: config.baseURL, apiKey: config.apiKey, maxRetries: 0 });
      await client.chat.completions.create({
        model: "m",
        messages: [{ role: "user", content: String(task.data.question) }],
      });
    });
    const many = Array.from({ length: 20 }, (_, i) => ({
      id: `c/${i}`,
      data: { question: `q${i}`, answer: `Echo: q${i}` },
    }));
    const seen: string[] = [];
    const r = await runRollouts(many, {
      gateway: gw,
      rollout: agent,
      evaluator: exact,
      model: "m",
      concurrency: 2,
      signal: controller.signal,
      onEpisode: (ep) => void seen.push(ep.id),
    });
    assert.equal(r.cancelled, true);
    assert.equal(r.episodes.length, 2, "the two running rollouts finished");
    assert.ok(r.episodes.every((e) => e.reward === 1));
    assert.equal(r.metrics.skipped, 18);
    assert.equal(seen.length, 2);
  });

  test("a child-process agent reads OPENAI_BASE_URL and the task from its environment", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rllm-agent-"));
    const script = join(dir, "agent.mjs");
    writeFileSync(
      script,
      `const task = JSON.parse(process.env.RLLM_TASK);
       const res = await fetch(process.env.OPENAI_BASE_URL + "/chat/completions", {
         method: "POST",
         headers: { "content-type": "application/json", authorization: "Bearer " + process.env.OPENAI_API_KEY },
         body: JSON.stringify({ model: process.env.RLLM_MODEL, messages: [{ role: "user", content: task.data.question }] }),
       });
       if (!res.ok) { console.error("status", res.status); process.exit(3); }
       if (!process.env.ANTHROPIC_BASE_URL.endsWith(process.env.RLLM_SESSION_ID)) process.exit(4);`,
    );
    const agent = processRollout({ command: process.execPath, args: [script] });
    const r = await runRollouts(tasks, {
      gateway: gw,
      rollout: agent,
      evaluator: exact,
      model: "m",
      concurrency: 3,
    });
    assert.deepEqual(
      r.episodes.map((e) => [e.terminationReason, e.reward]),
      [
        ["env_done", 1],
        ["env_done", 1],
        ["env_done", 1],
      ],
    );
    const failing = processRollout({
      command: process.execPath,
      args: ["-e", "console.error('boom'); process.exit(2)"],
    });
    const r2 = await runRollouts(tasks.slice(0, 1), { gateway: gw, rollout: failing, model: "m" });
    assert.equal(r2.episodes[0]!.terminationReason, "error");
    assert.match(r2.episodes[0]!.error!, /exited with code 2: boom/);
    const hanging = processRollout({
      command: process.execPath,
      args: ["-e", "setInterval(() => {}, 1000)"],
      killGraceMs: 100,
    });
    const r3 = await runRollouts(tasks.slice(0, 1), {
      gateway: gw,
      rollout: hanging,
      model: "m",
      timeoutMs: 300,
    });
    assert.equal(r3.episodes[0]!.terminationReason, "timeout");
  });

  test("a response cut at max_tokens ends the episode with max_response_length_exceeded", async () => {
    const r = await runRollouts(tasks.slice(0, 1), {
      gateway: gw,
      rollout: openaiAgent,
      model: "m",
      samplingParams: { max_tokens: 2 },
    });
    assert.equal(r.episodes[0]!.terminationReason, "max_response_length_exceeded");
    const sent = up.requests.at(-1)!.body as { max_tokens: number };
    assert.equal(sent.max_tokens, 2, "run sampling params are enforced by the session");
  });

  test("seed: each (task, attempt) samples with its own seed, the same in a rerun and on retry", async () => {
    const seedsOf = async (seed: number) => {
      const before = up.requests.length;
      const r = await runRollouts(tasks, {
        gateway: gw,
        rollout: openaiAgent,
        groupSize: 2,
        concurrency: 1,
        model: "m",
        samplingParams: { temperature: 0.5 },
        seed,
      });
      assert.equal(r.episodes.length, 6);
      const sent = up.requests.slice(before).map((q) => q.body as Record<string, unknown>);
      for (const b of sent) assert.equal(b.temperature, 0.5, "the run's sampling params stay");
      return sent.map((b) => b.seed);
    };
    const a = await seedsOf(7);
    // the agent sends requests in task order, attempt order (concurrency 1)
    const want = tasks.flatMap((t) => [rolloutSeed(7, t.id, 0), rolloutSeed(7, t.id, 1)]);
    assert.deepEqual(a, want);
    assert.equal(new Set(a).size, 6, "every rollout its own seed");
    for (const s of a)
      assert.ok(Number.isInteger(s) && (s as number) >= 0 && (s as number) < 2 ** 31);
    assert.deepEqual(await seedsOf(7), a, "a rerun repeats the seeds");
    const b = await seedsOf(8);
    assert.equal(b.filter((s, i) => s === a[i]).length, 0, "another run seed, other seeds");
    assert.notEqual(rolloutSeed(7, "t/1", 0), rolloutSeed(7, "t/10", 0));
    assert.notEqual(
      rolloutSeed(7, "t/1", 0),
      rolloutSeed(71, "t/", 0),
      "fields do not run together",
    );
  });
});
