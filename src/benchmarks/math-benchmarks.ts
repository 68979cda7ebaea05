/**
 * The maths rows of the catalog beyond gsm8k/math500/AIME (catalog.ts), all graded by `math` and
 * prompted alike (prompts.ts: the problem as the user message, the answer in \boxed{}). Each row
 * becomes `data.question` and `data.answer` (a string), plus the dataset's extras. Sources, as
 * rLLM registers them (rllm/registry/datasets.json, rllm/data/transforms.py) and, for the rows rLLM
 * lists only as training/test sets (rllm/data/dataset_types.py: AMC, Minerva, OlympiadBench,
 * Omni-MATH), their usual Hub copies:
 * - hendrycks_math: EleutherAI/hendrycks_math, one Hub config per subject (algebra ... precalculus,
 *   seven); a split is that split of every config, in name order (`source.allConfigs`; each row's
 *   `type` names its subject). The answer is the solution's last \boxed{} (a solution without one
 *   is a row error: the dataset has no other answer).
 * - deepscaler_math: agentica-org/DeepScaleR-Preview-Dataset (train only), `answer` as given.
 * - MathArena competitions (hmmt = HMMT February 2025, hmmt_nov, aime_2026, hmmt_feb_2024,
 *   brumo_2025, cmimc_2025, smt_2025, apex_2025): one Parquet file data/train-00000-of-00001.parquet,
 *   rows {problem_idx, problem, answer, problem_type?}; our split "test" is the Hub's "train".
 * - polymath: Qwen/PolyMath, one file `<lang>/<level>.parquet` per language (18) and difficulty
 *   (top, high, medium, low); our split names are `<lang>_<level>` ("en_top"), so one run is one
 *   language at one level, and `data.language` records it. Questions are in that language.
 * - amc: AI-MO/aimo-validation-amc (83 AMC 12 2022-2023 problems; answers are numbers).
 * - minerva: math-ai/minervamath (272 undergraduate STEM problems, test.jsonl).
 * - olympiadbench: Hothan/OlympiadBench, config OE_TO_maths_en_COMP (text-only, open-ended, English
 *   competition maths); `final_answer` is a list — several answers are joined with ", " — and an
 *   answer wrapped in one pair of `$` loses them.
 * - omni_math: KbsdJames/Omni-MATH (4,428 olympiad problems, test.jsonl).
 */
import { lastBoxed } from "../rewards/extract.js";
import type { BenchmarkEntry, BenchmarkSource } from "./entry.js";
import {
  BenchmarkRowError,
  copyOptionalStrings,
  optionalScalar,
  type Row,
  type RowContext,
  requireScalar,
  requireString,
  requireValue,
} from "./fields.js";
import { MATH_PROMPTING } from "./prompts.js";

interface MathRowSpec {
  name: string;
  description: string;
  source: BenchmarkSource;
  /** The problem's field (accepted spellings, canonical first). */
  question: string | readonly string[];
  /** The ground truth; default: the `answer` field as a string. */
  answer?(row: Row, ctx: RowContext): string;
  /** The row's own id field, when it has one: task ids become `<name>/<id>`. */
  id?: string | readonly string[];
  /** Optional string fields copied into `data` as they are. */
  extras?: readonly string[];
  /** Other fields for `data` (lists, numbers), read from the row. */
  more?(row: Row, split: string): Record<string, unknown>;
}

function mathEntry(spec: MathRowSpec): BenchmarkEntry {
  return {
    name: spec.name,
    description: spec.description,
    source: spec.source,
    toTask(row, index, split) {
      const ctx: RowContext = { benchmark: spec.name, split, index };
      const question = requireString(row, spec.question, ctx);
      const answer = spec.answer ? spec.answer(row, ctx) : requireScalar(row, "answer", ctx);
      const data: Record<string, unknown> = { question, answer };
      copyOptionalStrings(row, spec.extras ?? [], data);
      Object.assign(data, spec.more?.(row, split));
      const ownId = spec.id === undefined ? undefined : optionalScalar(row, spec.id);
      const id = ownId === undefined ? `${split}/${index}` : ownId;
      return { id: `${spec.name}/${id}`, dataSource: spec.name, index, data };
    },
    ...MATH_PROMPTING,
  };
}

