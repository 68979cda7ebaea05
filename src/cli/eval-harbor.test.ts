/**
 * `rllm eval harbor:DIR` end to end: the Harbor fixtures, the default agent (the tool agent) in
 * real bwrap sandboxes prepared from each task's environment, its calls through the in-process
 * gateway to a scripted model (the fake vLLM upstream answering with tool calls that do each
 * task, then submit), each episode rewarded by the task's own tests/test.sh. Checked: rewards,
 * the verifier's result in the episode, traces with token ids, and the errors for an agent that
 * runs no verifier and for a bad task dir.
 */
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { loadConfig } from "../config/index.js";
import type { EvalResults } from "../engine/index.js";
import {
  type FakeCompletion,
  type FakeRequestInfo,
  type FakeUpstream,
  startFakeUpstream,
} from "../testing/fake-upstream.js";
import type { Episode } from "../types/index.js";
import { evalFlagsToConfig, runEvalCommand } from "./eval.js";

const FIXTURES = new URL("../benchmarks/fixtures/harbor", import.meta.url).pathname;
process.env.RLLM_HOME = mkdtempSync(join(tmpdir(), "rllm-home-"));

const call = (name: string, args: Record<string, unknown>): FakeCompletion => ({
  text: "",
  toolCalls: [{ name, arguments: args }],
});

/** What the model does per task (told apart by its instruction), turn by turn. */
const SOLVE: [RegExp, FakeCompletion[]][] = [
  [
    /test_calc\.py/,
    [
      call("read_file", { path: "calc.py" }),
      call("write_file", {
        path: "calc.py",
        content: 'def add(a, b):\n    """The sum of a and b."""\n    return a + b\n',
      }),
      call("bash", { command: "python3 -m unittest test_calc" }),
      call("submit", { answer: "fixed" }),
    ],
  ],
  [
    /count_words\.sh/,
    [
      call("write_file", {
        path: "/app/count_words.sh",
        content: '#!/bin/sh\nwc -w < "$1" | tr -d " "\n',
      }),
      call("bash", { command: "chmod +x count_words.sh && ./count_words.sh README.md" }),
      call("submit", { answer: "done" }),
    ],
  ],
  [
    /\/app\/data/,
    [
      call("bash", { command: "cat data/*.txt | awk '{s += $1} END {print s}' > \"$REPORT\"" }),
      call("submit", { answer: "60" }),
    ],
  ],
];

let lazy = false;
function respond(req: FakeRequestInfo): FakeCompletion | string {
  const messages = req.messages ?? [];
  const user = String(messages.find((m) => m.role === "user")?.content ?? "");
  if (user.includes("SLOW")) return call("bash", { command: "sleep 20" });
  if (lazy) return call("submit", { answer: "no" });
  const script = SOLVE.find(([re]) => re.test(user))?.[1];
  if (!script) return `no script for ${user}`;
  return script[messages.filter((m) => m.role === "assistant").length] ?? "out of script";
}

