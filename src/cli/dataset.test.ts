/**
 * `rllm dataset list | pull | show | from-eval` and `rllm eval --list` through the real CLI entry,
 * against a stand-in Hub on loopback (RLLM_HF_ENDPOINT) and the repository's fixtures.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { renderSft } from "../backends/local/chat-format.js";
import { loadBenchmark } from "../benchmarks/index.js";
import { loadConfig } from "../config/index.js";
import { Store } from "../store/sqlite.js";
import { type FakeHub, fakeHub, fileRoute, jsonRoute } from "../testing/fake-hub.js";
import { type FakeUpstream, startFakeUpstream } from "../testing/fake-upstream.js";
import { loadSftFile } from "../trainer/sft.js";
import { evalFlagsToConfig, runEvalCommand } from "./eval.js";

const cli = new URL("./index.ts", import.meta.url).pathname;
const DATA = new URL("../benchmarks/fixtures/data/", import.meta.url).pathname;

/** Runs `rllm ARGS` without blocking this process (the stand-in Hub answers from it). */
function rllm(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", cli, ...args], {
      env: { ...process.env, RLLM_LOG_LEVEL: "warn", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

let hub: FakeHub;
let hubUrl = "";
before(async () => {
  hub = await fakeHub({
    "/api/datasets/TIGER-Lab/MMLU-Pro/parquet/default/test": jsonRoute((url) => [
      `${url}/files/mmlu_pro.parquet`,
    ]),
    "/files/mmlu_pro.parquet": fileRoute(join(DATA, "mmlu_pro/test.parquet")),
  });
  hubUrl = hub.url;
});
after(() => hub.close());

test("dataset list and eval --list print one table, marking cached splits", async () => {
  const home = mkdtempSync(join(tmpdir(), "rllm-home-"));
  const cached = join(home, "datasets", "ceval", "ceval-exam", "all-configs", "val");
  mkdirSync(cached, { recursive: true });
  copyFileSync(
    join(DATA, "ceval/val/computer_network.00000.parquet"),
    join(cached, "computer_network.00000.parquet"),
  );
  const list = await rllm(["dataset", "list"], { RLLM_HOME: home });
  assert.equal(list.code, 0, list.stderr);
  const lines = list.stdout.trim().split("\n");
  assert.match(lines[0]!, /^name\s+source\s+grader\s+agent\s+splits \(\* cached\)$/);
  const row = (name: string) => lines.find((l) => l.startsWith(`${name} `));
  assert.match(
    row("ceval")!,
    /^ceval\s+ceval\/ceval-exam \(every config\)\s+multiple_choice\s+single-turn\s+val\*, dev$/,
  );
  assert.match(
    row("mmlu_pro")!,
    /TIGER-Lab\/MMLU-Pro\s+multiple_choice\s+single-turn\s+test, validation$/,
  );
  assert.match(
    row("countdown")!,
    /generated\s+countdown\s+single-turn\s+train, test \(generated\)$/,
  );
  assert.match(row("gsm8k")!, /openai\/gsm8k \(main\)\s+math/);
  const evalList = await rllm(["eval", "--list"], { RLLM_HOME: home });
  assert.equal(evalList.code, 0, evalList.stderr);
  assert.equal(evalList.stdout, list.stdout, "eval --list prints the same table");
  const none = await rllm(["eval"], { RLLM_HOME: home });
  assert.equal(none.code, 1);
  assert.match(none.stderr, /rllm eval needs a benchmark \(rllm eval --list shows the catalog\)/);
});

test("dataset pull: downloads with progress, then says it is cached; errors name what failed", async () => {
  const home = mkdtempSync(join(tmpdir(), "rllm-home-"));
  const env = { RLLM_HOME: home, RLLM_HF_ENDPOINT: hubUrl };
  const size = readFileSync(join(DATA, "mmlu_pro/test.parquet")).length;
  const first = await rllm(["dataset", "pull", "mmlu_pro"], env);
  assert.equal(first.code, 0, first.stderr);
  const path = join(home, "datasets", "TIGER-Lab", "MMLU-Pro", "default", "test.parquet");
  assert.match(first.stdout, new RegExp(`mmlu_pro test: cached at ${path}`));
  assert.ok(first.stderr.includes(`pulling mmlu_pro split "test" from ${hubUrl}`), first.stderr);
  assert.ok(first.stderr.includes(`${path}: `), first.stderr);
  assert.ok(first.stderr.includes(`(${size}/${size} bytes)`), first.stderr);
  const asked = hub.requests.length;
  const again = await rllm(["dataset", "pull", "mmlu_pro", "--split", "test"], env);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /mmlu_pro test: already cached at/);
  assert.equal(hub.requests.length, asked, "a cached split is not downloaded again");
  // show reads the cache it filled.
  const show = await rllm(["dataset", "show", "mmlu_pro", "-n", "1"], env);
  assert.equal(show.code, 0, show.stderr);
  assert.match(show.stdout, /── mmlu_pro\/70/);

  const typo = await rllm(["dataset", "pull", "mmlu-pr"], env);
  assert.equal(typo.code, 1);
  assert.match(typo.stderr, /Unknown benchmark "mmlu-pr"\. Did you mean "mmlu_pro"\?/);
  const badSplit = await rllm(["dataset", "pull", "mmlu_pro", "--split", "dev"], env);
  assert.match(badSplit.stderr, /mmlu_pro has no split "dev"; its splits are: test, validation/);
  // Nothing is served for validation: the error names the URL and the variables to check.
  const missing = await rllm(["dataset", "pull", "mmlu_pro", "--all-splits"], env);
  assert.equal(missing.code, 1);
  assert.match(missing.stdout, /mmlu_pro test: already cached/);
  assert.ok(
    missing.stderr.includes(
      `cannot pull mmlu_pro split "validation" from TIGER-Lab/MMLU-Pro: ${hubUrl}/datasets/TIGER-Lab/MMLU-Pro/resolve/refs%2Fconvert%2Fparquet/default/validation/0000.parquet: HTTP 404`,
    ),
    missing.stderr,
  );
  assert.match(missing.stderr, /RLLM_HF_ENDPOINT \(or HF_ENDPOINT\) sets the Hub's address/);
  assert.match(missing.stderr, /HF_TOKEN/);
  const generated = await rllm(["dataset", "pull", "countdown"], env);
  assert.equal(generated.code, 0, generated.stderr);
  assert.match(generated.stdout, /countdown is generated .*; nothing to pull/);
});

test("dataset show: the metadata and the first tasks as the grader and the model see them", async () => {
  const home = mkdtempSync(join(tmpdir(), "rllm-home-"));
  const r = await rllm(["dataset", "show", "mmlu_pro", "--data-dir", DATA, "-n", "2"], {
    RLLM_HOME: home,
  });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^mmlu_pro: MMLU-Pro/);
  assert.match(r.stdout, /grader: multiple_choice; agent: single-turn/);
  assert.match(r.stdout, /system prompt: Answer the multiple-choice question/);
  assert.match(r.stdout, /── mmlu_pro\/70\ndata: \{\n {2}"category": "math"/);
  assert.match(r.stdout, /"answer": "J"/);
  assert.match(
    r.stdout,
    /prompt:\nQuestion: Which of these numbers is the largest\?\n\nA\. 2\^3\n/,
  );
  assert.match(r.stdout, /J\. 17\^1/);
  assert.match(r.stdout, /── mmlu_pro\/71/);
  assert.doesNotMatch(r.stdout, /mmlu_pro\/72/);
  // A long document is cut for the terminal.
  const long = await rllm(["dataset", "show", "longbench_v2", "--data-dir", DATA, "-n", "1"], {
    RLLM_HOME: home,
  });
  assert.equal(long.code, 0, long.stderr);
  assert.match(long.stdout, /prompt:\nContext:\nChapter 1\./);
  const uncached = await rllm(["dataset", "show", "ceval"], { RLLM_HOME: home });
  assert.equal(uncached.code, 1);
  assert.match(
    uncached.stderr,
    /ceval split "val" is not cached: run rllm dataset pull ceval --split val, or pass --data-dir DIR/,
  );
  const badN = await rllm(["dataset", "show", "ceval", "-n", "x"], { RLLM_HOME: home });
  assert.match(badN.stderr, /-n x: must be a non-negative integer/);
});

test("dataset from-eval: an eval run's correct episodes become SFT rows rllm sft reads", async () => {
  const home = mkdtempSync(join(tmpdir(), "rllm-home-"));
  process.env.RLLM_HOME = home;
  const tasks = await loadBenchmark("mmlu_pro", { dataDir: DATA });
  // Right on the first two questions, wrong on the third.
  const replies = new Map(
    tasks.map((t, i) => [
      t.data.question as string,
      i < 2 ? `Thinking.\nAnswer: ${t.data.answer}` : "Answer: A",
    ]),
  );
  const up: FakeUpstream = await startFakeUpstream({
    kind: "vllm",
    respond: (req) => {
      const user = String(req.messages?.find((m) => m.role === "user")?.content ?? "");
      return [...replies].find(([q]) => user.includes(q))?.[1] ?? "no idea";
    },
  });
  const output = mkdtempSync(join(tmpdir(), "rllm-eval-"));
  try {
    const config = loadConfig({
      env: {},
      flags: evalFlagsToConfig({ output, dataDir: DATA, baseUrl: `${up.url}/v1`, model: "fake" }),
    });
    assert.equal(await runEvalCommand("mmlu_pro", config), 0);
  } finally {
    await up.close();
  }
  // Give the first episode's call the tools a tool agent would have offered: a traced request's.
  const bash = { type: "function", function: { name: "bash", parameters: { type: "object" } } };
  const episodePath = join(output, "episodes", "00000_0.json");
  const first = JSON.parse(readFileSync(episodePath, "utf8")) as {
    trajectories: { steps: { traceId: string }[] }[];
  };
  const step = first.trajectories[0]!.steps[0]!;
  const store = new Store({ path: join(output, "traces.db"), checkpoints: "sqlite" });
  const { trace } = store.getTrace(step.traceId)!;
  await store.insertTrace({
    ...trace,
    id: "with-tools",
    request: { ...trace.request, tools: [bash] },
  });
  store.close();
  step.traceId = "with-tools";
  writeFileSync(episodePath, JSON.stringify(first));

  const file = join(output, "good.jsonl");
  const r = await rllm(["dataset", "from-eval", output, "--output", file], { RLLM_HOME: home });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /2 of 3 episodes pass "isCorrect"; 2 SFT rows written to/);
  const rows = readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { messages: { role: string; content: string }[] });
  assert.deepEqual(
    rows.map((row) => row.messages.map((m) => m.role)),
    [
      ["system", "user", "assistant"],
      ["system", "user", "assistant"],
    ],
  );
  assert.match(rows[0]!.messages[1]!.content, /Which of these numbers is the largest\?/);
  assert.equal(rows[0]!.messages[2]!.content, "Thinking.\nAnswer: J");
  assert.deepEqual((rows[0] as { tools?: unknown }).tools, [bash]);
  assert.equal((rows[1] as { tools?: unknown }).tools, undefined, "a call offered no tools");
  // rllm sft's reader accepts every row (the local backend's chat format).
  const examples = loadSftFile(file, {
    render: (m, tools) => renderSft(m, { tools }),
    maxSeqLen: 1e6,
  });
  assert.equal(examples.length, 2);
  assert.ok(examples.every((e) => e.lossMask.includes(1)));

  const wrong = join(output, "wrong.jsonl");
  const w = await rllm(
    ["dataset", "from-eval", output, "--filter", "!isCorrect && reward == 0", "--output", wrong],
    { RLLM_HOME: home },
  );
  assert.equal(w.code, 0, w.stderr);
  assert.match(w.stdout, /1 of 3 episodes pass/);
  const bad = await rllm(
    ["dataset", "from-eval", output, "--filter", "score > 1", "--output", wrong],
    {
      RLLM_HOME: home,
    },
  );
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /bad filter at column 1: unknown field "score"/);
  const none = await rllm(
    ["dataset", "from-eval", output, "--filter", "steps > 5", "--output", wrong],
    {
      RLLM_HOME: home,
    },
  );
  assert.match(none.stderr, /no SFT rows: 0 of 3 episodes pass --filter "steps > 5"/);
  const notRun = await rllm(["dataset", "from-eval", home, "--output", wrong], { RLLM_HOME: home });
  assert.match(notRun.stderr, /is not an eval run: it has no episodes\/ folder/);
  writeFileSync(join(output, "episodes", "zz.json"), JSON.stringify({ id: "x" }));
  const broken = await rllm(["dataset", "from-eval", output, "--output", wrong], {
    RLLM_HOME: home,
  });
  assert.match(broken.stderr, /zz\.json: not an episode/);
  writeFileSync(join(output, "episodes", "zz.json"), '{"id": "x", "traj'); // cut short
  const cut = await rllm(["dataset", "from-eval", output, "--output", wrong], { RLLM_HOME: home });
  assert.equal(cut.code, 1);
  assert.match(cut.stderr, /episodes\/zz\.json: not JSON \(.+\)/);
});
