/**
 * `rllm eval humaneval` and `rllm eval mbpp` end to end: the default agent's calls through the
 * in-process gateway to a scripted model, each response graded by the code grader in real bwrap
 * sandboxes drawn from the run's shared pool (the config's `sandbox` section), results.json per
 * task; and nothing of the sandboxes left when the command returns.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { loadBenchmark } from "../benchmarks/index.js";
import { loadConfig } from "../config/index.js";
import type { EvalResults } from "../engine/index.js";
import { closeSharedSandboxes, sharedSandboxPool } from "../sandbox/shared.js";
import { type FakeUpstream, startFakeUpstream } from "../testing/fake-upstream.js";
import { evalFlagsToConfig, runEvalCommand } from "./eval.js";

const DATA = new URL("../benchmarks/fixtures/data/", import.meta.url).pathname;
process.env.RLLM_HOME = mkdtempSync(join(tmpdir(), "rllm-home-"));

/** This process's bwrap children (each a sandbox) still running. */
function ourSandboxes(): number {
  return readdirSync("/proc").filter((p) => {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, "utf8");
      const [comm, rest] = [
        stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")),
        stat.slice(stat.lastIndexOf(")") + 2),
      ];
      return comm === "bwrap" && Number(rest.split(" ")[1]) === process.pid;
    } catch {
      return false;
    }
  }).length;
}

describe("rllm eval on code benchmarks", () => {
  let up: FakeUpstream;
  /** The model's answer per prompt: the canonical solution, or one that fails in its own way. */
  let answers: Map<string, string>;
  before(async () => {
    answers = new Map();
    const human = await loadBenchmark("humaneval", { dataDir: DATA });
    human.forEach((t, i) => {
      const body = String(t.data.solution);
      const bad = [
        "    while True:\n        pass\n",
        "    return None\n",
        "    import os\n    os.kill(os.getppid(), 9)\n",
      ];
      answers.set(
        String(t.data.question),
        `Here it is:\n\`\`\`python\n${String(t.data.question)}${i % 2 === 0 ? body : bad[i % 3]}\`\`\`\n`,
      );
    });
    const mbpp = await loadBenchmark("mbpp", { dataDir: DATA, split: "test" });
    mbpp.forEach((t, i) => {
      answers.set(
        String(t.data.question),
        i === 0 ? `\`\`\`python\n${String(t.data.solution)}\n\`\`\`` : "I cannot solve this.",
      );
    });
    up = await startFakeUpstream({
      kind: "vllm",
      respond: (req) => {
        const user = String(req.messages?.find((m) => m.role === "user")?.content ?? "");
        for (const [question, answer] of answers) if (user.includes(question)) return answer;
        return "no idea";
      },
    });
  });
  after(() => up.close());

  async function run(benchmark: string, extra: Record<string, unknown> = {}) {
    const output = mkdtempSync(join(tmpdir(), "rllm-eval-code-"));
    const config = loadConfig({
      env: {},
      flags: {
        ...evalFlagsToConfig({
          output,
          dataDir: DATA,
          baseUrl: `${up.url}/v1`,
          model: "fake",
          concurrency: 4,
        }),
        ...extra,
      },
    });
    const code = await runEvalCommand(benchmark, config);
    return {
      code,
      results: JSON.parse(readFileSync(join(output, "results.json"), "utf8")) as EvalResults,
      output,
    };
  }

  test("humaneval: canonical solutions pass, a loop, a wrong answer and a parent-killer fail; no sandbox left", async () => {
    const {
      code,
      results: r,
      output,
    } = await run("humaneval", { sandbox: { poolSize: 1, limits: { cpuSeconds: 5 } } });
    assert.equal(code, 0);
    assert.equal(r.total, 5);
    assert.deepEqual(
      r.items.map((i) => i.isCorrect),
      [true, false, true, false, true],
    );
    assert.equal(r.config.evaluator, "grader:code");
    assert.equal(r.errors, 0);
    const reason = (i: number) =>
      JSON.parse(readFileSync(join(output, "episodes", `0000${i}_0.json`), "utf8")).info.eval
        .metadata.reason as string;
    assert.match(reason(1), /TypeError/, "the wrong answer's error is the reason");
    assert.match(reason(3), /timeout|timed out/i, "the infinite loop is reported as a timeout");
    assert.equal(ourSandboxes(), 0, "the run's sandboxes are closed when rllm eval returns");
    // (and the count sees a sandbox that is open)
    const pool = await sharedSandboxPool();
    const s = await pool.acquire();
    assert.ok(ourSandboxes() >= 1);
    await closeSharedSandboxes();
    assert.equal(ourSandboxes(), 0);
    assert.equal(s.id.length > 0, true);
  });

  test("mbpp from the published one-file layout: the asserts decide", async () => {
    const { code, results: r } = await run("mbpp");
    assert.equal(code, 0);
    assert.ok(r.total >= 2);
    assert.equal(r.items[0]!.isCorrect, true);
    assert.ok(r.items.slice(1).every((i) => i.isCorrect === false));
  });

  test("a sandbox limit the backend cannot enforce stops the run before it starts", async () => {
    await assert.rejects(
      run("humaneval", { sandbox: { backend: "daytona", apiKey: "k", limits: { pids: 5 } } }),
      /cannot enforce limit pids/,
    );
    assert.equal(up.requests.filter((q) => q.path.includes("chat")).length > 0, true);
  });
});
