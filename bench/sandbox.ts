/**
 * What the sandbox costs a code grader: a HumanEval solution (prompt + canonical solution + its
 * tests + `check(entry_point)`) executed through the bwrap sandbox against the same program in a
 * bare `python3` subprocess, in one run, on this machine's cores.
 *
 *   npx tsx bench/sandbox.ts [--runs 40] [--task 0] [--data ../shared/data/humaneval/test.jsonl.gz]
 *
 * Four ways, each timed per execution (median, p90) and as executions per second:
 *   bare        spawn python3 solution.py, one at a time (the interpreter the sandbox runs)
 *   exec        one warm sandbox kept open, sandbox.exec() per execution (the added latency)
 *   fresh       a new sandbox per execution: create → upload → exec → close
 *   pool ×C     C workers at once, each taking a warm sandbox from a SandboxPool per execution
 *               (release closes it and refills in the background): the grader's path
 *   bare ×C     C bare subprocesses at once: the throughput to compare pool ×C with
 *   grader ×C   the code grader itself (its runner, nonce-checked result file) over the pool
 * Target (issue 17): exec adds ≤ 20 ms per execution, and pool ×C keeps the cores busy (its rate
 * near bare ×C's).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { gunzipSync } from "node:zlib";
import { loadBenchmark } from "../src/benchmarks/index.js";
import { codeGrader } from "../src/rewards/code.js";
import { BwrapBackend } from "../src/sandbox/bwrap.js";
import { BwrapSandboxConfigSchema } from "../src/sandbox/config.js";
import { SandboxPool } from "../src/sandbox/pool.js";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
}

const RUNS = Number(arg("runs", "40"));
const TASK = Number(arg("task", "0"));
const DATA = arg(
  "data",
  new URL("../../shared/data/humaneval/test.jsonl.gz", import.meta.url).pathname,
);
const CONCURRENCY = Math.max(2, cpus().length);

function program(): string {
  if (!existsSync(DATA)) throw new Error(`no HumanEval data at ${DATA}: pass --data FILE`);
  const rows = gunzipSync(readFileSync(DATA)).toString("utf8").trim().split("\n");
  const row = JSON.parse(rows[TASK]!) as {
    prompt: string;
    canonical_solution: string;
    test: string;
    entry_point: string;
  };
  return `${row.prompt}${row.canonical_solution}\n\n${row.test}\n\ncheck(${row.entry_point})\n`;
}

/** The interpreter the sandbox runs (the first python3 on its PATH), so both ways run the same one. */
const PYTHON =
  ["/usr/local/bin/python3", "/usr/bin/python3"].find((p) => existsSync(p)) ?? "python3";
const SOLUTION = join(mkdtempSync(join(tmpdir(), "rllm-bench-")), "solution.py");

function bare(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, [SOLUTION], { stdio: "ignore" });
    child.on("exit", (c) => (c === 0 ? resolve() : reject(new Error(`python3 exited ${c}`))));
  });
}

interface Timing {
  name: string;
  perExecMs: number[];
  wallS: number;
  executions: number;
}

async function timed(
  name: string,
  executions: number,
  workers: number,
  one: () => Promise<void>,
): Promise<Timing> {
  const perExecMs: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (next++ < executions) {
        const t = performance.now();
        await one();
        perExecMs.push(performance.now() - t);
      }
    }),
  );
  return { name, perExecMs, wallS: (performance.now() - t0) / 1000, executions };
}

const q = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;

async function main(): Promise<void> {
  const code = program();
  writeFileSync(SOLUTION, code);
  const backend = await BwrapBackend.start(BwrapSandboxConfigSchema.parse({ backend: "bwrap" }));
  const check = async (r: { exitCode: number | null; stderr: string }) => {
    if (r.exitCode !== 0) throw new Error(`the solution failed in the sandbox: ${r.stderr}`);
  };
  const results: Timing[] = [];
  await bare(); // warm the page cache
  results.push(await timed("bare", RUNS, 1, () => bare()));
  const warm = await backend.create();
  await warm.upload([{ path: "solution.py", content: code }]);
  results.push(
    await timed("exec", RUNS, 1, async () => check(await warm.exec(["python3", "solution.py"]))),
  );
  await warm.close();
  results.push(
    await timed("fresh", RUNS, 1, async () => {
      const s = await backend.create();
      try {
        await s.upload([{ path: "solution.py", content: code }]);
        await check(await s.exec(["python3", "solution.py"]));
      } finally {
        await s.close();
      }
    }),
  );
  results.push(await timed(`bare ×${CONCURRENCY}`, RUNS * 2, CONCURRENCY, () => bare()));
  const pool = new SandboxPool(backend, { size: CONCURRENCY, maxConcurrent: 2 * CONCURRENCY });
  await new Promise((r) => setTimeout(r, 500)); // the warm sandboxes are made
  results.push(
    await timed(`pool ×${CONCURRENCY}`, RUNS * 2, CONCURRENCY, () =>
      pool.use(async (s) => {
        await s.upload([{ path: "solution.py", content: code }]);
        await check(await s.exec(["python3", "solution.py"]));
      }),
    ),
  );
  const tasks = await loadBenchmark("humaneval", { dataDir: dirname(dirname(DATA)) });
  const task = tasks[TASK]!;
  const grade = codeGrader(pool);
  const answer = `\`\`\`python\n${String(task.data.question)}${String(task.data.solution)}\n\`\`\``;
  results.push(
    await timed(`grader ×${CONCURRENCY}`, RUNS * 2, CONCURRENCY, async () => {
      const out = await grade(task, answer);
      if (out.reward !== 1)
        throw new Error(
          `the canonical solution scored ${out.reward}: ${JSON.stringify(out.metadata)}`,
        );
    }),
  );
  await pool.close();
  await backend.close();

  const base = results[0]!;
  const baseC = results[3]!;
  console.log(
    `HumanEval/${TASK} solution, ${RUNS} runs (×2 for the concurrent ones), ${cpus().length} cores, limits by ${backend.limitsBy}`,
  );
  console.log("way          median ms   p90 ms   exec/s   median − bare   rate ÷ bare");
  for (const r of results) {
    const rate = r.executions / r.wallS;
    const ref = r.name.includes("×") ? baseC : base;
    console.log(
      `${r.name.padEnd(12)} ${q(r.perExecMs, 0.5).toFixed(1).padStart(9)} ${q(r.perExecMs, 0.9).toFixed(1).padStart(8)} ${rate.toFixed(1).padStart(8)} ${(q(r.perExecMs, 0.5) - q(ref.perExecMs, 0.5)).toFixed(1).padStart(15)} ${(rate / (ref.executions / ref.wallS)).toFixed(2).padStart(13)}`,
    );
  }
}

await main();