/** A list of strings in the row, or undefined when the field is absent or holds anything else. */
function stringList(row: Row, name: string): string[] | undefined {
  const value = row[name];
  return Array.isArray(value) && value.every((s) => typeof s === "string") ? value : undefined;
}

/** MATH's ground truth: the last \boxed{} of the worked solution. */
function boxedAnswerOf(row: Row, ctx: RowContext): string {
  const solution = requireString(row, "solution", ctx);
  const boxed = lastBoxed(solution);
  if (boxed === undefined || boxed.trim() === "") {
    throw new BenchmarkRowError(ctx, "solution", "has no \\boxed{} final answer");
  }
  return boxed;
}

const hendrycksMath = mathEntry({
  name: "hendrycks_math",
  description:
    "MATH (Hendrycks et al., 2021): 12,500 competition problems in 7 subjects and 5 levels (7,500 train, 5,000 test).",
  source: {
    hfDataset: "EleutherAI/hendrycks_math",
    allConfigs: {},
    splits: ["test", "train"],
    defaultSplit: "test",
  },
  question: "problem",
  answer: boxedAnswerOf,
  extras: ["solution", "level", "type"],
});

const deepscalerMath = mathEntry({
  name: "deepscaler_math",
  description:
    "DeepScaleR-Preview: ~40K competition problems (AIME 1984-2023, AMC, Omni-MATH, STILL) with short answers, for RL training.",
  source: {
    hfDataset: "agentica-org/DeepScaleR-Preview-Dataset",
    splits: ["train"],
    defaultSplit: "train",
  },
  question: "problem",
  extras: ["solution"],
});

/** A MathArena competition: one Parquet file whose only split is "train", served as our "test". */
function mathArena(name: string, repo: string, description: string): BenchmarkEntry {
  return mathEntry({
    name,
    description,
    source: {
      hfDataset: `MathArena/${repo}`,
      splits: ["test"],
      defaultSplit: "test",
      hfSplits: { test: "train" },
      files: { test: "data/train-00000-of-00001.parquet" },
    },
    question: "problem",
    id: "problem_idx",
    more(row) {
      const types = stringList(row, "problem_type");
      return types ? { problemType: types } : {};
    },
  });
}

const POLYMATH_LANGUAGES = [
  "ar",
  "bn",
  "de",
  "en",
  "es",
  "fr",
  "id",
  "it",
  "ja",
  "ko",
  "ms",
  "pt",
  "ru",
  "sw",
  "te",
  "th",
  "vi",
  "zh",
] as const;
const POLYMATH_LEVELS = ["top", "high", "medium", "low"] as const;
const POLYMATH_SPLITS = POLYMATH_LANGUAGES.flatMap((lang) =>
  POLYMATH_LEVELS.map((level) => `${lang}_${level}`),
);

const polymath = mathEntry({
  name: "polymath",
  description:
    "PolyMath (Qwen): 500 maths problems per language in 18 languages, 125 at each of 4 difficulty levels; split <lang>_<level>, e.g. en_top.",
  source: {
    hfDataset: "Qwen/PolyMath",
    splits: POLYMATH_SPLITS,
    defaultSplit: "en_top",
    files: Object.fromEntries(
      POLYMATH_SPLITS.map((split) => [split, `${split.replace("_", "/")}.parquet`]),
    ),
  },
  question: "question",
  id: "id",
  more: (_row, split) => ({
    language: split.slice(0, split.indexOf("_")),
    level: split.split("_")[1],
  }),
});

const amc = mathEntry({
  name: "amc",
  description: "AMC 12 2022-2023 (AI-MO's AIMO validation set): 83 problems with numeric answers.",
  source: {
    hfDataset: "AI-MO/aimo-validation-amc",
    splits: ["test"],
    defaultSplit: "test",
    hfSplits: { test: "train" },
    files: { test: "data/train-00000-of-00001.parquet" },
  },
  question: "problem",
  id: "id",
  extras: ["url"],
});

