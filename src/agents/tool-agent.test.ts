/**
 * The tool agent end to end on the real path: the engine runs it against an in-process gateway in
 * front of a scripted model (the fake vLLM upstream, answering with hermes tool calls that the
 * gateway hands back as OpenAI tool_calls), its tools run in real bwrap sandboxes from the shared
 * pool, and an evaluator scores what reached the grader. Each ending is asserted: submit, a text
 * answer, max turns, the token budget, the wall-time limit and errors; and every sandbox acquired
 * is released.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { broadcastAdvantage, buildDatums } from "../algorithms/datums.js";
import { type InProcessGateway, runRollouts } from "../engine/index.js";
import type { SandboxSource } from "../sandbox/shared.js";
import { SandboxError } from "../sandbox/types.js";
import { evaluator, finalResponse } from "../sdk/index.js";
import { counting, startAgentStack, stopAgentStack } from "../testing/agent-stack.js";
import type { FakeCompletion, FakeRequestInfo, FakeUpstream } from "../testing/fake-upstream.js";
import type { ChatMessage, Episode, Task } from "../types/index.js";
import { type ToolAgentOptions, toolAgent } from "./tool-agent.js";
import { clip, runToolCall, type ToolContext } from "./tools.js";

type Script = (turn: number, toolAnswers: string[]) => FakeCompletion | string;

/** The model's behaviour per task instruction; `turn` counts its earlier answers. */
const scripts: Record<string, Script> = {
  "write, run, submit": (turn, answers) => {
    if (turn === 0)
      return {
        text: "",
        toolCalls: [
          { name: "write_file", arguments: { path: "notes/a.txt", content: "hello sandbox\n" } },
        ],
      };
    if (turn === 1)
      return {
        text: "",
        toolCalls: [
          { name: "bash", arguments: { command: "cat notes/a.txt; echo $(( $(cat n.txt) + 1 ))" } },
          { name: "nope", arguments: {} },
          { name: "read_file", arguments: { file: "notes/a.txt" } },
          { name: "read_file", arguments: { path: "missing.txt" } },
        ],
      };
    // the answer: the last line of the command's stdout
    const stdout = answers.at(-4)!.split("--- stdout ---\n")[1]!.split("\n--- stderr")[0]!;
    return {
      text: "",
      toolCalls: [{ name: "submit", arguments: { answer: stdout.trim().split("\n").at(-1)! } }],
    };
  },
  forever: () => ({ text: "", toolCalls: [{ name: "bash", arguments: { command: "echo hi" } }] }),
  sleep: () => ({ text: "", toolCalls: [{ name: "bash", arguments: { command: "sleep 20" } }] }),
  "just talk": () => "The answer is 7.",
  "long output": (turn, answers) =>
    turn === 0
      ? { text: "", toolCalls: [{ name: "bash", arguments: { command: "seq 1 5000; exit 3" } }] }
      : { text: "", toolCalls: [{ name: "submit", arguments: { answer: answers[0]! } }] },
};

function respond(req: FakeRequestInfo): FakeCompletion | string {
  const messages = req.messages ?? [];
  const user = String(messages.find((m) => m.role === "user")?.content ?? "");
  const script = scripts[user];
  if (!script) return `no script for ${JSON.stringify(user)}`;
  const turn = messages.filter((m) => m.role === "assistant").length;
  const answers = messages.filter((m) => m.role === "tool").map((m) => String(m.content));
  return script(turn, answers);
}

const task = (id: string, instruction: string, extra: Record<string, unknown> = {}): Task => ({
  id,
  data: { instruction, ...extra },
});

/** The agent's counters of an episode. */
const counters = (ep: Episode) => ep.info!.toolAgent as Record<string, unknown>;

const exact = evaluator<Episode>((t, ep) => finalResponse(ep) === t.data.answer);

