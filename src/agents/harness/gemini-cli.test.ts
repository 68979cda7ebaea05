/**
 * The real Gemini CLI (the pinned @google/gemini-cli, installed under
 * $RLLM_HOME/harnesses/gemini-cli or RLLM_HARNESS_GEMINI_CLI) run as the definition configures it,
 * on this host, against the gateway's Gemini dialect in front of the scripted fake upstream. The
 * upstream answers in Gemini CLI's own tools (`run_shell_command {command}`, then
 * `read_file {file_path}`); the test checks the file written, the answer read from the CLI's JSON,
 * what it sent, and the traces (every call with token ids, each prompt extending the last).
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { checkTraces, runOnHost } from "../../testing/cli-harness.js";
import type { FakeRequestInfo } from "../../testing/fake-upstream.js";
import { startStack } from "../../testing/harness.js";
import { geminiCli } from "./gemini-cli.js";

function respond(req: FakeRequestInfo) {
  const results = (req.messages ?? []).filter((m) => m.role === "tool").length;
  if (results === 0) {
    const command = "printf 'Hello, world!\\n' > hello.txt";
    return { text: "", toolCalls: [{ name: "run_shell_command", arguments: { command } }] };
  }
  if (results === 1) {
    return { text: "", toolCalls: [{ name: "read_file", arguments: { file_path: "hello.txt" } }] };
  }
  return { text: "Wrote hello.txt." };
}

test("gemini-cli: the real CLI writes the file through the gateway's Gemini dialect; every call traced", async () => {
  const stack = await startStack({ upstreams: [{ respond }] });
  const run = await runOnHost(geminiCli, stack, {
    instruction: "Create hello.txt containing the line 'Hello, world!'.",
  });
  try {
    assert.equal(run.code, 0, `gemini exited ${run.code}\n${run.stdout}\n${run.stderr}`);
    assert.equal(await readFile(join(run.cwd, "hello.txt"), "utf8"), "Hello, world!\n");
    assert.equal(geminiCli.finalMessage?.(run.stdout), "Wrote hello.txt.");
    assert.equal(run.traces.length, 3, "one trace per model call");
    assert.equal(checkTraces(run.traces, "gemini.generateContent"), undefined);
    assert.ok(
      run.traces.every((t) => t.stream),
      "Gemini CLI streams (streamGenerateContent)",
    );
    // The CLI's tools arrived as function declarations; the hosted-service ones are excluded.
    const sent = stack.upstreams[0]!.requests.at(-1)?.body as {
      tools: { function: { name: string } }[];
    };
    const names = sent.tools.map((t) => t.function.name);
    assert.ok(names.includes("run_shell_command") && names.includes("read_file"), names.join());
    assert.ok(!names.includes("google_web_search") && !names.includes("web_fetch"), names.join());
    console.log(
      `gemini-cli ${geminiCli.version}: ${run.traces.length} calls in ${run.seconds.toFixed(1)} s`,
    );
  } finally {
    await run.cleanup();
    await stack.close();
  }
});
