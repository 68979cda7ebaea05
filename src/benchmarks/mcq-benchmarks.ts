/**
 * The multiple-choice benchmarks of rLLM's catalog (rllm/registry/datasets.json, field maps from
 * rllm/data/transforms.py): MMLU-Pro, MMLU-Redux 2.0, GPQA Diamond, SuperGPQA, C-Eval, MMMLU,
 * MMLU-ProX, INCLUDE, Global PIQA and LongBench v2. Every row becomes the `multiple_choice`
 * grader's contract (rewards/choice.ts):
 *   data.question  the question (LongBench v2's document is apart, in data.context)
 *   data.choices   the options as strings, in letter order (2 to 10: A-J)
 *   data.answer    the right option's letter
 * plus the row's own labels (subject, category, language...). The prompt is the question and the
 * lettered options; the model ends with "Answer: X" (choice.ts also reads \boxed{X} and "答案：X").
 *
 * Decided once:
 * - Datasets published as one Hub config per subject or language (MMLU-Redux, C-Eval, MMMLU,
 *   MMLU-ProX, INCLUDE, Global PIQA) load every config as one split, as rLLM's aggregate_configs
 *   does (entry.ts `allConfigs`); the config's name lands in the row's subject/language column.
 * - gpqa_diamond: the gated Idavidrein/gpqa is not used; rLLM's public copy ankner/gpqa (the
 *   original CSV's columns, Hub split "train") is. The right answer is the "Correct Answer" column,
 *   so the four options are put in a fixed order of the row's own: seededPermutation(4,
 *   contentSeed(Question)) (random.ts: mulberry32 seeded by the first 4 bytes of the question's
 *   SHA-256). rLLM shuffles with Python's random seeded by an MD5; the order differs, the answer
 *   distribution is as uniform.
 * - MMLU-Redux: the published `answer`, except where the annotators marked it "wrong_groundtruth"
 *   and gave a `correct_answer` (a letter or an index): that one. `error_type` is kept in data.
 * - MMLU-ProX options option_0..option_9: trailing empty ones are dropped; an empty one before a
 *   filled one is a row error (the letters would shift).
 * - C-Eval's test split publishes no answers: val (default) and dev only.
 */
import { contentSeed, seededPermutation } from "../random.js";
import type { Task } from "../types/index.js";
import type { BenchmarkEntry, BenchmarkSource } from "./entry.js";
import {
  BenchmarkRowError,
  copyOptionalStrings,
  optionalScalar,
  type Row,
  type RowContext,
  requireInteger,
  requireString,
  requireValue,
} from "./fields.js";

const LETTERS = "ABCDEFGHIJ";

const MCQ_SYSTEM_PROMPT =
  "Answer the multiple-choice question. Think it through step by step, then finish with one line " +
  'of the form "Answer: X", where X is the letter of the one correct option.';

/** What a benchmark's reader takes out of a row. */
interface McqFields {
  question: string;
  choices: string[];
  answer: string;
  /** The dataset's own id, when it is unique within the split. */
  ownId?: string;
  extras?: Record<string, unknown>;
}

interface McqSpec {
  name: string;
  description: string;
  source: BenchmarkSource;
  read(row: Row, ctx: RowContext): McqFields;
}

function mcqEntry(spec: McqSpec): BenchmarkEntry {
  return {
    name: spec.name,
    description: spec.description,
    source: spec.source,
    toTask(row, index, split): Task {
      const ctx = { benchmark: spec.name, split, index };
      const { question, choices, answer, ownId, extras } = spec.read(row, ctx);
      if (choices.length < 2 || choices.length > LETTERS.length) {
        throw new BenchmarkRowError(
          ctx,
          "choices",
          `has ${choices.length} options; 2 to ${LETTERS.length} are supported`,
        );
      }
      if (!LETTERS.slice(0, choices.length).includes(answer)) {
        throw new BenchmarkRowError(
          ctx,
          "answer",
          `is "${answer}", not one of the ${choices.length} options' letters`,
        );
      }
      return {
        id: ownId !== undefined ? `${spec.name}/${ownId}` : `${spec.name}/${split}/${index}`,
        dataSource: spec.name,
        index,
        data: { ...extras, question, choices, answer },
      };
    },
    grader: "multiple_choice",
    systemPrompt: MCQ_SYSTEM_PROMPT,
    userPrompt: mcqUserPrompt,
    defaultAgent: "single-turn",
  };
}

