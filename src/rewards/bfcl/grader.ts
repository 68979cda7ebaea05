/**
 * The `bfcl` grader: a prompt-mode model's function calls (parse.ts) checked against a BFCL task's
 * possible answers by BFCL's AST check (ast-match.ts). Reward 1 when the check passes, else 0.
 *
 * The task (a dataset error naming the field when it does not fit):
 * - `data.functions`: the function docs offered to the model, BFCL's format
 *   (`{name, parameters: {properties: {p: {type, items?}}, required}}`, other keys ignored; an
 *   absent `required` means none). Every parameter type must be one BFCL's Python checker knows
 *   (string, integer, float, boolean, array, tuple, dict, any), and arrays and tuples need
 *   `items.type`.
 * - `data.groundTruth`: BFCL's possible answer, `[{"func": {"param": [acceptable values]}}]`, each
 *   function named among `data.functions`; exactly one entry for "simple" and "multiple".
 * - `data.category`: "simple" | "multiple" | "parallel" | "parallel_multiple".
 *
 * Metadata: `calls` (the decoded calls, `{name, args}`) or `parseError`; when the check fails,
 * `errorType` (BFCL's string: "ast_decoder:decoder_failed" for output that does not parse, else the
 * checker's, e.g. "simple_function_checker:wrong_count") and `errors` (what differs).
 */
import { z } from "zod";
import type { EvalOutput, Task } from "../../types/index.js";
import type { Grader } from "../types.js";
import {
  type BfclAnswer,
  type BfclCategory,
  type BfclFunctionDoc,
  checkBfcl,
  DOC_TYPES,
} from "./ast-match.js";
import { parseBfclCalls } from "./parse.js";
import { toPlain } from "./value.js";

const TypeSchema = z.object({ type: z.string() }).passthrough();

const FunctionDocSchema = z
  .object({
    name: z.string().min(1),
    parameters: z
      .object({
        properties: z.record(z.string(), TypeSchema.extend({ items: TypeSchema.optional() })),
        required: z.array(z.string()).default([]),
      })
      .passthrough(),
  })
  .passthrough();

const BfclTaskSchema = z
  .object({
    functions: z.array(FunctionDocSchema).min(1),
    groundTruth: z
      .array(
        z
          .record(z.string(), z.record(z.string(), z.array(z.unknown())))
          .refine((call) => Object.keys(call).length === 1, "must name exactly one function"),
      )
      .min(1),
    category: z.enum(["simple", "multiple", "parallel", "parallel_multiple"]),
  })
  .passthrough();

interface BfclTask {
  docs: BfclFunctionDoc[];
  answers: BfclAnswer[];
  category: BfclCategory;
}

export const BfclGraderOptionsSchema = z
  .object({
    /**
     * Expect function names with "." written as "_" (BFCL's `underscore_to_dot` models: tool APIs
     * such as OpenAI's forbid dots in names). Default false: prompt mode, names as given.
     */
    underscoreToDot: z.boolean().default(false),
  })
  .strict();

export type BfclGraderOptions = z.input<typeof BfclGraderOptionsSchema>;

const taskError = (task: Task, field: string, message: string) =>
  new Error(
    `task ${task.id}: data.${field} ${message} (the bfcl grader's task format: rewards/bfcl/grader.ts)`,
  );

/** The checks the zod schema cannot make: known types, answers naming offered functions. */
function crossCheck(
  task: Task,
  docs: BfclFunctionDoc[],
  answers: BfclAnswer[],
  category: BfclCategory,
) {
  for (const [i, doc] of docs.entries()) {
    for (const [param, schema] of Object.entries(doc.parameters.properties)) {
      const field = `functions[${i}].parameters.properties.${param}`;
      if (!Object.hasOwn(DOC_TYPES, schema.type)) {
        throw taskError(
          task,
          `${field}.type`,
          `is "${schema.type}", which BFCL's checker does not know (known: ${Object.keys(DOC_TYPES).join(", ")})`,
        );
      }
      if (schema.type === "array" || schema.type === "tuple") {
        const item = schema.items?.type;
        if (item === undefined || !Object.hasOwn(DOC_TYPES, item)) {
          throw taskError(
            task,
            `${field}.items.type`,
            `must be one of ${Object.keys(DOC_TYPES).join(", ")} for an ${schema.type}; got ${item ?? "nothing"}`,
          );
        }
      }
    }
  }
  for (const [i, answer] of answers.entries()) {
    if (!docs.some((d) => d.name === answer.name)) {
      throw taskError(
        task,
        `groundTruth[${i}]`,
        `names ${answer.name}, which is not in data.functions`,
      );
    }
  }
  if ((category === "simple" || category === "multiple") && answers.length !== 1) {
    throw taskError(
      task,
      "groundTruth",
      `has ${answers.length} calls; a "${category}" task has exactly one`,
    );
  }
}

const parsedTasks = new WeakMap<object, BfclTask>();

/** The task's functions, answers and category, checked once per task data object. */
function readBfclTask(task: Task): BfclTask {
  const cached = parsedTasks.get(task.data);
  if (cached) return cached;
  const parsed = BfclTaskSchema.safeParse(task.data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path
      .map((key) => (typeof key === "number" ? `[${key}]` : `.${String(key)}`))
      .join("")
      .replace(/^\./, "");
    throw taskError(task, field || "(root)", issue.message);
  }
  const { functions, groundTruth, category } = parsed.data;
  const answers = groundTruth.map((call) => {
    const [name, params] = Object.entries(call)[0]!;
    return { name, params: Object.entries(params) };
  });
  crossCheck(task, functions, answers, category);
  const result = { docs: functions, answers, category };
  parsedTasks.set(task.data, result);
  return result;
}

/** The BFCL grader (see the header); `bfclGrader()` is prompt mode. */
export function bfclGrader(options: BfclGraderOptions = {}): Grader {
  const { underscoreToDot } = BfclGraderOptionsSchema.parse(options);
  return (task, response): EvalOutput => {
    const { docs, answers, category } = readBfclTask(task);
    const parsed = parseBfclCalls(response);
    if (!parsed.ok) {
      return {
        reward: 0,
        isCorrect: false,
        metadata: { parseError: parsed.error, errorType: "ast_decoder:decoder_failed" },
      };
    }
    const calls = parsed.calls.map((c) => ({
      name: c.name,
      args: Object.fromEntries(c.args.map(([k, v]) => [k, toPlain(v)])),
    }));
    const check = checkBfcl(docs, parsed.calls, answers, category, { underscoreToDot });
    if (check.valid) return { reward: 1, isCorrect: true, metadata: { calls } };
    return {
      reward: 0,
      isCorrect: false,
      metadata: { calls, errorType: check.errorType, errors: check.errors },
    };
  };
}
