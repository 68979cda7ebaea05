/**
 * The CLI harnesses for real: each installed CLI (`rllm harness install NAME`; a missing one FAILS
 * here with that command) runs in a bwrap sandbox on the Harbor fixture write-script, against the
 * in-process gateway in front of the scripted fake vLLM upstream. The script answers in the CLI's
 * own tool names: write /app/count_words.sh, then run a command that makes it executable and runs
 * it, then a final text. Asserted per CLI: the file the CLI's tools wrote in the sandbox (read
 * before it is released), the task's verifier's reward (1) and the episode's, the CLI's answer, and
 * the traces (every call the CLI made is a step, with token ids and a logprob per token).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { readHarborTask, verifierEvaluator } from "../../benchmarks/harbor.js";
import { type InProcessGateway, runRollouts } from "../../engine/index.js";
import {
  reading,
  startAgentStack,
  stopAgentStack,
  WRITE_SCRIPT_FIXTURE,
} from "../../testing/agent-stack.js";
import type { FakeCompletion, FakeRequestInfo, FakeUpstream } from "../../testing/fake-upstream.js";
import { harnessAgent } from "./agent.js";
import { locateHarness } from "./install.js";
import { harnessDefinition } from "./registry.js";

/** Each CLI's tools: the one that writes a file and the one that runs a command, with their argument names. */
const TOOLS: Record<
  string,
  { write: (path: string, content: string) => FakeCompletion; run: (cmd: string) => FakeCompletion }
> = {
  "claude-code": {
    write: (path, content) => call("Write", { file_path: path, content }),
    run: (command) => call("Bash", { command, description: "compute the answer" }),
  },
  opencode: {
    write: (path, content) => call("write", { filePath: path, content }),
    run: (command) => call("bash", { command }),
  },
  "qwen-code": {
    write: (path, content) => call("write_file", { file_path: path, content }),
    run: (command) => call("run_shell_command", { command, description: "compute the answer" }),
  },
};

/**
 * One tool call, with an id of its own: the fake upstream's ids are deterministic and repeat from
 * turn to turn, and Claude Code replays a repeated tool_use id as "[Tool use interrupted]".
 */
function call(name: string, args: Record<string, unknown>): FakeCompletion {
  return { text: "", toolCalls: [{ name, arguments: args, id: `call_${name}_${++callIds}` }] };
}
let callIds = 0;

const FINAL = "Done: /app/count_words.sh counts the words.";
const SCRIPT = '#!/bin/sh\nwc -w < "$1" | tr -d " "\n';

/** Which CLI is calling, from the tools it offers. */
function cliOf(req: FakeRequestInfo): string | undefined {
  const names = new Set(
    (req.tools ?? []).map((t) => (t as { function?: { name?: string } }).function?.name),
  );
  if (names.has("Write") && names.has("Bash")) return "claude-code";
  if (names.has("write_file") && names.has("run_shell_command")) return "qwen-code";
  if (names.has("write") && names.has("bash")) return "opencode";
  return undefined;
}

/**
 * The script, for the Harbor fixture write-script: turn 0 writes /app/count_words.sh, turn 1 makes
 * it executable and runs it on the task's README.md, then the final text.
 */
function respond(req: FakeRequestInfo): FakeCompletion | string {
  const cli = cliOf(req);
  // side calls without the tools (titles, summaries, classifiers) get a short text
  if (!cli) return "rllm";
  const turn = (req.messages ?? []).filter((m) => m.role === "assistant").length;
  const tools = TOOLS[cli]!;
  if (turn === 0) return tools.write("/app/count_words.sh", SCRIPT);
  if (turn === 1)
    return tools.run("chmod +x /app/count_words.sh && /app/count_words.sh /app/README.md");
  return FINAL;
}