/** The question, then one line per option ("A. ..."); LongBench v2's document first. */
function mcqUserPrompt(task: Task): string {
  const { question, choices, context } = task.data;
  if (typeof question !== "string" || question === "") {
    throw new Error(
      `task ${task.id}: data.question must be a non-empty string to build the prompt`,
    );
  }
  if (!Array.isArray(choices) || !choices.every((c) => typeof c === "string")) {
    throw new Error(`task ${task.id}: data.choices must be a list of strings to build the prompt`);
  }
  const options = choices.map((c, i) => `${LETTERS[i]}. ${c}`).join("\n");
  const document = typeof context === "string" && context !== "" ? `Context:\n${context}\n\n` : "";
  return `${document}Question: ${question}\n\n${options}`;
}

/** An option: a string (kept as is, even empty) or a number; absent or null is a row error. */
function optionText(value: unknown, field: string, ctx: RowContext): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "bigint") return String(value);
  const got = value === undefined || value === null ? "missing" : `a ${typeof value}`;
  throw new BenchmarkRowError(ctx, field, `must be an option's text (a string), got ${got}`);
}

/** The options in a list field (`options`, `choices`). */
function choiceList(row: Row, name: string, ctx: RowContext): string[] {
  const value = requireValue(row, name, ctx);
  if (!Array.isArray(value)) {
    throw new BenchmarkRowError(ctx, name, "must be a list of option texts");
  }
  return value.map((item, i) => optionText(item, `${name}[${i}]`, ctx));
}

/** The options in one column each (`A`..`D`, `option_a`..`option_d`). */
function choiceColumns(row: Row, names: readonly string[], ctx: RowContext): string[] {
  return names.map((name) => optionText(row[name], name, ctx));
}

/** A letter answer ("B", "(b)", "B."), upper-cased. */
function letterAnswer(row: Row, names: string | readonly string[], ctx: RowContext): string {
  const value = requireString(row, names, ctx);
  const letter = /^\(?([A-Za-z])\)?\.?$/.exec(value.trim())?.[1];
  if (!letter) {
    const field = typeof names === "string" ? names : names.find((n) => row[n] != null)!;
    throw new BenchmarkRowError(
      ctx,
      field,
      `must be an option letter, got "${value.slice(0, 40)}"`,
    );
  }
  return letter.toUpperCase();
}

/** A 0-based option index, as its letter. */
function indexAnswer(row: Row, name: string, ctx: RowContext): string {
  const index = requireInteger(row, name, ctx);
  if (index < 0 || index >= LETTERS.length) {
    throw new BenchmarkRowError(
      ctx,
      name,
      `is ${index}, not an option index 0-${LETTERS.length - 1}`,
    );
  }
  return LETTERS[index]!;
}

function pickStrings(row: Row, names: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [from, to] of Object.entries(names)) {
    const value = row[from];
    if (typeof value === "string" && value !== "") out[to] = value;
  }
  return out;
}

const mmluPro = mcqEntry({
  name: "mmlu_pro",
  description:
    "MMLU-Pro (Wang et al., 2024): 12,032 expert-level questions with up to 10 options, 14 categories.",
  source: {
    hfDataset: "TIGER-Lab/MMLU-Pro",
    splits: ["test", "validation"],
    defaultSplit: "test",
  },
  read(row, ctx) {
    const question = requireString(row, "question", ctx);
    const choices = choiceList(row, "options", ctx);
    const answer =
      row.answer !== undefined && row.answer !== null
        ? letterAnswer(row, "answer", ctx)
        : indexAnswer(row, "answer_index", ctx);
    const data: Record<string, unknown> = {};
    copyOptionalStrings(row, ["category", "src"], data);
    return { question, choices, answer, ownId: optionalScalar(row, "question_id"), extras: data };
  },
});

/** MMLU-Redux's annotated answer fix: a letter or an index in `correct_answer`. */
function reduxAnswer(row: Row, ctx: RowContext): string {
  const published = indexAnswer(row, "answer", ctx);
  if (row.error_type !== "wrong_groundtruth") return published;
  const fixed = typeof row.correct_answer === "string" ? row.correct_answer.trim() : "";
  if (/^[A-Ja-j]$/.test(fixed)) return fixed.toUpperCase();
  if (/^\d$/.test(fixed)) return LETTERS[Number(fixed)] ?? published;
  return published;
}

