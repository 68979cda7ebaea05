/**
 * The APPS-format code rows, graded by `code` with stdin/stdout tests — two of the code sets rLLM
 * trains and tests on (rllm/data/dataset_types.py: APPS, TACO; its reward runs both through the TACO
 * test runner, rllm/rewards/code_utils/taco.py):
 * - apps (codeparrot/apps; Hendrycks et al., 2021): 10,000 problems (5,000 train, 5,000 test) from
 *   Codeforces, Kattis, AtCoder and others; the repo holds train.jsonl and test.jsonl. Task ids
 *   are APPS's problem_ids.
 * - taco (BAAI/TACO; Li et al., 2023): 25,443 train and 1,000 test problems in APPS's row format,
 *   config ALL (Parquet shards). TACO rows have no id: task ids are `taco/<split>/<position>`.
 *
 * A row is {question, solutions, input_output, difficulty, url, starter_code, ...}, with
 * `solutions` and `input_output` JSON text. input_output is {inputs, outputs} (stdin and expected
 * stdout per test; a test may be a list of lines, joined with newlines) and, for call-based
 * problems, `fn_name`. Two kinds of row are left out (rowFilter): rows without tests (an empty
 * input_output, as some train rows have), and call-based rows, whose expected values these
 * datasets wrap in a one-element list or not from row to row — TACO's runner accepts either, which
 * the code grader's call tests cannot say, so those rows would score right answers 0. Row
 * positions count the kept rows.
 *
 * A kept row becomes `data.question`, `data.language` "python", `data.tests` = {kind: "stdio",
 * cases, compare: "whitespace"} (the grader's APPS/TACO tolerance: spacing and line breaks do not
 * matter), plus `data.difficulty`, `data.url`, `data.problemId` (APPS) and `data.solution` (the
 * first reference solution).
 */
import type { Task } from "../types/index.js";
import { CODE_BLOCK_INSTRUCTION } from "./code.js";
import type { BenchmarkEntry } from "./entry.js";
import {
  BenchmarkRowError,
  copyOptionalStrings,
  type Row,
  type RowContext,
  requireInteger,
  requireString,
} from "./fields.js";
import { taskField } from "./prompts.js";

interface AppsTests {
  inputs: unknown[];
  outputs: unknown[];
  fn_name?: unknown;
}

/** input_output parsed, or undefined when the row has no usable tests object. */
function parseTests(row: Row): AppsTests | undefined {
  const text = row.input_output;
  if (typeof text !== "string" || text.trim() === "") return undefined;
  try {
    const value = JSON.parse(text) as AppsTests;
    return Array.isArray(value?.inputs) && Array.isArray(value?.outputs) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** A test's stdin or stdout: a string, or a list of lines. */
function ioText(value: unknown, ctx: RowContext, what: string): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value) && value.every((line) => typeof line === "string"))
    return value.join("\n");
  throw new BenchmarkRowError(ctx, "input_output", `${what} must be a string or a list of lines`);
}

function readCases(row: Row, ctx: RowContext): { input: string; output: string }[] {
  requireString(row, "input_output", ctx);
  const tests = parseTests(row);
  if (!tests) {
    throw new BenchmarkRowError(
      ctx,
      "input_output",
      "must be JSON text of {inputs: [...], outputs: [...]}",
    );
  }
  if (tests.fn_name !== undefined && tests.fn_name !== null) {
    throw new BenchmarkRowError(
      ctx,
      "input_output",
      "is call-based (fn_name); only stdin problems are used",
    );
  }
  if (tests.inputs.length === 0 || tests.inputs.length !== tests.outputs.length) {
    throw new BenchmarkRowError(
      ctx,
      "input_output",
      `must pair each input with an output (got ${tests.inputs.length} inputs, ${tests.outputs.length} outputs)`,
    );
  }
  return tests.inputs.map((input, i) => ({
    input: ioText(input, ctx, `inputs[${i}]`),
    output: ioText(tests.outputs[i], ctx, `outputs[${i}]`),
  }));
}

function firstSolution(row: Row): string | undefined {
  if (typeof row.solutions !== "string") return undefined;
  try {
    const solutions: unknown = JSON.parse(row.solutions);
    return Array.isArray(solutions) && typeof solutions[0] === "string" ? solutions[0] : undefined;
  } catch {
    return undefined;
  }
}

const APPS_PROMPTING = {
  grader: "code",
  systemPrompt:
    "You are an expert competitive programmer. Write a Python 3 program that reads the input from " +
    `standard input and writes the answer to standard output. ${CODE_BLOCK_INSTRUCTION}`,
  userPrompt: (task: Task) => taskField(task, "question"),
  defaultAgent: "single-turn",
} as const;

const APPS_FILTER = {
  reason: "rows without tests and call-based rows (fn_name) are left out; see apps.ts",
  keep(row: Row) {
    const tests = parseTests(row);
    return tests !== undefined && tests.inputs.length > 0 && (tests.fn_name ?? null) === null;
  },
};

/** A row of the APPS format as a stdio code task; `withId` reads the row's own id, if it has one. */
function appsTask(name: string, row: Row, index: number, split: string, withId: boolean): Task {
  const ctx: RowContext = { benchmark: name, split, index };
  const problemId = withId ? requireInteger(row, "problem_id", ctx) : undefined;
  const question = requireString(row, "question", ctx);
  const cases = readCases(row, ctx);
  const data: Record<string, unknown> = {
    question,
    language: "python",
    tests: { kind: "stdio", cases, compare: "whitespace" },
  };
  if (problemId !== undefined) data.problemId = problemId;
  copyOptionalStrings(row, ["difficulty", "url"], data);
  const solution = firstSolution(row);
  if (solution !== undefined) data.solution = solution;
  const id = problemId === undefined ? `${split}/${index}` : String(problemId);
  return { id: `${name}/${id}`, dataSource: name, index, data };
}

export const apps: BenchmarkEntry = {
  name: "apps",
  description:
    "APPS (Hendrycks et al., 2021): Python problems from competitive-programming sites, introductory to competition level; the stdin/stdout ones, checked by their tests.",
  source: {
    hfDataset: "codeparrot/apps",
    splits: ["test", "train"],
    defaultSplit: "test",
    files: { test: "test.jsonl", train: "train.jsonl" },
  },
  rowFilter: APPS_FILTER,
  toTask: (row, index, split) => appsTask("apps", row, index, split, true),
  ...APPS_PROMPTING,
};

export const taco: BenchmarkEntry = {
  name: "taco",
  description:
    "TACO (Li et al., 2023): algorithmic problems in APPS's format (25,443 train, 1,000 test); the stdin/stdout ones, checked by their tests.",
  source: {
    hfDataset: "BAAI/TACO",
    config: "ALL",
    splits: ["test", "train"],
    defaultSplit: "test",
  },
  rowFilter: APPS_FILTER,
  toTask: (row, index, split) => appsTask("taco", row, index, split, false),
  ...APPS_PROMPTING,
};