describe("the tool agent", () => {
  let up: FakeUpstream;
  let gw: InProcessGateway;
  before(async () => ({ up, gw } = await startAgentStack(respond)));
  after(() => stopAgentStack({ up, gw }));

  async function run(tasks: Task[], options: ToolAgentOptions) {
    const sandboxes = counting();
    const r = await runRollouts(tasks, {
      gateway: gw,
      rollout: toolAgent({ ...options, sandboxes }),
      evaluator: exact,
      model: "m",
      infraRetries: 0,
    });
    assert.equal(sandboxes.released, sandboxes.acquired, "every sandbox acquired is released");
    return { episodes: r.episodes, sandboxes };
  }

  test("write a file, run a command that reads it, submit: the answer reaches the grader", async () => {
    const { episodes, sandboxes } = await run(
      [task("t1", "write, run, submit", { files: { "n.txt": "41" }, answer: "42" })],
      {},
    );
    const ep = episodes[0]!;
    assert.equal(sandboxes.acquired, 1);
    assert.equal(ep.error ?? null, null);
    assert.equal(ep.terminationReason, "env_done");
    assert.equal(ep.info?.answer, "42", "the command saw the task's file n.txt");
    assert.equal(ep.reward, 1);
    assert.equal(counters(ep).endedBy, "submit");
    assert.equal(counters(ep).turns, 3);
    assert.equal(counters(ep).toolCalls, 6);
    assert.equal(counters(ep).invalidToolCalls, 2, "an unknown tool and a schema mismatch");
    assert.equal(counters(ep).failedToolCalls, 1, "a missing file");
    assert.ok((counters(ep).sandboxSeconds as number) > 0);
    assert.ok((counters(ep).completionTokens as number) > 0);
    // the counters in the episode's metrics too (the engine's own turns and tokens beside them)
    assert.equal(ep.metrics?.toolCalls, 6);
    assert.equal(ep.metrics?.invalidToolCalls, 2);
    assert.equal(ep.metrics?.turns, 3);
    assert.ok((ep.metrics?.sandboxSeconds ?? 0) > 0);

    // one step per LLM call, joined to its trace; tool answers in the later prompts
    const steps = ep.trajectories[0]!.steps;
    // token-exact: each prompt is the previous prompt + its sampled ids + the new messages
    for (let k = 1; k < steps.length; k++) {
      const turn = [...steps[k - 1]!.promptIds, ...steps[k - 1]!.completionIds];
      assert.deepEqual(steps[k]!.promptIds.slice(0, turn.length), turn, `step ${k}`);
      assert.equal(steps[k]!.info?.prefixBreak, undefined);
    }
    assert.equal(ep.metrics?.prefixBreaks, 0);
    // so the episode trains as one row: every sampled token masked in, nothing re-tokenized
    const { datums, stats } = buildDatums([
      { groupId: "g", steps, advantages: broadcastAdvantage(steps, 1) },
    ]);
    assert.equal(datums.length, 1);
    assert.equal(stats.prefixBreaks, 0);
    const sampled = steps.reduce((n, st) => n + st.completionIds.length, 0);
    assert.equal(
      datums[0]!.lossMask.reduce((a: number, b) => a + b, 0),
      sampled,
    );
    assert.deepEqual(datums[0]!.tokens, [...steps[2]!.promptIds, ...steps[2]!.completionIds]);
    assert.equal(steps.length, 3);
    assert.equal(new Set(steps.map((s) => s.traceId)).size, 3);
    assert.ok(
      steps.every((s) => s.traceId && s.promptIds.length > 0 && s.completionIds.length > 0),
    );
    assert.deepEqual(
      steps.map((s) => s.response?.toolCalls?.map((c) => c.function.name)),
      [["write_file"], ["bash", "nope", "read_file", "read_file"], ["submit"]],
    );
    const tools = (m: ChatMessage[]) => m.filter((x) => x.role === "tool").map((x) => x.content);
    assert.deepEqual(tools(steps[0]!.messages), []);
    assert.deepEqual(tools(steps[1]!.messages), ["wrote 14 bytes to notes/a.txt"]);
    const last = tools(steps[2]!.messages) as string[];
    assert.equal(last.length, 5);
    assert.match(last[1]!, /^exit code: 0\n--- stdout ---\nhello sandbox\n42\n\n--- stderr ---\n$/);
    assert.match(
      last[2]!,
      /^error: unknown tool "nope"; the tools are bash, read_file, write_file, submit/,
    );
    assert.match(last[3]!, /^error: the arguments of read_file do not match its schema/);
    assert.match(last[4]!, /^error: .*missing\.txt/);
    // the tools were offered with their JSON schemas
    const sent = up.requests.at(-1)!.body as {
      tools: { function: { name: string; parameters: unknown } }[];
    };
    assert.deepEqual(
      sent.tools.map((t) => t.function.name),
      ["bash", "read_file", "write_file", "submit"],
    );
    assert.deepEqual(sent.tools[0]!.function.parameters, {
      type: "object",
      properties: {
        command: { type: "string", minLength: 1, description: "The command line to run." },
      },
      required: ["command"],
      additionalProperties: false,
    });
  });

  test("concurrent episodes each work in a sandbox of their own, from their own files", async () => {
    const tasks = [10, 20, 30, 40, 50, 60].map((n) =>
      task(`c${n}`, "write, run, submit", { files: { "n.txt": String(n) }, answer: String(n + 1) }),
    );
    const sandboxes = counting();
    const r = await runRollouts(tasks, {
      gateway: gw,
      rollout: toolAgent({ sandboxes }),
      evaluator: exact,
      model: "m",
      concurrency: 6,
    });
    assert.deepEqual(
      r.episodes.map((e) => [e.info?.answer, e.reward]),
      tasks.map((t) => [t.data.answer, 1]),
    );
    assert.deepEqual([sandboxes.acquired, sandboxes.released], [6, 6]);
  });

  test("max turns: the episode stops after maxTurns calls and says so", async () => {
    const { episodes } = await run([task("t2", "forever", { answer: "x" })], { maxTurns: 3 });
    const ep = episodes[0]!;
    assert.equal(ep.terminationReason, "max_turns_exceeded");
    assert.equal(ep.trajectories[0]!.steps.length, 3);
    assert.equal(counters(ep).endedBy, "max_turns");
    assert.equal(counters(ep).toolCalls, 3);
    assert.equal(ep.info?.answer, undefined);
    assert.equal(ep.reward, 0);
  });

  test("a text answer without a tool call ends the episode with that text as the answer", async () => {
    const { episodes } = await run([task("t3", "just talk", { answer: "The answer is 7." })], {});
    const ep = episodes[0]!;
    assert.equal(ep.terminationReason, "env_done");
    assert.equal(counters(ep).endedBy, "text");
    assert.equal(ep.info?.answer, "The answer is 7.");
    assert.equal(ep.reward, 1);
  });

  test("the completion-token budget ends the episode", async () => {
    const { episodes } = await run([task("t4", "forever")], { maxCompletionTokens: 5 });
    const ep = episodes[0]!;
    assert.equal(ep.terminationReason, "max_response_length_exceeded");
    assert.equal(counters(ep).endedBy, "max_tokens");
    assert.equal(ep.trajectories[0]!.steps.length, 1, "the first call already spent more than 5");
    assert.ok((counters(ep).completionTokens as number) >= 5);
  });

  test("wall time: a running command is stopped and the episode ends as timeout", async () => {
    const t0 = Date.now();
    const { episodes } = await run([task("t5", "sleep")], { maxSeconds: 1, commandTimeoutS: 30 });
    const ep = episodes[0]!;
    assert.ok(Date.now() - t0 < 10_000, "the sleep 20 did not run to its end");
    assert.equal(ep.terminationReason, "timeout");
    assert.equal(counters(ep).endedBy, "max_seconds");
    assert.equal(counters(ep).toolCalls, 1);
    assert.ok((counters(ep).sandboxSeconds as number) < 5);
  });

  test("the engine's own timeout aborts the agent, and its sandbox is still released", async () => {
    const sandboxes = counting();
    const r = await runRollouts([task("t6", "sleep")], {
      gateway: gw,
      rollout: toolAgent({ sandboxes }),
      model: "m",
      timeoutMs: 1000,
      infraRetries: 0,
    });
    assert.equal(r.episodes[0]!.terminationReason, "timeout");
    for (let i = 0; i < 100 && sandboxes.released < 1; i++) await sleep(50);
    assert.deepEqual([sandboxes.acquired, sandboxes.released], [1, 1]);
  });

  test("a refusal saying the prompt is over the context length ends it as max_prompt_length_exceeded", async () => {
    up.faults.push({
      kind: "status",
      status: 400,
      body: {
        error: {
          message:
            "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.",
        },
      },
    });
    const { episodes } = await run([task("t-long", "forever")], {});
    const ep = episodes[0]!;
    assert.equal(ep.terminationReason, "max_prompt_length_exceeded");
    assert.equal(ep.infraFailed, false);
    assert.match(String(ep.info?.error), /maximum context length/);
  });

  test("errors: a refused model call, a sandbox that cannot be had, a task without instruction", async () => {
    up.faults.push({ kind: "status", status: 400, body: { error: { message: "bad request" } } });
    let { episodes, sandboxes } = await run([task("t7", "forever")], {});
    let ep = episodes[0]!;
    assert.equal(ep.terminationReason, "error");
    assert.equal(ep.infraFailed, false);
    assert.match(String(ep.info?.error), /chat call failed with 400/);
    assert.equal(counters(ep).endedBy, "error");
    assert.equal(sandboxes.released, 1);

    const broken: SandboxSource = {
      acquire: () => Promise.reject(new SandboxError("no sandbox for you")),
      release: () => Promise.reject(new Error("nothing was acquired")),
    };
    const r = await runRollouts([task("t8", "forever")], {
      gateway: gw,
      rollout: toolAgent({ sandboxes: broken }),
      model: "m",
      infraRetries: 0,
    });
    ep = r.episodes[0]!;
    assert.equal(ep.terminationReason, "error");
    assert.equal(ep.info?.error, "task t8: no sandbox for you"); // named by the task environment
    assert.equal(ep.trajectories[0]!.steps.length, 0);

    // a sandbox that ends under the agent: the command cannot run, the episode cannot go on
    const closing = counting();
    const r2 = await runRollouts([task("t8b", "forever")], {
      gateway: gw,
      rollout: toolAgent({
        sandboxes: {
          async acquire() {
            const s = await closing.acquire();
            await s.close();
            return s;
          },
          release: (s) => closing.release(s),
        },
      }),
      model: "m",
      infraRetries: 0,
    });
    ep = r2.episodes[0]!;
    assert.equal(ep.terminationReason, "error");
    assert.match(String(ep.info?.error), /sandbox .* is closed/);
    assert.equal(ep.trajectories[0]!.steps.length, 1);
    assert.deepEqual([closing.acquired, closing.released], [1, 1]);

    ({ episodes, sandboxes } = await run([{ id: "t9", data: { files: { a: 1 } } }], {}));
    ep = episodes[0]!;
    assert.equal(ep.terminationReason, "error");
    assert.match(String(ep.info?.error), /^task t9: data\.files\.a: /);
    assert.equal(sandboxes.acquired, 0);

    ({ episodes, sandboxes } = await run([task("t9b", "forever", { files: { "../x": "a" } })], {}));
    ep = episodes[0]!;
    assert.equal(ep.terminationReason, "error");
    assert.match(String(ep.info?.error), /^task t9b: data\.files: .*\.\./);
    assert.deepEqual([sandboxes.acquired, sandboxes.released], [1, 1]);
  });

  test("a long output reaches the model as its head and tail, with the exit code", async () => {
    const { episodes } = await run([task("t11", "long output")], { maxOutputChars: 200 });
    const shown = String(episodes[0]!.info?.answer);
    assert.match(shown, /^exit code: 3\n--- stdout ---\n1\n2\n3\n/);
    assert.match(shown, /\n\[… 23693 characters cut …\]\n/);
    assert.match(shown, /\n4999\n5000\n\n--- stderr ---\n$/);
  });

  test("a 5xx of the model call is thrown: an infrastructure failure, not the model's error", async () => {
    up.faults.push({ kind: "status", status: 503, body: { error: { message: "overloaded" } } });
    const { episodes } = await run([task("t10", "forever")], {});
    assert.equal(episodes[0]!.infraFailed, true);
  });
});

