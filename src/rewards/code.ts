/**
 * The `code` grader: the program in a model's response, run in a sandbox against the task's tests.
 * Reward 1 when every test passes, else 0; `metadata.tests` gives each test's outcome.
 *
 * The task says what to run (`task.data`, checked by CodeTaskSchema; a task that does not fit is
 * an error naming it, never a 0):
 * - `language`: "python" (default), "javascript" or "typescript".
 * - `prelude`: code put before the program (HumanEval's prompt: its imports and signature;
 *   LiveCodeBench's import block).
 * - `tests`, by `kind`:
 *   - `check` (HumanEval): `test` defines `check(candidate)`; it is called with the program's
 *     `entryPoint`. One test.
 *   - `asserts` (MBPP): each of `asserts` is one test (statements run after the program, and after
 *     `setup` — MBPP's test_setup_code — when given).
 *   - `call` (LiveCodeBench functional): `fnName` is called — as a method of `Solution()` when the
 *     program defines `class Solution`, else as a top-level function — with each case's `input`
 *     lines as JSON arguments; the return value must equal `output` (JSON) as Python's `==` says.
 *   - `stdio` (LiveCodeBench stdin, APPS, TACO): the program runs once per case with `input` on
 *     stdin; its stdout must match `output` under `compare` (code-compare.ts).
 *
 * The program is the response's last fenced code block (``` or ~~~, any language tag or none; an
 * unclosed last fence runs to the end, as in CommonMark), else the whole response.
 *
 * Running: each grade acquires a sandbox from the `SandboxSource`, works in a fresh directory of
 * it, and releases it. stdio cases run as one exec each, under the per-test timeout, and are judged
 * on the host (measured with bwrap on 2 cores: ~5 ms of exec overhead on ~20-30 ms of python3
 * start-up per case, 50 cases in ~1.4 s — not worth a second process layer inside the sandbox). The other kinds run in one exec of a runner (code-runners.ts) that times each step
 * and reports through a nonce-checked result file, never through stdout. Every exec's timeout is
 * cut to what is left of the task's budget; tests the budget never reached are `timeout`.
 *
 * Outcomes: `pass`, `fail` (wrong answer, failed assert), `error` (exception, crash, exit before
 * the tests ended, memory/output/process limit), `timeout`, and `skipped` (not run because an
 * earlier test failed and `stopOnFailure` is on). An unusable sandbox — the interpreter missing, a
 * sandbox error — is thrown, not scored: it is not the model's doing.
 *
 * TypeScript is transpiled to JavaScript on the host, before any sandbox is acquired, by esbuild's
 * `transform` (code-task.ts; esbuild only parses and prints: nothing of the program runs on the
 * host), for any Node ≥ 20 in the sandbox (esbuild targets node20) — then the program and its
 * tests run exactly as JavaScript does, as scripts: an `import`/`export` stays the SyntaxError it
 * is in JavaScript (except an unused import, which TypeScript drops as type-only; `import x =
 * require()` becomes a `require`). Every TypeScript syntax works (enums and namespaces too);
 * types are erased, never checked: `const x: number = "a"` runs, though `tsc` refuses it. The
 * prelude and the program transpile as one `solution.ts`; a syntax error there is the program's
 * load error (every test `error`, "the program did not load: esbuild: …" with esbuild's first
 * message and its line:column in solution.ts; reward 0). The task's own TypeScript test code
 * (`check` code, asserts, setup) transpiles too, and a task whose code does not is an error naming
 * it. Runtime error locations name the transpiled `solution.js`, whose lines esbuild reprinted.
 * JavaScript programs are scripts (no `import`/`export`; `require` works), run by `node` as is
 * for stdio and in one `vm` context with their tests otherwise. A JavaScript task's tests take the
 * same four kinds: `check` code defines `function check(candidate)`, `asserts` are statements —
 * both with `assert` (node:assert) in scope and an AssertionError counting as `fail`; `call` calls
 * `new Solution()[fnName]` or a top-level `fnName`, the value compared as JSON.
 */
