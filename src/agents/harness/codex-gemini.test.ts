/**
 * Codex and Gemini CLI for real, as harness.test.ts runs the other CLIs: each installed CLI
 * (`rllm harness install NAME`; a missing one FAILS here with that command) runs through
 * harnessAgent in a bwrap sandbox on the Harbor fixture write-script, against the in-process
 * gateway in front of the scripted fake vLLM upstream. These two need the gateway's own dialects:
 * Codex speaks only the Responses API (its namespace tool flattened, web_search off), Gemini CLI
 * only the Gemini API (`streamGenerateContent?alt=sse`). The script answers in each CLI's own tool
 * names: write /app/count_words.sh, make it executable and run it, then a final text. Asserted:
 * the file written in the sandbox, the verifier's reward, the CLI's answer, and the traces (every
 * call a step in the CLI's dialect, with token ids, a logprob per token, and each prompt extending
 * the previous prompt and completion, the model's reasoning included: Codex sends reasoning items
 * back, Gemini CLI drops thought parts but keeps the thoughtSignature that carries them).
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
import type { TraceRecord } from "../../types/index.js";
import { harnessAgent } from "./agent.js";
import { locateHarness } from "./install.js";

const SCRIPT = '#!/bin/sh\nwc -w < "$1" | tr -d " "\n';
const RUN = "chmod +x /app/count_words.sh && /app/count_words.sh /app/README.md";
const FINAL = "Done: /app/count_words.sh counts the words.";

/** A tool call after some thinking: the reasoning must come back in the next prompt. */
function call(name: string, args: Record<string, unknown>): FakeCompletion {
  return { text: "", reasoning: `I will call ${name}.`, toolCalls: [{ name, arguments: args }] };
}

/** Each CLI: how to know its calls, its two scripted tool calls, its trace api. */
const CLIS = {
  // Codex has no file-writing tool without a model catalog entry: the shell writes the file.
  codex: {
    has: (names: Set<string>) => names.has("exec_command"),
    write: () => call("exec_command", { cmd: `printf '%s' '${SCRIPT}' > /app/count_words.sh` }),
    run: () => call("exec_command", { cmd: RUN }),
    api: "responses",
  },
  "gemini-cli": {
    has: (names: Set<string>) => names.has("run_shell_command") && names.has("write_file"),
    write: () => call("write_file", { file_path: "/app/count_words.sh", content: SCRIPT }),
    run: () => call("run_shell_command", { command: RUN }),
    api: "gemini.generateContent",
  },
} as const;

function respond(req: FakeRequestInfo): FakeCompletion | string {
  const names = new Set(
    (req.tools ?? []).map((t) => (t as { function?: { name?: string } }).function?.name ?? ""),
  );
  const cli = Object.values(CLIS).find((c) => c.has(names));
  if (!cli) return "rllm"; // side calls without the tools
  const turn = (req.messages ?? []).filter((m) => m.role === "assistant").length;
  if (turn === 0) return cli.write();
  if (turn === 1) return cli.run();
  return FINAL;
}

describe("Codex and Gemini CLI through the gateway's Responses and Gemini dialects", () => {
  let up: FakeUpstream;
  let gw: InProcessGateway;
  before(async () => ({ up, gw } = await startAgentStack(respond)));
  after(() => stopAgentStack({ up, gw }));

  for (const [name, cli] of Object.entries(CLIS)) {
    test(`${name}: writes the script, runs it, reward 1, every call traced token-exact`, async () => {
      locateHarness(name); // not installed: fails here, naming `rllm harness install NAME`
      const sandboxes = reading("cat /app/count_words.sh; ls -l /app/count_words.sh");
      const task = readHarborTask(WRITE_SCRIPT_FIXTURE, "harbor", 0);
      const before = up.requests.length;
      const started = Date.now();
      const r = await runRollouts([task], {
        gateway: gw,
        rollout: harnessAgent(name, { sandboxes, timeoutS: 240 }),
        evaluator: verifierEvaluator(),
        model: "test-model",
        infraRetries: 0,
        timeoutMs: 300_000,
      });
      const seconds = (Date.now() - started) / 1000;
      const ep = r.episodes[0]!;
      const info = ep.info?.harness as Record<string, unknown> | undefined;
      assert.equal(
        ep.error ?? null,
        null,
        `episode error; stderr: ${info?.stderr}\nstdout: ${info?.stdout}`,
      );
      assert.equal(ep.terminationReason, "env_done");
      assert.ok(sandboxes.seen[0]!.startsWith(SCRIPT), sandboxes.seen[0]);
      assert.match(sandboxes.seen[0]!, /^-rwx/m, "made executable by the CLI's command tool");
      const verifier = ep.info?.verifier as { reward: number; output: string } | undefined;
      assert.equal(verifier?.reward, 1, `the verifier's reward; its output: ${verifier?.output}`);
      assert.equal(ep.reward, 1);
      assert.equal(info?.exitCode, 0);
      assert.equal(ep.info?.answer, FINAL);

      const calls = up.requests.length - before;
      const steps = ep.trajectories[0]!.steps;
      assert.equal(calls, 3, "write, run, answer");
      assert.equal(steps.length, calls, "every call the CLI made is a step");
      let previous: number[] = [];
      for (const s of steps) {
        assert.ok(s.promptIds.length > 0 && s.completionIds.length > 0, "token ids");
        assert.equal(s.logprobs.length, s.completionIds.length, "a logprob per completion token");
        assert.deepEqual(s.promptIds.slice(0, previous.length), previous, "prompt extends");
        previous = [...s.promptIds, ...s.completionIds];
      }
      const traces = await Promise.all(
        steps.map(async (s) => (await gw.gateway.store.getTrace(s.traceId!))!.trace as TraceRecord),
      );
      assert.deepEqual(
        traces.map((t) => t.api),
        steps.map(() => cli.api),
      );
      if (name === "codex") {
        const tools = (traces[0]!.request.tools ?? []) as { type: string }[];
        assert.ok(
          tools.some((t) => t.type === "namespace"),
          "Codex sends its namespace tool",
        );
        assert.ok(!tools.some((t) => t.type === "web_search"), "web_search is off");
      } else {
        const sent = up.requests.at(-1)!.body as { tools: { function: { name: string } }[] };
        const names = sent.tools.map((t) => t.function.name);
        assert.ok(!names.includes("google_web_search") && !names.includes("web_fetch"), `${names}`);
      }
      console.log(`${name}: ${calls} calls, episode ${seconds.toFixed(1)} s`);
    });
  }
});
