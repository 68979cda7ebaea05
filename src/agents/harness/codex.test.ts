/**
 * The real Codex CLI (the pinned @openai/codex, installed under $RLLM_HOME/harnesses/codex or
 * RLLM_HARNESS_CODEX) run as the definition configures it, on this host, against the gateway in
 * front of the scripted fake upstream. The upstream answers in Codex's own tool (`exec_command`
 * with its `{cmd}` arguments); Codex runs the commands; the test checks the file they wrote, the
 * answer read from Codex's JSONL, what Codex sent, and the traces (every call with token ids, each
 * prompt extending the last).
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { checkTraces, runOnHost } from "../../testing/cli-harness.js";
import type { FakeRequestInfo } from "../../testing/fake-upstream.js";
import { startStack } from "../../testing/harness.js";
import { codex } from "./codex.js";

/** The scripted model: write the file, read it back, answer; decided by the tool results so far. */
function respond(req: FakeRequestInfo) {
  const results = (req.messages ?? []).filter((m) => m.role === "tool").length;
  if (results === 0) {
    const cmd = "printf 'Hello, world!\\n' > hello.txt";
    return { text: "", toolCalls: [{ name: "exec_command", arguments: { cmd } }] };
  }
  if (results === 1) {
    return { text: "", toolCalls: [{ name: "exec_command", arguments: { cmd: "cat hello.txt" } }] };
  }
  return { text: "Wrote hello.txt." };
}

test("codex: the real CLI writes the file through the gateway; every call traced with token ids", async () => {
  const stack = await startStack({ upstreams: [{ respond }] });
  const run = await runOnHost(codex, stack, {
    instruction: "Create hello.txt containing the line 'Hello, world!'.",
  });
  try {
    assert.equal(run.code, 0, `codex exited ${run.code}\n${run.stdout}\n${run.stderr}`);
    assert.equal(await readFile(join(run.cwd, "hello.txt"), "utf8"), "Hello, world!\n");
    assert.equal(codex.finalMessage?.(run.stdout), "Wrote hello.txt.");
    assert.equal(run.traces.length, 3, "one trace per model call");
    assert.equal(checkTraces(run.traces, "responses"), undefined);
    // What Codex sent: its own function tools and its namespace tool, no hosted web search; the
    // upstream got them all as chat functions.
    const tools = (run.traces[0]!.request.tools ?? []) as { type: string; name: string }[];
    assert.ok(tools.some((t) => t.type === "function" && t.name === "exec_command"));
    assert.ok(!tools.some((t) => t.type === "web_search"), "web_search is disabled in config");
    const sent = stack.upstreams[0]!.requests.at(-1)?.body as {
      tools: { function: { name: string } }[];
    };
    const names = sent.tools.map((t) => t.function.name);
    assert.ok(names.includes("exec_command"), names.join(", "));
    if (tools.some((t) => t.type === "namespace")) {
      assert.ok(
        names.some((n) => n.includes("__")),
        `namespace members flattened: ${names}`,
      );
    }
    console.log(
      `codex ${codex.version}: ${run.traces.length} calls in ${run.seconds.toFixed(1)} s`,
    );
  } finally {
    await run.cleanup();
    await stack.close();
  }
});
