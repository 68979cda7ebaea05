/**
 * PrimeIntellect's verifiable coding problems (PrimeIntellect/verifiable-coding-problems, train
 * only), one of rLLM's code training sets (rllm/data/dataset_types.py, PRIMEINTELLECT), graded by
 * `code` with stdin/stdout tests under LiveCodeBench's line rule, as rLLM grades them
 * (rllm/rewards/code_reward.py sends primeintellect through lcb_check_correctness_v2).
 *
 * A row is {source, task_type, in_source_id, prompt, gold_standard_solution, verification_info,
 * metadata, problem_id}; verification_info — JSON text in the original, an object in copies such as
 * open-r1's — is {language, test_cases: [{type, input, output, fn_name}]}, `type` "stdin_stdout" or
 * "function_call". Rows whose language is not Python, or with function-call tests (their arguments
 * and results are Python literals, not the JSON the grader's call tests take), or with no tests, are
 * left out (rowFilter). The prompt already states the language and the stdin/stdout contract, so it
 * is sent as it is, after a system prompt asking for one fenced program.
 *
 * A kept row becomes `data.question`, `data.language` "python", `data.tests` = {kind: "stdio",
 * cases, compare: "lines"}, `data.problemId`, `data.source`, `data.solution` (the gold solution).
 */
import type { Task } from "../types/index.js";
import { CODE_BLOCK_INSTRUCTION } from "./code.js";
import type { BenchmarkEntry } from "./entry.js";
import {
  BenchmarkRowError,
  copyOptionalStrings,
  type Row,
  type RowContext,
  requireScalar,
  requireString,
  requireValue,
} from "./fields.js";
import { taskField } from "./prompts.js";

interface Verification {
  language?: unknown;
  test_cases?: unknown;
}

/** verification_info as an object (it is JSON text in the original), or undefined. */
function verificationOf(row: Row): Verification | undefined {
  let value = row.verification_info;
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Verification)
    : undefined;
}

function isStdioCase(test: unknown): boolean {
  const { type, input, output } = (test ?? {}) as Record<string, unknown>;
  return type === "stdin_stdout" && typeof input === "string" && typeof output === "string";
}

function readCases(row: Row, ctx: RowContext): { input: string; output: string }[] {
  requireValue(row, "verification_info", ctx);
  const info = verificationOf(row);
  const cases = info?.test_cases;
  if (!info || !Array.isArray(cases) || cases.length === 0) {
    throw new BenchmarkRowError(ctx, "verification_info", "must hold test_cases, a non-empty list");
  }
  if (info.language !== "python") {
    throw new BenchmarkRowError(
      ctx,
      "verification_info",
      `is for ${String(info.language)}; only python is used`,
    );
  }
  return cases.map((test, i) => {
    if (!isStdioCase(test)) {
      throw new BenchmarkRowError(
        ctx,
        `verification_info.test_cases[${i}]`,
        'must be {type: "stdin_stdout", input: string, output: string}',
      );
    }
    const { input, output } = test as { input: string; output: string };
    return { input, output };
  });
}

export const primeintellect: BenchmarkEntry = {
  name: "primeintellect",
  description:
    "PrimeIntellect verifiable coding problems (SYNTHETIC-1): competitive-programming problems with stdin/stdout tests, for RL training; the Python ones.",
  source: {
    hfDataset: "PrimeIntellect/verifiable-coding-problems",
    splits: ["train"],
    defaultSplit: "train",
  },
  rowFilter: {
    reason:
      "rows that are not Python, have function-call tests or have no tests are left out; see primeintellect.ts",
    keep(row) {
      const info = verificationOf(row);
      const cases = info?.test_cases;
      return (
        info?.language === "python" &&
        Array.isArray(cases) &&
        cases.length > 0 &&
        cases.every(isStdioCase)
      );
    },
  },
  toTask(row, index, split) {
    const ctx: RowContext = { benchmark: "primeintellect", split, index };
    const problemId = requireScalar(row, "problem_id", ctx);
    const question = requireString(row, ["prompt", "problem_statement", "problem"], ctx);
    const cases = readCases(row, ctx);
    const data: Record<string, unknown> = {
      question,
      language: "python",
      tests: { kind: "stdio", cases, compare: "lines" },
      problemId,
    };
    copyOptionalStrings(row, ["source"], data);
    if (typeof row.gold_standard_solution === "string") data.solution = row.gold_standard_solution;
    return { id: `primeintellect/${problemId}`, dataSource: "primeintellect", index, data };
  },
  grader: "code",
  systemPrompt: `You are an expert competitive programmer. ${CODE_BLOCK_INSTRUCTION}`,
  userPrompt: (task: Task) => taskField(task, "question"),
  defaultAgent: "single-turn",
};