describe("CLI harnesses against the gateway and a scripted model", () => {
  let up: FakeUpstream;
  let gw: InProcessGateway;
  before(async () => ({ up, gw } = await startAgentStack(respond)));
  after(() => stopAgentStack({ up, gw }));

  for (const name of Object.keys(TOOLS)) {
    test(`${name}: writes the file, runs the command, every call traced with token ids`, async () => {
      locateHarness(name); // not installed: fails here, naming `rllm harness install NAME`
      const sandboxes = reading("cat /app/count_words.sh; ls -l /app/count_words.sh");
      const task = readHarborTask(WRITE_SCRIPT_FIXTURE, "harbor", 0);
      const before = up.requests.length;
      const r = await runRollouts([task], {
        gateway: gw,
        rollout: harnessAgent(name, { sandboxes, timeoutS: 240 }),
        evaluator: verifierEvaluator(),
        model: "test-model",
        infraRetries: 0,
        timeoutMs: 300_000,
      });
      const ep = r.episodes[0]!;
      const info = ep.info?.harness as Record<string, unknown> | undefined;
      assert.equal(
        ep.error ?? null,
        null,
        `episode error; stderr: ${info?.stderr}\nstdout: ${info?.stdout}`,
      );
      assert.equal(ep.terminationReason, "env_done");
      assert.equal(sandboxes.seen.length, 1);
      assert.ok(sandboxes.seen[0]!.startsWith(SCRIPT), sandboxes.seen[0]);
      assert.match(sandboxes.seen[0]!, /^-rwx/m, "made executable by the CLI's command tool");
      const verifier = ep.info?.verifier as { reward: number; output: string } | undefined;
      assert.equal(verifier?.reward, 1, `the verifier's reward; its output: ${verifier?.output}`);
      assert.equal(ep.reward, 1);
      assert.equal(info?.exitCode, 0);
      assert.equal(ep.info?.answer, FINAL);

      const calls = up.requests.length - before;
      const steps = ep.trajectories[0]!.steps;
      assert.ok(calls >= 3, `the CLI made ${calls} calls`);
      assert.equal(steps.length, calls, "every call the CLI made is a step");
      for (const s of steps) {
        assert.ok(s.traceId);
        assert.ok(s.promptIds.length > 0, "prompt token ids");
        assert.ok(s.completionIds.length > 0, "completion token ids");
        assert.equal(s.logprobs.length, s.completionIds.length, "a logprob per completion token");
      }
      // each call went to the gateway in the CLI's own dialect, streamed
      const traces = await gw.traces(ep.sessionId!);
      assert.equal(traces.length, calls);
      const api = {
        "anthropic-messages": "anthropic.messages",
        "chat-completions": "chat.completions",
      };
      const dialect = harnessDefinition(name).dialect as keyof typeof api;
      assert.deepEqual(
        new Set(traces.map((t) => `${t.api} ${t.stream}`)),
        new Set([`${api[dialect]} true`]),
      );
      assert.equal(ep.metrics?.prefixBreaks, 0, "the engine saw no prefix break either");
      // token-exact turns: each prompt is the previous prompt + its completion + the new messages
      for (let i = 1; i < steps.length; i++) {
        const before = [...steps[i - 1]!.promptIds, ...steps[i - 1]!.completionIds];
        assert.deepEqual(
          steps[i]!.promptIds.slice(0, before.length),
          before,
          `step ${i} extends step ${i - 1}`,
        );
      }
      const scripted = steps.filter((s) => s.response?.toolCalls?.length);
      assert.equal(scripted.length, 2, "the write and the command came back as tool calls");
    });
  }

  test("claude-code: a model call the upstream refuses ends the episode as an error, with the CLI's output", async () => {
    // more than the one it takes, should the CLI retry
    for (let i = 0; i < 10; i++)
      up.faults.push({
        kind: "status",
        status: 400,
        body: {
          error: { message: "prompt refused by the test", type: "BadRequestError", code: 400 },
        },
      });
    const r = await runRollouts([readHarborTask(WRITE_SCRIPT_FIXTURE, "harbor", 0)], {
      gateway: gw,
      rollout: harnessAgent("claude-code", { timeoutS: 240 }),
      evaluator: verifierEvaluator(),
      model: "test-model",
      infraRetries: 0,
    });
    up.faults.length = 0;
    const ep = r.episodes[0]!;
    assert.equal(ep.terminationReason, "error");
    assert.match(
      ep.info?.error as string,
      /^harness claude-code exited with code 1: API Error: 400 .*prompt refused by the test; its stderr ends:/,
    );
    assert.equal((ep.info!.verifier as { reward: number }).reward, 0, "the verifier still ran");
    assert.equal(ep.reward, 0);
    assert.equal(ep.infraFailed, false, "a 4xx is the model's refusal, not the infrastructure's");
    const traces = await gw.traces(ep.sessionId!);
    assert.deepEqual(
      traces.map((t) => t.status),
      [400],
    );
  });

  test("claude-code: concurrent episodes each in a sandbox and tunnel of their own", async () => {
    const sandboxes = reading("cat /app/count_words.sh");
    const tasks = [0, 1, 2].map((i) => ({
      ...readHarborTask(WRITE_SCRIPT_FIXTURE, "harbor", i),
      id: `c${i}`,
    }));
    const r = await runRollouts(tasks, {
      gateway: gw,
      rollout: harnessAgent("claude-code", { sandboxes, timeoutS: 240 }),
      evaluator: verifierEvaluator(),
      model: "test-model",
      infraRetries: 0,
      concurrency: 3,
    });
    assert.deepEqual(
      r.episodes.map((e) => [e.reward, e.info?.error ?? null]),
      [
        [1, null],
        [1, null],
        [1, null],
      ],
    );
    assert.deepEqual(sandboxes.seen, [SCRIPT, SCRIPT, SCRIPT]);
    assert.equal(new Set(r.episodes.map((e) => e.sessionId)).size, 3);
  });
});
