/**
 * The code benchmarks of the catalog, graded by `code` (rewards/code.ts). Each row becomes
 * `task.data` = {question, language, prelude?, tests, ...extras}, the shape the grader reads
 * (CodeTaskSchema); the tests by kind:
 * - humaneval: `check` — the row's `test` (a check(candidate) function) with its `entry_point`; the
 *   row's prompt (imports, signature, docstring) is the prelude, so a response may give the whole
 *   function or only its body. `data.solution` is the canonical body.
 * - mbpp: `asserts` — test_list then challenge_test_list, each assert one test, after
 *   test_setup_code. The prompt shows test_list (the MBPP paper's prompt), so the model knows the
 *   function's name. Splits by task_id, as the MBPP README and the Hub's release: prompt 1-10,
 *   test 11-510, validation 511-600, train 601-974; a `--data-dir` may hold them as one `full`
 *   file (the published mbpp.jsonl).
 * - livecodebench: see livecodebench.ts.
 */
import type { Task } from "../types/index.js";
import type { BenchmarkEntry } from "./entry.js";
import {
  BenchmarkRowError,
  type RowContext,
  requireInteger,
  requireString,
  requireValue,
} from "./fields.js";

/** How code benchmarks ask for the program: the grader takes the last fenced block. */
export const CODE_BLOCK_INSTRUCTION =
  "Give your final program in one fenced code block (```python ... ```); the last code block of " +
  "your reply is the one that is run.";

function ctxOf(benchmark: string, split: string, index: number): RowContext {
  return { benchmark, split, index };
}

function requireStrings(row: Record<string, unknown>, name: string, ctx: RowContext): string[] {
  const value = requireValue(row, name, ctx);
  if (!Array.isArray(value) || !value.every((s) => typeof s === "string")) {
    throw new BenchmarkRowError(ctx, name, "must be a list of strings");
  }
  return value;
}

function promptField(task: Task, field: string): string {
  const value = task.data[field];
  if (typeof value !== "string" || value === "") {
    throw new Error(
      `task ${task.id}: data.${field} must be a non-empty string to build the prompt`,
    );
  }
  return value;
}

export const humaneval: BenchmarkEntry = {
  name: "humaneval",
  description:
    "HumanEval (Chen et al., 2021): 164 Python functions to complete from a signature and docstring, checked by unit tests.",
  source: {
    hfDataset: "openai/openai_humaneval",
    config: "openai_humaneval",
    splits: ["test"],
    defaultSplit: "test",
    files: { test: "openai_humaneval/test-00000-of-00001.parquet" },
  },
  toTask(row, index, split) {
    const ctx = ctxOf("humaneval", split, index);
    const taskId = requireString(row, "task_id", ctx);
    const prompt = requireString(row, "prompt", ctx);
    const entryPoint = requireString(row, "entry_point", ctx);
    const test = requireString(row, "test", ctx);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(entryPoint)) {
      throw new BenchmarkRowError(ctx, "entry_point", "must be a Python identifier");
    }
    const data: Record<string, unknown> = {
      question: prompt,
      language: "python",
      prelude: prompt,
      tests: { kind: "check", test, entryPoint },
      taskId,
    };
    if (typeof row.canonical_solution === "string") data.solution = row.canonical_solution;
    return { id: `humaneval/${taskId}`, dataSource: "humaneval", index, data };
  },
  grader: "code",
  systemPrompt:
    "You are an expert Python programmer. Complete the function you are given. Reply with the " +
    "complete function — its signature, body and any imports it needs — and no tests or example " +
    `usage. ${CODE_BLOCK_INSTRUCTION}`,
  userPrompt(task) {
    return `Complete this function:\n\n\`\`\`python\n${promptField(task, "question")}\`\`\``;
  },
  defaultAgent: "single-turn",
};

/** MBPP's splits by task_id (google-research mbpp README; the Hub's `full` config). */
export function mbppSplitOf(taskId: number): string | undefined {
  if (taskId >= 1 && taskId <= 10) return "prompt";
  if (taskId >= 11 && taskId <= 510) return "test";
  if (taskId >= 511 && taskId <= 600) return "validation";
  if (taskId >= 601 && taskId <= 974) return "train";
  return undefined;
}

export const mbpp: BenchmarkEntry = {
  name: "mbpp",
  description:
    "MBPP (Austin et al., 2021): 974 short Python programming problems, each checked by 3 asserts (plus challenge asserts on a few).",
  source: {
    hfDataset: "google-research-datasets/mbpp",
    config: "full",
    splits: ["test", "train", "validation", "prompt"],
    defaultSplit: "test",
    files: {
      test: "full/test-00000-of-00001.parquet",
      train: "full/train-00000-of-00001.parquet",
      validation: "full/validation-00000-of-00001.parquet",
      prompt: "full/prompt-00000-of-00001.parquet",
    },
    oneFile: {
      name: "full",
      splitOf(row, index) {
        const taskId = requireInteger(row, "task_id", ctxOf("mbpp", "full", index));
        return mbppSplitOf(taskId);
      },
    },
  },
  toTask(row, index, split) {
    const ctx = ctxOf("mbpp", split, index);
    const taskId = requireInteger(row, "task_id", ctx);
    const text = requireString(row, "text", ctx);
    const shown = requireStrings(row, "test_list", ctx);
    if (shown.length === 0) throw new BenchmarkRowError(ctx, "test_list", "is empty");
    const challenge =
      row.challenge_test_list == null ? [] : requireStrings(row, "challenge_test_list", ctx);
    const setup = typeof row.test_setup_code === "string" ? row.test_setup_code : "";
    const tests: Record<string, unknown> = { kind: "asserts", asserts: [...shown, ...challenge] };
    if (setup.trim() !== "") tests.setup = setup;
    const data: Record<string, unknown> = {
      question: text,
      language: "python",
      tests,
      shownTests: shown,
      taskId,
    };
    if (typeof row.code === "string") data.solution = row.code;
    return { id: `mbpp/${taskId}`, dataSource: "mbpp", index, data };
  },
  grader: "code",
  systemPrompt: `You are an expert Python programmer. Write the function the task asks for. ${CODE_BLOCK_INSTRUCTION}`,
  userPrompt(task) {
    const shown = task.data.shownTests;
    if (!Array.isArray(shown)) {
      throw new Error(`task ${task.id}: data.shownTests must be the asserts shown in the prompt`);
    }
    return `${promptField(task, "question")}\nYour code should pass these tests:\n\n${shown.join("\n")}`;
  },
  defaultAgent: "single-turn",
};