import { randomBytes } from "node:crypto";
import { z } from "zod";
import type { SandboxSource } from "../sandbox/shared.js";
import type { ExecResult, Sandbox, SandboxSpec } from "../sandbox/types.js";
import type { EvalOutput, Task } from "../types/index.js";
import { outputMismatch, parsePyJson, pyEqual } from "./code-compare.js";
import { NODE_RUNNER, PYTHON_RUNNER } from "./code-runners.js";
import {
  type CodeLanguage,
  type CodeTask,
  type CodeTestOutcome,
  type CodeTestResult,
  type CodeTests,
  extractProgram,
  readCodeTask,
  transpileTests,
  transpileTypeScript,
} from "./code-task.js";

export type { SandboxSource };

export const CodeGraderOptionsSchema = z.strictObject({
  /** Wall-clock seconds per test (per stdio case; per runner step). Default 6, LiveCodeBench's. */
  testTimeoutS: z.number().positive().default(6),
  /** Wall-clock seconds for all of a task's execs together. Default 60. */
  taskTimeoutS: z.number().positive().default(60),
  /**
   * Stop at the first test that does not pass (the rest are `skipped`); call-based tests stop at
   * errors and timeouts only, as their values are judged after the run. Default true.
   */
  stopOnFailure: z.boolean().default(true),
  /** The spec each sandbox is acquired with (limits, hostPaths for an interpreter outside /usr). */
  spec: z.custom<SandboxSpec>((v) => v !== null && typeof v === "object").optional(),
  /** The Python command. Default ["python3"]. */
  python: z.array(z.string().min(1)).min(1).default(["python3"]),
  /** The Node command. Default ["node"]. */
  node: z.array(z.string().min(1)).min(1).default(["node"]),
  /**
   * Bytes of stdout/stderr kept per exec; more kills the program. Default 4 MiB (a stdio case
   * always gets twice its expected output).
   */
  maxOutputBytes: z
    .number()
    .int()
    .positive()
    .default(4 * 1024 * 1024),
});
export type CodeGraderOptions = z.input<typeof CodeGraderOptionsSchema>;
type Options = z.infer<typeof CodeGraderOptionsSchema>;

/** What one grade needs while it runs. */
interface Run {
  sandbox: Sandbox;
  dir: string;
  nonce: string;
  options: Options;
  deadline: number;
}

function secondsLeft(run: Run): number {
  return (run.deadline - Date.now()) / 1000;
}

const BUDGET_SPENT = "the task's time budget ran out before this test";

