/**
 * BFCL, the Berkeley Function Calling Leaderboard (gorilla-llm/Berkeley-Function-Calling-Leaderboard),
 * its single-turn AST categories in Python, graded by `bfcl` (AST match against possible answers).
 *
 * Source: the Hub repo holds plain files, one per category, JSON objects one per line despite the
 * `.json` ending (load.ts reads both shapes): BFCL_v3_<category>.json with rows {id, question,
 * function} and possible_answer/BFCL_v3_<category>.json with rows {id, ground_truth}, joined here
 * by `id` (`source.companion`: the answer row lands under `possible_answer`). Our splits are the
 * categories simple, multiple, parallel and parallel_multiple (BFCL v4 renames simple to
 * simple_python and keeps the rows' format). A row becomes
 * - `data.functions`: the function docs as given ({name, description, parameters}),
 * - `data.groundTruth`: the possible answers, `[{"func": {"param": [acceptable values...]}}]`,
 * - `data.category`: the split,
 * - `data.messages`: the question's single turn (`question[0]`, a list of {role, content}).
 * A row whose id has no possible answer is an error naming `possible_answer`.
 *
 * Prompting is BFCL's prompt mode for chat models (bfcl_eval: DEFAULT_SYSTEM_PROMPT and
 * system_prompt_pre_processing_chat_model): a system prompt asking for the calls alone as
 * `[func(a=1), other(b="x")]` and listing the functions as JSON, placed before a system message the
 * turn already has; each function's description gains BFCL's note that it is in Python 3 syntax.
 */
import type { ChatMessage, Task } from "../types/index.js";
import type { BenchmarkEntry } from "./entry.js";
import {
  BenchmarkRowError,
  type Row,
  type RowContext,
  requireString,
  requireValue,
} from "./fields.js";

const CATEGORIES = ["simple", "multiple", "parallel", "parallel_multiple"] as const;

/** BFCL's prompt-mode instructions; the functions' JSON follows them. */
const BFCL_SYSTEM_PROMPT =
  "You are an expert in composing functions. You are given a question and a set of possible functions. " +
  "Based on the question, you will need to make one or more function/tool calls to achieve the purpose.\n" +
  "If none of the functions can be used, point it out. If the given question lacks the parameters " +
  "required by the function, also point it out.\nYou should only return the function calls in your response.\n\n" +
  "If you decide to invoke any of the function(s), you MUST put it in the format of " +
  "[func_name1(params_name1=params_value1, params_name2=params_value2...), func_name2(params)]\n" +
  "You SHOULD NOT include any other text in the response.\n\n" +
  "Here is a list of functions in JSON format that you can invoke.\n";

const PYTHON_NOTE = " Note that the provided function is in Python 3 syntax.";

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function readFunctions(row: Row, ctx: RowContext): Record<string, unknown>[] {
  const functions = requireValue(row, "function", ctx);
  if (!Array.isArray(functions) || functions.length === 0) {
    throw new BenchmarkRowError(ctx, "function", "must be a non-empty list of function docs");
  }
  functions.forEach((doc, i) => {
    if (!isObject(doc) || typeof doc.name !== "string" || !isObject(doc.parameters)) {
      throw new BenchmarkRowError(ctx, `function[${i}]`, "must be {name, description, parameters}");
    }
  });
  return functions as Record<string, unknown>[];
}

function readTurn(row: Row, ctx: RowContext): ChatMessage[] {
  const question = requireValue(row, "question", ctx);
  const turn = Array.isArray(question) ? question[0] : undefined;
  if (!Array.isArray(turn) || turn.length === 0 || (question as unknown[]).length !== 1) {
    throw new BenchmarkRowError(
      ctx,
      "question",
      "must hold exactly one turn, a non-empty list of messages",
    );
  }
  return turn.map((message, i): ChatMessage => {
    const { role, content } = (message ?? {}) as { role?: unknown; content?: unknown };
    if (
      (role !== "system" && role !== "user" && role !== "assistant") ||
      typeof content !== "string"
    ) {
      throw new BenchmarkRowError(
        ctx,
        `question[0][${i}]`,
        "must be {role, content} with a string content",
      );
    }
    return { role, content };
  });
}

function readGroundTruth(row: Row, ctx: RowContext): unknown[] {
  const answer = requireValue(row, "possible_answer", ctx);
  const truth = isObject(answer) ? answer.ground_truth : undefined;
  if (!Array.isArray(truth) || truth.length === 0 || !truth.every(isObject)) {
    throw new BenchmarkRowError(
      ctx,
      "possible_answer",
      'must hold ground_truth, a non-empty list of {"function": {"param": [values...]}}',
    );
  }
  return truth;
}

/** The system prompt of a task: BFCL's instructions and its function docs, Python-noted. */
function systemPromptOf(task: Task): string {
  const functions = task.data.functions;
  if (!Array.isArray(functions))
    throw new Error(`task ${task.id}: data.functions must list the function docs`);
  const noted = functions.map((doc) => {
    const description = typeof doc?.description === "string" ? doc.description : "";
    return { ...doc, description: description + PYTHON_NOTE };
  });
  return `${BFCL_SYSTEM_PROMPT}${JSON.stringify(noted, null, 4)}\n`;
}

function turnOf(task: Task): ChatMessage[] {
  const messages = task.data.messages;
  if (!Array.isArray(messages) || messages.length === 0) {
    throw new Error(`task ${task.id}: data.messages must hold the question's turn`);
  }
  return messages as ChatMessage[];
}

export const bfcl: BenchmarkEntry = {
  name: "bfcl",
  description:
    "BFCL v3 (Patil et al.): single-turn Python function calling — simple (400), multiple (200), parallel (200), parallel_multiple (200) — checked by AST match.",
  source: {
    hfDataset: "gorilla-llm/Berkeley-Function-Calling-Leaderboard",
    splits: [...CATEGORIES],
    defaultSplit: "simple",
    files: Object.fromEntries(CATEGORIES.map((c) => [c, `BFCL_v3_${c}.json`])),
    companion: {
      files: Object.fromEntries(CATEGORIES.map((c) => [c, `possible_answer/BFCL_v3_${c}.json`])),
      key: "id",
      field: "possible_answer",
    },
  },
  toTask(row, index, split) {
    const ctx: RowContext = { benchmark: "bfcl", split, index };
    const id = requireString(row, "id", ctx);
    const functions = readFunctions(row, ctx);
    const messages = readTurn(row, ctx);
    const groundTruth = readGroundTruth(row, ctx);
    return {
      id: `bfcl/${id}`,
      dataSource: "bfcl",
      index,
      data: { functions, groundTruth, category: split, messages },
    };
  },
  grader: "bfcl",
  systemPrompt: BFCL_SYSTEM_PROMPT,
  userPrompt(task) {
    return turnOf(task)
      .filter((m) => m.role === "user")
      .map((m) => String(m.content))
      .join("\n\n");
  },
  messages(task) {
    const turn = turnOf(task).map((m) => ({ ...m }));
    const system = systemPromptOf(task);
    if (turn[0]?.role === "system") {
      turn[0] = { role: "system", content: `${system}\n\n${String(turn[0].content)}` };
      return turn;
    }
    return [{ role: "system", content: system }, ...turn];
  },
  defaultAgent: "single-turn",
};