describe("rllm eval harbor:DIR", () => {
  let up: FakeUpstream;
  before(async () => {
    up = await startFakeUpstream({ kind: "vllm", respond });
  });
  after(() => up.close());

  async function run(flags: Record<string, unknown> = {}, benchmark = `harbor:${FIXTURES}`) {
    const output = mkdtempSync(join(tmpdir(), "rllm-eval-harbor-"));
    const config = loadConfig({
      env: {},
      flags: evalFlagsToConfig({
        output,
        baseUrl: `${up.url}/v1`,
        model: "fake",
        upstreamKind: "vllm", // the gateway asks the upstream for token ids
        concurrency: 3,
        ...flags,
      }),
    });
    const code = await runEvalCommand(benchmark, config);
    const episodes = readdirSync(join(output, "episodes"))
      .sort()
      .map((f) => JSON.parse(readFileSync(join(output, "episodes", f), "utf8")) as Episode);
    return {
      code,
      results: JSON.parse(readFileSync(join(output, "results.json"), "utf8")) as EvalResults,
      episodes,
    };
  }

  test("the tool agent solves each fixture: reward 1 from its verifier, traces with token ids", async () => {
    lazy = false;
    const { code, results, episodes } = await run();
    assert.equal(code, 0);
    assert.equal(results.total, 3);
    assert.equal(results.errors, 0);
    assert.equal(results.config.evaluator, "grader:verifier");
    assert.match(String(results.config.agent), /default:tool-agent/);
    assert.deepEqual(
      episodes.map((e) => [e.taskId, e.reward, e.isCorrect, e.terminationReason]),
      [
        ["fix-failing-test", 1, true, "env_done"],
        ["sum-numbers", 1, true, "env_done"],
        ["write-script", 1, true, "env_done"],
      ],
    );
    const turns = [4, 2, 3];
    episodes.forEach((e, i) => {
      const verifier = e.info!.verifier as { reward: number; exitCode: number };
      assert.equal(verifier.reward, 1);
      assert.equal(verifier.exitCode, 0);
      const steps = e.trajectories[0]!.steps;
      assert.equal(steps.length, turns[i], e.taskId);
      for (const step of steps) {
        assert.ok(step.traceId, "each step is joined to its trace");
        assert.ok(step.promptIds.length > 0 && step.completionIds.length > 0);
        assert.equal(step.logprobs.length, step.completionIds.length);
      }
    });
    // sum-numbers writes reward.json: its other numeric value is a signal of the evaluation
    assert.deepEqual((episodes[1]!.info!.eval as { signals: unknown }).signals, {
      reward: 1,
      one_line: 1,
    });
    // The model saw its working directory: the read of calc.py answered with the buggy module.
    const fix = up.requests.filter((r) => JSON.stringify(r.body).includes("return a - b")).length;
    assert.ok(fix > 0);
  });

  test("an agent that does nothing gets reward 0, not an error", async () => {
    lazy = true;
    const { code, results, episodes } = await run({ taskIndices: "0,2" });
    assert.equal(code, 0);
    assert.equal(results.errors, 0);
    assert.deepEqual(
      episodes.map((e) => [e.taskId, e.reward]),
      [
        ["fix-failing-test", 0],
        ["write-script", 0],
      ],
    );
  });

  test("an agent that runs no verifier: each episode an evaluator error naming it, never 0", async () => {
    const { episodes } = await run({ agentCmd: "true", taskIndices: "1" });
    assert.equal(episodes.length, 1);
    assert.equal(episodes[0]!.terminationReason, "error");
    assert.match(
      String(episodes[0]!.error),
      /evaluator failed: task sum-numbers: .* returned no verifier result \(episode info.verifier\)/,
    );
  });

  test("a verifier that writes no reward: the tool agent reports it, the episode is an error naming the file", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "rllm-harbor-broken-")), "broken");
    cpSync(join(FIXTURES, "write-script"), dir, { recursive: true });
    writeFileSync(join(dir, "tests", "test.sh"), "echo forgot the reward\n");
    lazy = true;
    const { episodes } = await run({}, `harbor:${dir}`);
    assert.equal(episodes.length, 1);
    assert.match(String(episodes[0]!.info!.verifierError), /the verifier wrote no reward/);
    assert.equal(episodes[0]!.terminationReason, "error");
    assert.match(
      String(episodes[0]!.error),
      /evaluator failed: task broken: the verifier gave no reward: .*broken: the verifier wrote no reward: neither \/logs\/verifier\/reward.json nor \/logs\/verifier\/reward.txt exists .*forgot the reward/s,
    );
  });

  test("the task's [agent].timeout_sec stops the agent; the verifier still runs", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "rllm-harbor-slow-")), "slow");
    cpSync(join(FIXTURES, "write-script"), dir, { recursive: true });
    writeFileSync(join(dir, "task.toml"), "[agent]\ntimeout_sec = 1.5\n");
    writeFileSync(join(dir, "instruction.md"), "SLOW: take your time\n");
    const started = performance.now();
    const { episodes } = await run({}, `harbor:${dir}`);
    assert.ok(performance.now() - started < 15_000, "stopped well before the command's 20 s");
    assert.equal(episodes[0]!.terminationReason, "timeout");
    assert.equal(episodes[0]!.reward, 0);
    assert.equal((episodes[0]!.info!.verifier as { reward: number }).reward, 0);
  });

  test("a bad dir is an error naming it before anything runs", async () => {
    await assert.rejects(
      run({}, `harbor:${join(FIXTURES, "nope")}`),
      /harbor\/nope is not a directory; give a Harbor task directory/,
    );
  });
});
