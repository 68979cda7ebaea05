/**
 * Instruction following: IFEval (google/IFEval) and IFBench (allenai/IFBench_test), graded by
 * `ifeval` and `ifbench`. Both publish rows {key, prompt, instruction_id_list, kwargs}: kwargs holds
 * one object per instruction id, in the same order, with that instruction's arguments. A row
 * becomes `data.prompt`, `data.instructionIds` and `data.kwargs` (the objects as given — in the
 * Hub's Parquet conversion every object carries every argument name, the unused ones null; the
 * graders ignore null values), plus `data.key`.
 *
 * Prompting follows both benchmarks' own runs: the prompt alone as the user message, no system
 * prompt (an added instruction would change what is being measured).
 *
 * Sources: IFEval's repo holds ifeval_input_data.jsonl (541 rows, the Hub's "train" split, kept
 * under that name as rLLM does); IFBench_test's only Hub split is "train" (300 rows), ours "test",
 * read from the Hub's Parquet conversion.
 */
import type { BenchmarkEntry, BenchmarkSource } from "./entry.js";
import {
  BenchmarkRowError,
  optionalScalar,
  type Row,
  type RowContext,
  requireString,
  requireValue,
} from "./fields.js";
import { taskField } from "./prompts.js";

/** The instruction ids and their kwargs, checked to be parallel lists of strings and objects. */
function readInstructions(
  row: Row,
  ctx: RowContext,
): { instructionIds: string[]; kwargs: Record<string, unknown>[] } {
  const ids = requireValue(row, "instruction_id_list", ctx);
  if (!Array.isArray(ids) || ids.length === 0 || !ids.every((id) => typeof id === "string")) {
    throw new BenchmarkRowError(ctx, "instruction_id_list", "must be a non-empty list of strings");
  }
  const kwargs = requireValue(row, "kwargs", ctx);
  if (!Array.isArray(kwargs)) {
    throw new BenchmarkRowError(ctx, "kwargs", "must be a list of objects, one per instruction");
  }
  if (kwargs.length !== ids.length) {
    throw new BenchmarkRowError(
      ctx,
      "kwargs",
      `holds ${kwargs.length} objects for ${ids.length} instruction ids; they must pair up`,
    );
  }
  kwargs.forEach((item, i) => {
    if (item === null || typeof item !== "object" || Array.isArray(item)) {
      throw new BenchmarkRowError(
        ctx,
        `kwargs[${i}]`,
        "must be an object (the instruction's arguments)",
      );
    }
  });
  return { instructionIds: ids as string[], kwargs: kwargs as Record<string, unknown>[] };
}

function instructionEntry(
  name: string,
  description: string,
  grader: "ifeval" | "ifbench",
  source: BenchmarkSource,
): BenchmarkEntry {
  return {
    name,
    description,
    source,
    toTask(row, index, split) {
      const ctx: RowContext = { benchmark: name, split, index };
      const prompt = requireString(row, "prompt", ctx);
      const { instructionIds, kwargs } = readInstructions(row, ctx);
      const key = optionalScalar(row, "key");
      const data: Record<string, unknown> = { prompt, instructionIds, kwargs };
      if (key !== undefined) data.key = key;
      return {
        id: key === undefined ? `${name}/${split}/${index}` : `${name}/${key}`,
        dataSource: name,
        index,
        data,
      };
    },
    grader,
    systemPrompt: "",
    userPrompt: (task) => taskField(task, "prompt"),
    defaultAgent: "single-turn",
  };
}

/** The instruction-following rows, in catalog order. */
export const INSTRUCTION_BENCHMARKS: readonly BenchmarkEntry[] = [
  instructionEntry(
    "ifeval",
    "IFEval (Zhou et al., 2023): 541 prompts with 25 kinds of verifiable instructions (length, format, keywords...).",
    "ifeval",
    {
      hfDataset: "google/IFEval",
      splits: ["train"],
      defaultSplit: "train",
      files: { train: "ifeval_input_data.jsonl" },
    },
  ),
  instructionEntry(
    "ifbench",
    "IFBench (Pyatkin et al., 2025): 300 prompts with 58 new, out-of-distribution verifiable constraints.",
    "ifbench",
    {
      hfDataset: "allenai/IFBench_test",
      splits: ["test"],
      defaultSplit: "test",
      hfSplits: { test: "train" },
    },
  ),
];
