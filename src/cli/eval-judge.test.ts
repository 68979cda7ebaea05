/**
 * `rllm eval` graded by an LLM judge, end to end on loopback: a tiny gsm8k-format dataset written
 * here (--data-dir), a fake policy model, a fake judge model (--judge-url/--judge-model), an
 * evaluator module grading with llm_equality over the run's configured judge. results.json's
 * scores and infra-failure count, the judge's sessions in the run's traces.db, the startup error.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { loadConfig } from "../config/index.js";
import type { EvalResults } from "../engine/index.js";
import { Store } from "../store/sqlite.js";
import { type FakeUpstream, startFakeUpstream } from "../testing/fake-upstream.js";
import { evalFlagsToConfig, runEvalCommand } from "./eval.js";

const home = mkdtempSync(join(tmpdir(), "rllm-home-"));
process.env.RLLM_HOME = home;

const here = (rel: string) => fileURLToPath(new URL(rel, import.meta.url));

describe("rllm eval with an LLM judge", () => {
  let policy: FakeUpstream;
  let judge: FakeUpstream;
  let dataDir: string;
  let evaluatorFile: string;
  let judgeDown = false;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "rllm-judge-data-"));
    mkdirSync(join(dataDir, "gsm8k"));
    const rows = [
      { question: "How many legs has a spider?", answer: "Spiders have 8.\n#### 8" },
      { question: "How many sides has a hexagon?", answer: "Six.\n#### 6" },
      { question: "How many days has a week?", answer: "Seven.\n#### 7" },
    ];
    writeFileSync(
      join(dataDir, "gsm8k", "test.jsonl"),
      `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`,
    );
    // The policy answers in words (the math grader would not know "eight" is 8), wrong on hexagons.
    policy = await startFakeUpstream({
      kind: "vllm",
      respond: (r) => {
        const q = String(r.messages?.at(-1)?.content ?? "");
        return q.includes("spider")
          ? "Spiders have eight legs."
          : q.includes("hexagon")
            ? "A hexagon has five sides."
            : "A week has seven days.";
      },
    });
    // The judge: eight = 8 and seven = 7, five ≠ 6.
    judge = await startFakeUpstream({
      kind: "vllm",
      model: "judge-m",
      respond: (r) => {
        const prompt = String(r.messages?.[0]?.content ?? "");
        if (judgeDown && prompt.includes("spider")) return "I cannot decide.";
        const good = /eight legs|seven days/.test(prompt);
        return `Compared the final answer with the reference.\nEXTRACTED: x\nVERDICT: ${good ? "CORRECT" : "INCORRECT"}`;
      },
    });
    // .mjs: imported as is (a .ts module would be loaded by tsImport, with its own copy of rewards/)
    evaluatorFile = join(dataDir, "judged.mjs");
    writeFileSync(
      evaluatorFile,
      `import { llmEqualityGrader, sharedJudge } from ${JSON.stringify(here("../rewards/index.ts"))};
       import { evaluator, finalResponse } from ${JSON.stringify(here("../sdk/index.ts"))};
       const grade = llmEqualityGrader(sharedJudge);
       export default evaluator((task, episode) => grade(task, finalResponse(episode)));\n`,
    );
  });
  after(async () => {
    await policy.close();
    await judge.close();
  });

  const run = async (flags: Record<string, unknown>, file?: string) => {
    const output = mkdtempSync(join(tmpdir(), "rllm-eval-judge-"));
    const config = loadConfig({
      env: {},
      ...(file ? { file } : {}),
      flags: evalFlagsToConfig({
        output,
        dataDir,
        baseUrl: `${policy.url}/v1`,
        model: "policy",
        evaluator: evaluatorFile,
        judgeUrl: `${judge.url}/v1`,
        judgeModel: "judge-m",
        ...flags,
      }),
    });
    const code = await runEvalCommand("gsm8k", config);
    const results = JSON.parse(readFileSync(join(output, "results.json"), "utf8")) as EvalResults;
    return { code, output, results };
  };

  test("graded by llm_equality through the judge: scores, the judge's sessions in traces.db", async () => {
    const { code, output, results: r } = await run({});
    assert.equal(code, 0);
    assert.equal(r.total, 3);
    assert.equal(r.correct, 2);
    assert.equal(r.infraFailed, 0);
    assert.deepEqual(
      r.items.map((i) => i.reward),
      [1, 0, 1],
    );
    assert.deepEqual(r.config.judge, { model: "judge-m", baseURL: `${judge.url}/v1` });
    const ep = JSON.parse(readFileSync(join(output, "episodes", "00000_0.json"), "utf8"));
    assert.equal(ep.info.eval.metadata.verdict, "CORRECT");
    assert.equal(ep.info.eval.metadata.judgeModel, "judge-m");
    const store = new Store({ path: join(output, "traces.db") });
    try {
      const traces = store.queryTraces({}).map((t) => t.trace);
      const judged = traces.filter((t) => t.sessionId.startsWith("judge/"));
      const episodes = traces.filter((t) => !t.sessionId.startsWith("judge/"));
      assert.equal(judged.length, 3, "one judge call per episode, each in its own session");
      assert.equal(episodes.length, 3);
      // judge.kind is openai for a --judge-url (text only; judge.test.ts traces a vllm judge's token ids)
      assert.ok(judged.every((t) => t.model === "judge-m" && t.upstream !== null));
      assert.ok(episodes.every((t) => !JSON.stringify(t.messages).includes("VERDICT")));
    } finally {
      store.close();
    }
    // A second run of the same responses: every verdict from the cache, no judge call.
    const calls = judge.totalRequests;
    const again = await run({});
    assert.equal(again.results.correct, 2);
    assert.equal(judge.totalRequests, calls);
  });

  test("a judge that never gives a verdict: the episode is counted infra-failed, not scored 0", async () => {
    judgeDown = true;
    // judge.cache off: the spider's verdict of the test above is not reused.
    const file = join(dataDir, "no-cache.json");
    writeFileSync(file, JSON.stringify({ judge: { cache: false, retries: 0 } }));
    try {
      const calls = judge.totalRequests;
      const { code, results: r } = await run({ concurrency: 1 }, file);
      assert.equal(
        judge.totalRequests - calls,
        3,
        "every verdict asked (no cache), once (retries 0)",
      );
      assert.equal(code, 0);
      assert.equal(r.infraFailed, 1);
      assert.equal(r.items[0]!.infraFailed, true);
      assert.equal(r.items[0]!.reward, null);
      assert.match(r.items[0]!.error!, /^evaluator: judge .* no verdict in the required format/);
      assert.equal(r.total, 2, "scored over the two episodes the judge graded");
    } finally {
      judgeDown = false;
    }
  });

  test("startup: a judge key without judge.model is refused before any rollout", async () => {
    await assert.rejects(
      run({ judgeModel: undefined }),
      /judge\.baseUrl: set judge\.model \(--judge-model NAME\) too/,
    );
  });
});
