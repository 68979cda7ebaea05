/**
 * The real Codex CLI (the pinned @openai/codex, installed under $RLLM_HOME/harnesses/codex or
 * RLLM_HARNESS_CODEX) run as the definition configures it, against the gateway in front of the
 * scripted fake upstream: the upstream answers in Codex's own tool (`exec_command`, its
 * `{cmd}` arguments), Codex runs the commands, the test checks the file they wrote, the final
 * answer read from Codex's JSONL, and the traces (every call recorded with token ids, each turn's
 * prompt extending the last). The CLI runs on this host, in a temporary working dir.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { rllmHome } from "../../home.js";
import type { FakeRequestInfo } from "../../testing/fake-upstream.js";
import { startStack } from "../../testing/harness.js";
import type { TraceRecord } from "../../types/index.js";
import { codex } from "./codex.js";
import type { HarnessContext } from "./types.js";

const INSTALL_DIR = process.env.RLLM_HARNESS_CODEX || join(rllmHome(), "harnesses", "codex");

/** The scripted model: write the file, read it back, answer. Decided by the tool results so far. */
function respond(req: FakeRequestInfo) {
  const results = (req.messages ?? []).filter((m) => m.role === "tool").length;
  if (results === 0) {
    return {
      text: "",
      toolCalls: [
        { name: "exec_command", arguments: { cmd: "printf 'Hello, world!\\n' > hello.txt" } },
      ],
    };
  }
  if (results === 1) {
    return { text: "", toolCalls: [{ name: "exec_command", arguments: { cmd: "cat hello.txt" } }] };
  }
  return { text: "Wrote hello.txt." };
}

/** Runs argv with env, stdin closed; resolves with the exit code and output. */
function run(argv: string[], env: Record<string, string>, cwd: string, timeoutMs: number) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d;
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

test("codex: the real CLI writes the file through the gateway; every call traced with token ids", async () => {
  assert.ok(
    existsSync(join(INSTALL_DIR, codex.bin)),
    `Codex is not installed in ${INSTALL_DIR}: npm install --prefix ${INSTALL_DIR} ${codex.package}@${codex.version} (or rllm harness install codex; RLLM_HARNESS_CODEX names another dir)`,
  );
  const stack = await startStack({ upstreams: [{ respond }] });
  const root = await mkdtemp(join(tmpdir(), "rllm-codex-"));
  try {
    const session = await stack.session();
    const ctx: HarnessContext = {
      sessionURL: session.url,
      baseURL: `${session.url}/v1`,
      apiKey: session.token,
      model: "test-model",
      instruction: "Create hello.txt containing the line 'Hello, world!'.",
      cwd: join(root, "work"),
      home: join(root, "home"),
      installDir: INSTALL_DIR,
      timeoutS: 60,
    };
    await mkdir(ctx.cwd, { recursive: true });
    const setup = codex.configure(ctx);
    for (const f of setup.files) {
      await mkdir(dirname(join(ctx.home, f.path)), { recursive: true });
      await writeFile(join(ctx.home, f.path), f.content, { mode: f.mode ?? 0o600 });
    }
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: ctx.home, ...setup.env };
    const started = Date.now();
    const r = await run(codex.command(ctx), env, ctx.cwd, ctx.timeoutS * 1000);
    const seconds = (Date.now() - started) / 1000;
    assert.equal(r.code, 0, `codex exited ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);

    assert.equal(await readFile(join(ctx.cwd, "hello.txt"), "utf8"), "Hello, world!\n");
    assert.equal(codex.finalMessage?.(r.stdout), "Wrote hello.txt.");

    const res = await stack.admin(`/sessions/${encodeURIComponent(session.id)}/traces`);
    const traces = (res.body as { data: TraceRecord[] }).data;
    assert.equal(traces.length, 3, "one trace per model call");
    let previous: number[] = [];
    for (const t of traces) {
      assert.equal(t.api, "responses");
      assert.equal(t.status, 200);
      assert.equal(t.tokenSource, "upstream");
      assert.ok((t.promptIds?.length ?? 0) > 0, "prompt token ids recorded");
      const completion = t.choices[0]?.completionIds ?? [];
      assert.ok(completion.length > 0, "completion token ids recorded");
      assert.equal(t.choices[0]?.logprobs?.length, completion.length, "a logprob per token");
      assert.deepEqual(
        t.promptIds?.slice(0, previous.length),
        previous,
        "each turn's prompt starts with the previous prompt and completion",
      );
      previous = [...(t.promptIds ?? []), ...completion];
    }
    // What Codex sent: its own tools, the namespace flattened, no hosted web search.
    const tools = (traces[0]?.request.tools ?? []) as { type: string; name: string }[];
    assert.ok(tools.some((t) => t.type === "function" && t.name === "exec_command"));
    assert.ok(!tools.some((t) => t.type === "web_search"), "web_search is disabled in config");
    const sent = stack.upstreams[0]!.requests.at(-1)?.body as {
      tools?: { function: { name: string } }[];
    };
    const names = (sent.tools ?? []).map((t) => t.function.name);
    assert.ok(names.includes("exec_command"), names.join(", "));
    console.log(`codex ${codex.version}: ${traces.length} calls in ${seconds.toFixed(1)} s`);
  } finally {
    await stack.close();
    await rm(root, { recursive: true, force: true });
  }
});