function shorten(text: string, max = 300): string {
  const flat = text.trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

function lastLine(text: string): string {
  const lines = text.trim().split("\n");
  return shorten(lines[lines.length - 1] ?? "", 200);
}

/** Why an exec ended badly, as a test outcome; null when it ended by itself with exit code 0. */
function execFailure(result: ExecResult, what = "the program"): CodeTestResult | null {
  const stderr = result.stderr.trim() ? `: ${lastLine(result.stderr)}` : "";
  switch (result.limit) {
    case "timeout":
      return { outcome: "timeout", reason: `${what} ran past its time limit` };
    case "cpu":
      return { outcome: "timeout", reason: `${what} ran past its CPU-time limit` };
    case "memory":
      return { outcome: "error", reason: `${what} was killed by the memory limit` };
    case "output":
      return { outcome: "error", reason: `${what} wrote more output than the limit` };
    case "pids":
      return { outcome: "error", reason: `${what} hit the process limit (a fork was refused)` };
    case "disk":
      return { outcome: "error", reason: `${what} hit the disk limit` };
    default:
      break;
  }
  if (result.signal) return { outcome: "error", reason: `${what} was killed by ${result.signal}` };
  if (result.exitCode !== 0) {
    return { outcome: "error", reason: `${what} exited with code ${result.exitCode}${stderr}` };
  }
  return null;
}

async function exec(
  run: Run,
  command: string[],
  stdin?: string,
  timeoutS = run.options.testTimeoutS,
  maxOutputBytes = run.options.maxOutputBytes,
) {
  return run.sandbox.exec(command, {
    cwd: run.dir,
    stdin,
    timeoutS: Math.max(0.1, Math.min(timeoutS, secondsLeft(run))),
    maxOutputBytes,
    env: { PYTHONIOENCODING: "utf-8", PYTHONDONTWRITEBYTECODE: "1" },
  });
}

function interpreter(run: Run, language: CodeLanguage): string[] {
  return language === "python" ? run.options.python : run.options.node;
}

/** The file the program is written to, by language (TypeScript runs transpiled). */
function programFile(language: CodeLanguage): string {
  return language === "python" ? "solution.py" : "solution.js";
}

interface Record_ {
  test?: number;
  status?: string;
  reason?: string;
  value?: string;
  started?: boolean;
  loaded?: boolean;
  done?: boolean;
}

/** The runner's records; a line without the nonce means the program wrote to the file itself. */
function parseRecords(text: string, nonce: string): { records: Record_[]; forged: boolean } {
  const records: Record_[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    let record: (Record_ & { nonce?: unknown }) | undefined;
    try {
      record = JSON.parse(line) as Record_ & { nonce?: unknown };
    } catch {
      return { records, forged: true };
    }
    if (record === null || typeof record !== "object" || record.nonce !== nonce) {
      return { records, forged: true };
    }
    records.push(record);
  }
  return { records, forged: false };
}

async function readResult(run: Run): Promise<string> {
  try {
    return new TextDecoder().decode(await run.sandbox.download(`${run.dir}/result.jsonl`));
  } catch {
    return ""; // the runner never created it: the exec result says why
  }
}

interface RunnerOutcome {
  /** The program (or the test setup) did not load: every result says so. */
  loadFailed: boolean;
  results: CodeTestResult[];
  /** Per test, the returned value's JSON text (call mode). */
  values: (string | undefined)[];
}

/** Runs the runner over `count` tests and turns its records into outcomes. */
async function runRunner(
  run: Run,
  language: CodeLanguage,
  spec: Record<string, unknown>,
  count: number,
): Promise<RunnerOutcome> {
  const python = language === "python";
  const runner = python ? "rllm_runner.py" : "rllm_runner.cjs";
  await run.sandbox.upload([
    { path: `${run.dir}/${runner}`, content: python ? PYTHON_RUNNER : NODE_RUNNER },
  ]);
  const full = {
    result: "result.jsonl",
    timeout: run.options.testTimeoutS,
    stopOnFailure: run.options.stopOnFailure,
    ...spec,
  };
  const budget = (count + 2) * run.options.testTimeoutS + 5;
  const result = await exec(
    run,
    [...interpreter(run, language), runner],
    `${run.nonce}\n${JSON.stringify(full)}`,
    budget,
  );
  const { records, forged } = parseRecords(await readResult(run), run.nonce);
  if (forged) {
    const reason = "the result file holds lines the runner did not write";
    const results = Array.from(
      { length: count },
      (): CodeTestResult => ({ outcome: "error", reason }),
    );
    return { loadFailed: true, results, values: [] };
  }
  if (!records.some((r) => r.started)) {
    throw new Error(
      `the code grader's ${language} runner did not start in the sandbox (${[...interpreter(run, language), runner].join(" ")}): ` +
        `${execFailure(result, "it")?.reason ?? "no result file"}; stderr: ${shorten(result.stderr)}`,
    );
  }
  return outcomesOf(records, count, result);
}

/**
 * Test outcomes from the runner's records. A test without a record is the one the runner died in
 * (the exec result says how) — or, after {done}, one it skipped; what the exec did after {done}
 * (a leftover process) changes no verdict.
 */
function outcomesOf(records: Record_[], count: number, result: ExecResult): RunnerOutcome {
  const values: (string | undefined)[] = [];
  const load = records.find((r) => r.test === -1);
  if (load) {
    const reason = `the program did not load: ${load.reason ?? load.status}`;
    const outcome: CodeTestOutcome = load.status === "timeout" ? "timeout" : "error";
    const results = Array.from({ length: count }, (): CodeTestResult => ({ outcome, reason }));
    return { loadFailed: true, results, values };
  }
  const done = records.some((r) => r.done);
  const byTest = new Map(records.filter((r) => r.test !== undefined).map((r) => [r.test!, r]));
  const results: CodeTestResult[] = [];
  let blamed = done;
  for (let i = 0; i < count; i++) {
    const record = byTest.get(i);
    if (record?.status === "value") {
      results.push({ outcome: "pass" });
      values[i] = record.value;
    } else if (record) {
      const outcome = (record.status ?? "error") as CodeTestOutcome;
      results.push(record.reason ? { outcome, reason: record.reason } : { outcome });
    } else if (blamed) {
      results.push({ outcome: "skipped", reason: "an earlier test did not pass" });
    } else {
      blamed = true;
      const why = execFailure(result) ?? {
        outcome: "error" as const,
        reason: "the program exited (code 0) before the tests finished",
      };
      const loading = !records.some((r) => r.loaded) && why.outcome === "error";
      results.push(loading ? { ...why, reason: `while loading: ${why.reason}` } : why);
    }
  }
  return { loadFailed: false, results, values };
}

/** stdio: one exec per case, judged here. */
async function runStdio(
  run: Run,
  language: CodeLanguage,
  tests: Extract<CodeTests, { kind: "stdio" }>,
): Promise<CodeTestResult[]> {
  const file = programFile(language);
  const results: CodeTestResult[] = [];
  let stop = false;
  for (const testCase of tests.cases) {
    if (stop) {
      results.push({ outcome: "skipped", reason: "an earlier test did not pass" });
      continue;
    }
    if (secondsLeft(run) <= 0) {
      results.push({ outcome: "timeout", reason: BUDGET_SPENT });
      continue;
    }
    // A correct program prints about the expected output: room for twice that, whatever the option.
    const room = Math.max(
      run.options.maxOutputBytes,
      2 * Buffer.byteLength(testCase.output) + 4096,
    );
    const command = [...interpreter(run, language), file];
    const result = await exec(run, command, testCase.input, undefined, room);
    const failure = execFailure(result);
    let outcome: CodeTestResult;
    if (failure) outcome = failure;
    else {
      const mismatch = outputMismatch(result.stdout, testCase.output, tests.compare as never);
      outcome = mismatch
        ? { outcome: "fail", reason: `wrong output: ${mismatch}` }
        : { outcome: "pass" };
    }
    results.push(outcome);
    stop = outcome.outcome !== "pass" && run.options.stopOnFailure;
  }
  return results;
}

/**
 * call: the runner returns values; they are compared here. The runner cannot tell a wrong value,
 * so every call it made is judged (stopOnFailure stops it at errors and timeouts only).
 */
function judgeValues(
  outcome: RunnerOutcome,
  tests: Extract<CodeTests, { kind: "call" }>,
): CodeTestResult[] {
  return outcome.results.map((result, i) => {
    const value = outcome.values[i];
    if (result.outcome !== "pass" || value === undefined) return result;
    const expected = tests.cases[i]!.output;
    if (pyEqual(parsePyJson(value), parsePyJson(expected))) return result;
    return {
      outcome: "fail",
      reason: `wrong answer: expected ${shorten(expected, 100)}, got ${shorten(value, 100)}`,
    };
  });
}

async function runTests(run: Run, task: CodeTask): Promise<CodeTestResult[]> {
  const { tests, language } = task;
  const program = programFile(language);
  switch (tests.kind) {
    case "stdio":
      return runStdio(run, language, tests);
    case "check":
      return (
        await runRunner(
          run,
          language,
          { mode: "check", program, tests: [tests.test], entryPoint: tests.entryPoint },
          1,
        )
      ).results;
    case "asserts":
      return (
        await runRunner(
          run,
          language,
          { mode: "asserts", program, tests: tests.asserts, setup: tests.setup ?? null },
          tests.asserts.length,
        )
      ).results;
    case "call": {
      const spec = {
        mode: "call",
        program,
        fnName: tests.fnName,
        tests: tests.cases.map((c) => c.input),
      };
      const outcome = await runRunner(run, language, spec, tests.cases.length);
      return judgeValues(outcome, tests);
    }
  }
}

/** Checks what the sandbox must hold for `language`; an interpreter that does not run is thrown. */
async function checkInterpreter(run: Run, language: CodeLanguage): Promise<void> {
  const probe = language === "python" ? ["-c", "pass"] : ["-e", ""];
  const result = await exec(run, [...interpreter(run, language), ...probe], undefined, 30);
  if (result.exitCode !== 0) {
    const command = interpreter(run, language).join(" ");
    throw new Error(
      `the code grader cannot run ${language} in the sandbox: "${command}" ${execFailure(result, "it")?.reason ?? "failed"}; ` +
        `set the grader's ${language === "python" ? "python" : "node"} option or the sandbox spec's hostPaths`,
    );
  }
}

function summary(results: CodeTestResult[]): string {
  const passed = results.filter((r) => r.outcome === "pass").length;
  if (passed === results.length) return `all ${results.length} test(s) passed`;
  const index = results.findIndex((r) => r.outcome !== "pass");
  const first = results[index]!;
  return `test ${index + 1} of ${results.length}: ${first.outcome}${first.reason ? ` (${first.reason})` : ""}`;
}

function zero(reason: string, extra: Record<string, unknown> = {}): EvalOutput {
  return { reward: 0, isCorrect: false, metadata: { reason, ...extra } };
}

function graded(results: CodeTestResult[], base: Record<string, unknown>): EvalOutput {
  const passed = results.filter((r) => r.outcome === "pass").length;
  const ok = passed === results.length;
  return {
    reward: ok ? 1 : 0,
    isCorrect: ok,
    metadata: {
      reason: summary(results),
      ...base,
      passed,
      total: results.length,
      tests: results.map((r) => ({ ...r })),
    },
  };
}

function testCount(tests: CodeTests): number {
  switch (tests.kind) {
    case "check":
      return 1;
    case "asserts":
      return tests.asserts.length;
    default:
      return tests.cases.length;
  }
}

/** What runs in the sandbox: a TypeScript task's tests transpiled, its language JavaScript. */
async function runnableTask(task: Task, codeTask: CodeTask): Promise<CodeTask> {
  if (codeTask.language !== "typescript") return codeTask;
  return { ...codeTask, language: "javascript", tests: await transpileTests(task, codeTask.tests) };
}

/**
 * The `code` grader over `source`. Options are checked once, here (unknown keys are an error).
 */
export function codeGrader(
  source: SandboxSource,
  options: CodeGraderOptions = {},
): (task: Task, response: string) => Promise<EvalOutput> {
  const parsed = CodeGraderOptionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`code grader option ${issue.path.join(".") || "(root)"}: ${issue.message}`);
  }
  const opts = parsed.data;
  const checked = new Set<CodeLanguage>();
  return async (task: Task, response: string): Promise<EvalOutput> => {
    const codeTask = readCodeTask(task);
    const runnable = await runnableTask(task, codeTask);
    const extracted = extractProgram(response);
    const from =
      extracted.fence === undefined
        ? "the whole response (no fenced code block)"
        : "the last fenced code block";
    const base = { language: codeTask.language, programFrom: from };
    if (extracted.code.trim() === "") return zero(`no program: ${from} is empty`, base);
    let program = codeTask.prelude ? `${codeTask.prelude}\n${extracted.code}` : extracted.code;
    if (codeTask.language === "typescript") {
      const js = await transpileTypeScript(program, "solution.ts");
      if ("error" in js) {
        const reason = `the program did not load: esbuild: ${js.error}`;
        const count = testCount(codeTask.tests);
        return graded(
          Array.from({ length: count }, (): CodeTestResult => ({ outcome: "error", reason })),
          base,
        );
      }
      program = js.code;
    }
    const sandbox = await source.acquire(opts.spec);
    try {
      const nonce = randomBytes(16).toString("hex");
      const dir = `rllm-code-${nonce.slice(0, 12)}`;
      const run: Run = {
        sandbox,
        dir,
        nonce,
        options: opts,
        deadline: Date.now() + opts.taskTimeoutS * 1000,
      };
      await sandbox.upload([
        { path: `${dir}/${programFile(runnable.language)}`, content: program },
      ]);
      if (!checked.has(runnable.language)) {
        await checkInterpreter(run, runnable.language);
        checked.add(runnable.language);
        run.deadline = Date.now() + opts.taskTimeoutS * 1000;
      }
      return graded(await runTests(run, runnable), base);
    } finally {
      await source.release(sandbox);
    }
  };
}
