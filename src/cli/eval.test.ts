/**
 * `rllm eval` end to end on loopback: real gsm8k rows (the repository's fixtures), the default
 * agent and an openai-client agent module through the in-process gateway, a fake upstream that
 * answers half of the questions right, results.json checked field by field, episodes on disk, and
 * Ctrl-C.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { loadBenchmark } from "../benchmarks/index.js";
import { loadConfig } from "../config/index.js";
import type { EvalResults } from "../engine/index.js";
import { type FakeUpstream, startFakeUpstream } from "../testing/fake-upstream.js";
import type { Task } from "../types/index.js";
import { evalFlagsToConfig, parseSamplingParams, runEvalCommand } from "./eval.js";

const DATA = new URL("../benchmarks/fixtures/data/", import.meta.url).pathname;
const home = mkdtempSync(join(tmpdir(), "rllm-home-"));
process.env.RLLM_HOME = home;

// The eval tests read the first 10 gsm8k test rows, copied into the fixtures (see SOURCE.md there).
describe("rllm eval", () => {
  let up: FakeUpstream;
  let tasks: Task[];
  before(async () => {
    tasks = await loadBenchmark("gsm8k", { dataDir: DATA, maxExamples: 10 });
    const answers = new Map(tasks.map((t) => [String(t.data.question), String(t.data.answer)]));
    up = await startFakeUpstream({
      kind: "vllm",
      latencyMs: 5,
      respond: (req) => {
        const user = String(req.messages?.find((m) => m.role === "user")?.content ?? "");
        const q = [...answers.keys()].findIndex((k) => user.includes(k));
        // Right on even rows, wrong on odd ones.
        const a = answers.get([...answers.keys()][q] ?? "") ?? "0";
        return q % 2 === 0
          ? `Let me think. The answer is \\boxed{${a}}.`
          : `I think it is \\boxed{${Number(a) + 1}}`;
      },
    });
  });
  after(() => up.close());

  const run = async (flags: Parameters<typeof evalFlagsToConfig>[0]) => {
    const output = mkdtempSync(join(tmpdir(), "rllm-eval-"));
    const config = loadConfig({
      env: {},
      flags: evalFlagsToConfig({
        output,
        dataDir: DATA,
        baseUrl: `${up.url}/v1`,
        model: "fake",
        ...flags,
      }),
    });
    const code = await runEvalCommand("gsm8k", config);
    return {
      code,
      output,
      results: JSON.parse(readFileSync(join(output, "results.json"), "utf8")) as EvalResults,
    };
  };

  test("the default agent over real gsm8k rows: results.json field by field", async () => {
    const {
      code,
      output,
      results: r,
    } = await run({ maxExamples: 10, attempts: 2, concurrency: 8, temperature: 0.5 });
    assert.equal(code, 0);
    assert.equal(r.benchmark, "gsm8k");
    assert.equal(r.model, "fake");
    assert.equal(r.agent, "gsm8k-chat");
    assert.equal(r.score, 0.5);
    assert.deepEqual(r.passAtK, { "1": 0.5, "2": 0.5 });
    assert.equal(r.total, 20);
    assert.equal(r.correct, 10);
    assert.equal(r.errors, 0);
    assert.equal(r.infraFailed, 0);
    assert.equal(r.cancelled, false);
    assert.equal(r.items.length, 20);
    assert.deepEqual(r.items[0], {
      index: 0,
      taskId: "gsm8k/test/0",
      attempt: 0,
      reward: 1,
      isCorrect: true,
      error: null,
      terminationReason: "env_done",
      infraFailed: false,
    });
    assert.equal(r.items[2]!.isCorrect, false);
    assert.equal(r.config.benchmark, "gsm8k");
    assert.equal(r.config.split, "test");
    assert.equal(r.config.attempts, 2);
    assert.deepEqual(r.config.samplingParams, { temperature: 0.5 });
    assert.equal(r.config.evaluator, "grader:math");
    assert.ok(Date.parse(r.startedAt) <= Date.parse(r.finishedAt));
    assert.equal(readdirSync(join(output, "episodes")).length, 20);
    const ep = JSON.parse(readFileSync(join(output, "episodes", "00000_0.json"), "utf8"));
    assert.equal(ep.trajectories[0].steps[0].messages[0].role, "system");
    assert.match(ep.trajectories[0].steps[0].messages[0].content, /boxed/);
    // The run's sampling parameters reached the upstream through the sessions.
    assert.equal((up.requests.at(-1)!.body as { temperature: number }).temperature, 0.5);
  });

  test("--task-indices and an agent module written with the openai client", async () => {
    // Inside the repository so that the module resolves "openai" from its node_modules.
    const cache = new URL("../../node_modules/.cache/", import.meta.url).pathname;
    mkdirSync(cache, { recursive: true });
    const dir = mkdtempSync(join(cache, "rllm-agent-"));
    const file = join(dir, "agent.mts");
    writeFileSync(
      file,
      `import OpenAI from "openai";
       import { rollout } from ${JSON.stringify(new URL("../sdk/index.ts", import.meta.url).pathname)};
       export const solver = rollout(async (task: { data: Record<string, unknown> }, config: { baseURL: string; apiKey: string; model: string }) => {
         const client = new OpenAI({ baseURL: config.baseURL, apiKey: config.apiKey });
         await client.chat.completions.create({ model: config.model, messages: [{ role: "user", content: String(task.data.question) }] });
       }, { name: "my-solver" });`,
    );
    const { results: r } = await run({ taskIndices: "0,2,5-6", agent: `${file}#solver` });
    assert.deepEqual(
      r.items.map((i) => i.index),
      [0, 2, 5, 6],
    );
    assert.deepEqual(
      r.items.map((i) => i.isCorrect),
      [true, true, false, true],
    );
    assert.equal(r.agent, "my-solver");
    await assert.rejects(
      run({ agent: `${file}#nope` }),
      /has no export "nope" \(it exports: .*solver/,
    );
  });

  test("--agent-cmd runs a program per rollout with the session in its environment", async () => {
    const cache = new URL("../../node_modules/.cache/", import.meta.url).pathname;
    mkdirSync(cache, { recursive: true });
    const script = join(mkdtempSync(join(cache, "rllm-cmd-")), "agent.mjs");
    writeFileSync(
      script,
      `const task = JSON.parse(await new Response(process.stdin).text());
       const r = await fetch(process.env.OPENAI_BASE_URL + "/chat/completions", {
         method: "POST",
         headers: { "content-type": "application/json", authorization: "Bearer " + process.env.OPENAI_API_KEY },
         body: JSON.stringify({ model: process.env.OPENAI_MODEL, messages: [{ role: "user", content: task.data.question }] }),
       });
       process.exit(r.ok ? 0 : 1);`,
    );
    const { results: r } = await run({
      maxExamples: 4,
      agentCmd: `${JSON.stringify(process.execPath)} ${JSON.stringify(script)}`,
    });
    assert.deepEqual(
      r.items.map((i) => i.isCorrect),
      [true, false, true, false],
    );
    assert.match(String(r.config.agent), /^cmd:/);
  });

  test("infrastructure failures are retried and reported apart from the score", async () => {
    up.faults.push(
      { kind: "status", status: 503 },
      ...Array(3).fill({ kind: "status", status: 500 }),
    );
    const { results: r } = await run({ maxExamples: 4, concurrency: 1, retries: 2 });
    assert.equal(r.infraFailed, 1, "one rollout failed 3 times");
    assert.equal(r.total, 3);
    assert.equal(r.items.filter((i) => i.infraFailed)[0]!.reward, null);
    assert.ok(r.metrics.retries >= 3);
  });

  test("bad flags and configs are errors that say what to fix", async () => {
    assert.throws(() => parseSamplingParams("top_k=20,tempreature=1"), /tempreature/);
    assert.deepEqual(parseSamplingParams("top_k=20,stop=END,seed=3"), {
      top_k: 20,
      stop: "END",
      seed: 3,
    });
    assert.throws(() => parseSamplingParams("top_k"), /not key=value/);
    await assert.rejects(runEvalCommand("gsm9k", loadConfig({ env: {} })), /gsm8k/);
    await assert.rejects(
      runEvalCommand("gsm8k", loadConfig({ env: {}, flags: evalFlagsToConfig({ model: "m" }) })),
      /no model to evaluate: pass --base-url/,
    );
    await assert.rejects(run({ split: "dev" }), /no split "dev"/);
  });

  test("Ctrl-C keeps every finished result and writes results.json", async () => {
    const slow = await startFakeUpstream({ kind: "vllm", latencyMs: 300 });
    const output = mkdtempSync(join(tmpdir(), "rllm-eval-int-"));
    const cli = new URL("./index.ts", import.meta.url).pathname;
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        cli,
        "eval",
        "gsm8k",
        "--base-url",
        `${slow.url}/v1`,
        "--model",
        "m",
        "--data-dir",
        DATA,
        "--max-examples",
        "10",
        "--attempts",
        "4",
        "--concurrency",
        "2",
        "--output",
        output,
      ],
      { env: { ...process.env, RLLM_HOME: home }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let err = "";
    child.stderr.on("data", (d: Buffer) => {
      err += d.toString();
    });
    // Let a few rollouts finish, then interrupt.
    while (
      !existsSync(join(output, "episodes")) ||
      readdirSync(join(output, "episodes")).length < 3
    ) {
      await new Promise((r) => setTimeout(r, 50));
    }
    child.kill("SIGINT");
    const code = await new Promise<number | null>((r) => child.on("exit", r));
    await slow.close();
    assert.equal(code, 130, err);
    const r = JSON.parse(readFileSync(join(output, "results.json"), "utf8")) as EvalResults;
    assert.equal(r.cancelled, true);
    assert.ok(r.items.length >= 3 && r.items.length < 40, `${r.items.length} items`);
    assert.equal(readdirSync(join(output, "episodes")).length, r.items.length);
    assert.match(err, /stopping — running rollouts will finish/);
  });
});