const mmluRedux = mcqEntry({
  name: "mmlu_redux",
  description:
    "MMLU-Redux 2.0 (Gema et al., 2024): 5,700 MMLU questions over 57 subjects, re-annotated for errors.",
  source: {
    hfDataset: "edinburgh-dawg/mmlu-redux-2.0",
    splits: ["test"],
    defaultSplit: "test",
    allConfigs: { column: "subject" },
  },
  read(row, ctx) {
    const question = requireString(row, "question", ctx);
    const choices = choiceList(row, "choices", ctx);
    const answer = reduxAnswer(row, ctx);
    const extras = pickStrings(row, {
      subject: "subject",
      error_type: "errorType",
      source: "source",
    });
    return { question, choices, answer, extras };
  },
});

const GPQA_OPTIONS = [
  "Correct Answer",
  "Incorrect Answer 1",
  "Incorrect Answer 2",
  "Incorrect Answer 3",
];

const gpqaDiamond = mcqEntry({
  name: "gpqa_diamond",
  description:
    "GPQA (Rein et al., 2023): graduate-level biology, physics and chemistry questions, 4 options (rLLM's public copy).",
  source: {
    hfDataset: "ankner/gpqa",
    splits: ["test"],
    defaultSplit: "test",
    hfSplits: { test: "train" },
  },
  read(row, ctx) {
    const question = requireString(row, "Question", ctx);
    const original = GPQA_OPTIONS.map((name) => requireString(row, name, ctx).trim());
    const order = seededPermutation(original.length, contentSeed(question));
    const choices = order.map((k) => original[k]!);
    const answer = LETTERS[order.indexOf(0)]!;
    const extras = pickStrings(row, {
      "Record ID": "recordId",
      "High-level domain": "domain",
      Subdomain: "subdomain",
    });
    return { question: question.trim(), choices, answer, extras };
  },
});

const superGpqa = mcqEntry({
  name: "supergpqa",
  description:
    "SuperGPQA (M-A-P, 2025): 26,529 graduate-level questions over 285 disciplines, up to 10 options.",
  source: {
    hfDataset: "m-a-p/SuperGPQA",
    splits: ["test"],
    defaultSplit: "test",
    hfSplits: { test: "train" },
  },
  read(row, ctx) {
    const question = requireString(row, "question", ctx);
    const choices = choiceList(row, "options", ctx);
    let answer: string;
    if (row.answer_letter !== undefined && row.answer_letter !== null) {
      answer = letterAnswer(row, "answer_letter", ctx);
    } else {
      // rLLM's rule: the option whose text is the answer.
      const text = requireString(row, "answer", ctx).trim();
      const k = choices.findIndex((c) => c.trim() === text);
      if (k < 0) throw new BenchmarkRowError(ctx, "answer", "matches none of the options");
      answer = LETTERS[k]!;
    }
    const extras = pickStrings(row, {
      discipline: "discipline",
      field: "field",
      subfield: "subfield",
      difficulty: "difficulty",
    });
    return { question, choices, answer, ownId: optionalScalar(row, "uuid"), extras };
  },
});

const ceval = mcqEntry({
  name: "ceval",
  description:
    "C-Eval (Huang et al., 2023): Chinese exam questions over 52 subjects, 4 options (val and dev carry answers).",
  source: {
    hfDataset: "ceval/ceval-exam",
    splits: ["val", "dev"],
    defaultSplit: "val",
    allConfigs: { column: "subject" },
  },
  read(row, ctx) {
    const question = requireString(row, "question", ctx);
    const choices = choiceColumns(row, ["A", "B", "C", "D"], ctx);
    const answer = letterAnswer(row, "answer", ctx);
    const extras = pickStrings(row, { subject: "subject", explanation: "explanation" });
    return { question, choices, answer, extras };
  },
});

const mmmlu = mcqEntry({
  name: "mmmlu",
  description:
    "MMMLU (OpenAI, 2024): the MMLU test set professionally translated into 14 languages, 4 options.",
  source: {
    hfDataset: "openai/MMMLU",
    splits: ["test"],
    defaultSplit: "test",
    allConfigs: { column: "language", exclude: ["default"] },
  },
  read(row, ctx) {
    const question = requireString(row, ["Question", "question"], ctx);
    const choices = choiceColumns(row, ["A", "B", "C", "D"], ctx);
    const answer = letterAnswer(row, ["Answer", "answer"], ctx);
    const extras = pickStrings(row, { Subject: "subject", language: "language" });
    return { question, choices, answer, extras };
  },
});

