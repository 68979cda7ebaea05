/**
 * The framework examples (ai-sdk, langgraph, openai-agents, mastra) run unchanged by `rllm eval`
 * on real gsm8k rows, through the in-process gateway, against the fake vLLM upstream scripted as
 * a model that uses the calculator: its first answer to a task is a calculator call, its second
 * reads the tool's result from the conversation and answers `\boxed{<that result>}`. So the reward
 * is 1 only when the framework ran the tool and handed its result back: on even rows the scripted
 * expression evaluates to the right answer; on row 1 to the answer + 1, and on row 3 it is not
 * arithmetic (`**`), so the tool's text is the calculator's error, which the framework hands back
 * as it would a result (reward 0 both).
 */
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { loadBenchmark } from "../src/benchmarks/index.js";
import { evalFlagsToConfig, runEvalCommand } from "../src/cli/eval.js";
import { loadConfig } from "../src/config/index.js";
import type { EvalResults } from "../src/engine/index.js";
import { Store } from "../src/store/sqlite.js";
import {
  byteTokenizer,
  type FakeRequestInfo,
  type FakeUpstream,
  fakeLogprob,
  IM_END_TOKEN_ID,
  startFakeUpstream,
} from "../src/testing/fake-upstream.js";
import type { ChatMessage, Episode, Step } from "../src/types/index.js";
import { calculator } from "./calculator.js";

const DATA = new URL("../src/benchmarks/fixtures/data/", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "rllm-examples-"));
process.env.RLLM_HOME = join(dir, "home");
const TASKS = 4;

/** Each example, and the gateway API its framework calls by default. */
const EXAMPLES = [
  { name: "ai-sdk", api: "chat.completions" },
  { name: "langgraph", api: "chat.completions" },
  { name: "openai-agents", api: "responses" },
  { name: "mastra", api: "chat.completions" },
] as const;

const text = (m: ChatMessage): string =>
  typeof m.content === "string" ? m.content : JSON.stringify(m.content);

/** The scripted expression of row `row` (answer `a`): right, off by one, right, malformed. */
const expressionFor = (row: number, a: number): string =>
  row === 3 ? `${a} ** 1` : row % 2 === 0 ? `2 * (${a} - 5) - ${a} + 10` : `(${a} + 1) * 3 / 3`;

describe("framework examples under rllm eval", () => {
  let up: FakeUpstream;
  let answers: { question: string; answer: number }[];
  before(async () => {
    const tasks = await loadBenchmark("gsm8k", { dataDir: DATA, maxExamples: TASKS });
    answers = tasks.map((t) => ({
      question: String(t.data.question),
      answer: Number(t.data.answer),
    }));
    up = await startFakeUpstream({ kind: "vllm", respond: script });
  });
  after(async () => {
    await up.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The scripted model: a calculator call, then the boxed tool result. */
  function script(req: FakeRequestInfo) {
    const messages = req.messages ?? [];
    const user = messages
      .filter((m) => m.role === "user")
      .map(text)
      .join("\n");
    const row = answers.findIndex((a) => user.includes(a.question));
    if (row < 0) throw new Error(`no gsm8k question in the prompt: ${user.slice(0, 200)}`);
    const result = messages.find((m) => m.role === "tool");
    if (!result) {
      const expression = expressionFor(row, answers[row]!.answer);
      return { text: "", toolCalls: [{ name: "calculator", arguments: { expression } }] };
    }
    return { text: `The calculator says ${text(result)}, so \\boxed{${text(result)}}.` };
  }

  /** Token ids and logprobs of a step are the upstream's: the fake's ids of `raw`, then EOS. */
  function assertTokens(step: Step, raw: RegExp | string) {
    assert.ok(step.promptIds.length > 0, "prompt ids");
    assert.equal(step.completionIds.at(-1), IM_END_TOKEN_ID);
    const completion = byteTokenizer.decode(step.completionIds.slice(0, -1));
    if (typeof raw === "string") assert.equal(completion, raw);
    else assert.match(completion, raw);
    assert.deepEqual(
      step.logprobs,
      step.completionIds.map((id, i) => fakeLogprob(id, i)),
    );
  }

  for (const example of EXAMPLES) {
    test(`${example.name}: two LLM calls per task, the tool's result in the second, rewards 1/0`, async () => {
      const output = join(dir, example.name);
      const seen = up.requests.length;
      const config = loadConfig({
        env: {},
        flags: evalFlagsToConfig({
          output,
          dataDir: DATA,
          baseUrl: `${up.url}/v1`,
          upstreamKind: "vllm",
          model: "fake-model",
          maxExamples: TASKS,
          agent: new URL(`./${example.name}.ts`, import.meta.url).pathname,
        }),
      });
      assert.equal(await runEvalCommand("gsm8k", config), 0);
      const results = JSON.parse(readFileSync(join(output, "results.json"), "utf8")) as EvalResults;
      assert.equal(results.agent, example.name);
      assert.deepEqual(
        results.items.map((i) => [i.index, i.reward, i.error]),
        [
          [0, 1, null],
          [1, 0, null],
          [2, 1, null],
          [3, 0, null],
        ],
      );
      assert.equal(up.requests.length - seen, 2 * TASKS, "two upstream calls per task");

      const store = new Store({ path: join(output, "traces.db") });
      try {
        for (const file of readdirSync(join(output, "episodes"))) {
          const episode = JSON.parse(
            readFileSync(join(output, "episodes", file), "utf8"),
          ) as Episode;
          const row = Number(episode.taskId.split("/").at(-1));
          const expression = expressionFor(row, answers[row]!.answer);
          const value = calculator(expression);
          assert.equal(value.startsWith("error: "), row === 3);
          assert.equal(episode.trajectories.length, 1);
          const [call, answer, ...rest] = episode.trajectories[0]!.steps;
          assert.equal(rest.length, 0, `${file}: exactly two steps`);

          // 1: the framework offered the calculator; the model calls it.
          const offered = JSON.stringify(store.getTrace(call!.traceId!)?.trace.request.tools);
          assert.match(offered, /"calculator".*"expression"/);
          const toolCall = call!.response?.toolCalls?.[0];
          assert.equal(toolCall?.function.name, "calculator");
          assert.deepEqual(JSON.parse(toolCall.function.arguments), { expression });
          assertTokens(call!, /^<tool_call>\n.*"calculator".*\n<\/tool_call>$/s);

          // 2: the framework ran the tool and sent its result back under the call's id.
          const toolMessage = answer!.messages.find((m) => m.role === "tool");
          assert.equal(toolMessage && text(toolMessage), value);
          assert.equal(toolMessage?.tool_call_id, toolCall.id);
          assert.equal(
            answer!.response?.content,
            `The calculator says ${value}, so \\boxed{${value}}.`,
          );
          assertTokens(answer!, answer!.response!.content!);
          // The second prompt extends the first (the gateway's token-in/token-out).
          assert.deepEqual(answer!.promptIds.slice(0, call!.promptIds.length), call!.promptIds);

          for (const step of [call!, answer!]) {
            assert.equal(store.getTrace(step.traceId!)?.trace.api, example.api);
          }
        }
      } finally {
        store.close();
      }
    });
  }
});