const minerva = mathEntry({
  name: "minerva",
  description:
    "Minerva Math (Lewkowycz et al., 2022): 272 undergraduate science and engineering problems (OCWCourses).",
  source: {
    hfDataset: "math-ai/minervamath",
    splits: ["test"],
    defaultSplit: "test",
    files: { test: "test.jsonl" },
  },
  question: ["question", "problem"],
  extras: ["solution"],
});

/** OlympiadBench's final_answer: a list of LaTeX answers, each maybe wrapped in `$...$`. */
function olympiadAnswerOf(row: Row, ctx: RowContext): string {
  const value = requireValue(row, "final_answer", ctx);
  const list = typeof value === "string" ? [value] : value;
  if (!Array.isArray(list) || list.length === 0 || !list.every((a) => typeof a === "string")) {
    throw new BenchmarkRowError(ctx, "final_answer", "must be a non-empty list of strings");
  }
  const answers = list.map((a: string) =>
    a
      .trim()
      .replace(/^\$([^$]*)\$$/, "$1")
      .trim(),
  );
  if (answers.some((a) => a === "")) {
    throw new BenchmarkRowError(ctx, "final_answer", "holds an empty answer");
  }
  return answers.join(", ");
}

const olympiadbench = mathEntry({
  name: "olympiadbench",
  description:
    "OlympiadBench (He et al., 2024), open-ended text-only English competition maths (OE_TO_maths_en_COMP): 674 problems.",
  source: {
    hfDataset: "Hothan/OlympiadBench",
    config: "OE_TO_maths_en_COMP",
    splits: ["test"],
    defaultSplit: "test",
    hfSplits: { test: "train" },
  },
  question: "question",
  answer: olympiadAnswerOf,
  id: "id",
  extras: ["subfield", "answer_type", "unit"],
});

const omniMath = mathEntry({
  name: "omni_math",
  description:
    "Omni-MATH (Gao et al., 2024): 4,428 olympiad-level problems in 33 sub-domains, 10 difficulty levels.",
  source: {
    hfDataset: "KbsdJames/Omni-MATH",
    splits: ["test"],
    defaultSplit: "test",
    files: { test: "test.jsonl" },
  },
  question: "problem",
  extras: ["solution", "source"],
  more(row) {
    const more: Record<string, unknown> = {};
    const domain = stringList(row, "domain");
    if (domain) more.domain = domain;
    if (typeof row.difficulty === "number") more.difficulty = row.difficulty;
    return more;
  },
});

/** The maths rows, in catalog order. */
export const MATH_BENCHMARKS: readonly BenchmarkEntry[] = [
  hendrycksMath,
  deepscalerMath,
  mathArena(
    "hmmt",
    "hmmt_feb_2025",
    "HMMT February 2025 (MathArena): 30 problems with short answers.",
  ),
  mathArena(
    "hmmt_nov",
    "hmmt_nov_2025",
    "HMMT November 2025 (MathArena): 30 problems with short answers.",
  ),
  mathArena(
    "aime_2026",
    "aime_2026",
    "AIME 2026 I and II (MathArena): 30 problems with integer answers 0-999.",
  ),
  polymath,
  amc,
  minerva,
  olympiadbench,
  omniMath,
  mathArena(
    "hmmt_feb_2024",
    "hmmt_feb_2024",
    "HMMT February 2024 (MathArena): 30 problems with short answers.",
  ),
  mathArena(
    "brumo_2025",
    "brumo_2025",
    "BRUMO 2025, Brown University Math Olympiad (MathArena): 30 problems.",
  ),
  mathArena(
    "cmimc_2025",
    "cmimc_2025",
    "CMIMC 2025, Carnegie Mellon Informatics and Mathematics Competition (MathArena): 40 problems.",
  ),
  mathArena(
    "smt_2025",
    "smt_2025",
    "SMT 2025, Stanford Math Tournament (MathArena): short-answer problems.",
  ),
  mathArena(
    "apex_2025",
    "apex_2025",
    "MathArena Apex 2025: the hardest final-answer problems of 2025 competitions.",
  ),
];