describe("tool calls the agent cannot run", () => {
  const ctx = {
    sandbox: {} as ToolContext["sandbox"],
    signal: new AbortController().signal,
    commandTimeoutS: 1,
    maxOutputChars: 100,
    shell: "bash" as const,
  };
  const call = (name: string, args: string) => ({
    id: "c1",
    type: "function" as const,
    function: { name, arguments: args },
  });
  test("malformed JSON, a non-object and a missing field are answered as errors", async () => {
    assert.deepEqual(await runToolCall(call("bash", "{bad"), ctx), {
      kind: "invalid",
      content: `error: the arguments of bash are not valid JSON (${jsonError("{bad")}); send a JSON object`,
    });
    const list = await runToolCall(call("write_file", "[1]"), ctx);
    assert.equal(list.kind, "invalid");
    assert.match(
      list.content,
      /^error: the arguments of write_file do not match its schema: \(arguments\): /,
    );
    const missing = await runToolCall(call("write_file", '{"path":"a"}'), ctx);
    assert.match(missing.content, /schema: content: /);
  });
  test("clip keeps the head and the tail and says how much was cut", () => {
    assert.equal(clip("abcdefghij", 4, false), "ab\n[… 6 characters cut …]\nij");
    assert.equal(clip("abc", 4, false), "abc");
    assert.equal(
      clip("abc", 4, true),
      "abc\n[output truncated (and the sandbox kept only part of the output)]",
    );
  });
});

function jsonError(text: string): string {
  try {
    JSON.parse(text);
  } catch (err) {
    return (err as Error).message;
  }
  return "";
}