/** option_0..option_9, trailing empty ones dropped (module comment). */
function proxOptions(row: Row, ctx: RowContext): string[] {
  const filled = (i: number) => typeof row[`option_${i}`] === "string" && row[`option_${i}`] !== "";
  let count = LETTERS.length;
  while (count > 0 && !filled(count - 1)) count--;
  const names = Array.from({ length: count }, (_, i) => `option_${i}`);
  for (const name of names) {
    if (row[name] === "" || row[name] === null || row[name] === undefined) {
      throw new BenchmarkRowError(ctx, name, "is empty but a later option is not");
    }
  }
  return choiceColumns(row, names, ctx);
}

const mmluProx = mcqEntry({
  name: "mmlu_prox",
  description:
    "MMLU-ProX (Xuan et al., 2025): MMLU-Pro translated into 29 languages, up to 10 options.",
  source: {
    hfDataset: "li-lab/MMLU-ProX",
    splits: ["test", "validation"],
    defaultSplit: "test",
    allConfigs: { column: "language" },
  },
  read(row, ctx) {
    const question = requireString(row, "question", ctx);
    const choices = proxOptions(row, ctx);
    const answer =
      row.answer_index !== undefined && row.answer_index !== null
        ? indexAnswer(row, "answer_index", ctx)
        : letterAnswer(row, "answer", ctx);
    const extras = pickStrings(row, { language: "language", category: "category", src: "src" });
    return { question, choices, answer, extras };
  },
});

const include = mcqEntry({
  name: "include",
  description:
    "INCLUDE (Romanou et al., 2024): regional exam questions in 44 languages, 4 options (include-base-44).",
  source: {
    hfDataset: "CohereLabs/include-base-44",
    splits: ["test"],
    defaultSplit: "test",
    allConfigs: { column: "language" },
  },
  read(row, ctx) {
    const question = requireString(row, "question", ctx);
    const choices = choiceColumns(row, ["option_a", "option_b", "option_c", "option_d"], ctx);
    const answer = indexAnswer(row, "answer", ctx);
    const extras = pickStrings(row, {
      language: "language",
      country: "country",
      subject: "subject",
      domain: "domain",
      level: "level",
    });
    return { question, choices, answer, extras };
  },
});

const globalPiqa = mcqEntry({
  name: "global_piqa",
  description:
    "Global PIQA (2025): physical commonsense in 100+ languages; pick the better of 2 solutions.",
  source: {
    hfDataset: "mrlbenchmarks/global-piqa-nonparallel",
    splits: ["test"],
    defaultSplit: "test",
    allConfigs: { column: "language" },
  },
  read(row, ctx) {
    const question = requireString(row, "prompt", ctx);
    const choices = choiceColumns(row, ["solution0", "solution1"], ctx);
    const answer = indexAnswer(row, "label", ctx);
    return { question, choices, answer, extras: pickStrings(row, { language: "language" }) };
  },
});

const longbenchV2 = mcqEntry({
  name: "longbench_v2",
  description:
    "LongBench v2 (Bai et al., 2024): 503 questions over documents of 8k-2M words, 4 options.",
  source: {
    hfDataset: "THUDM/LongBench-v2",
    splits: ["test"],
    defaultSplit: "test",
    hfSplits: { test: "train" },
  },
  read(row, ctx) {
    const question = requireString(row, "question", ctx);
    const context = requireString(row, "context", ctx);
    const choices = choiceColumns(row, ["choice_A", "choice_B", "choice_C", "choice_D"], ctx);
    const answer = letterAnswer(row, "answer", ctx);
    const extras: Record<string, unknown> = {
      context,
      ...pickStrings(row, {
        domain: "domain",
        sub_domain: "subDomain",
        difficulty: "difficulty",
        length: "length",
      }),
    };
    return { question, choices, answer, ownId: optionalScalar(row, "_id"), extras };
  },
});

/** The multiple-choice rows of the catalog, in catalog order. */
export const MCQ_BENCHMARKS: readonly BenchmarkEntry[] = [
  mmluPro,
  mmluRedux,
  gpqaDiamond,
  superGpqa,
  ceval,
  mmmlu,
  mmluProx,
  include,
  globalPiqa,
  longbenchV2,
];
