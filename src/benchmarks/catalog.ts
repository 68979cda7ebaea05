/**
 * The benchmark catalog: for each built-in benchmark, where its rows come from, how a row becomes a
 * Task, which grader scores it and how it is put to the model. Graders are named, not imported, so
 * the catalog stays data and `rewards/` resolves the name.
 *
 * Field maps are normalised so that graders see one shape per kind of benchmark:
 * - math (gsm8k, math500, aime_*): `data.question` (the problem) and `data.answer` (ground truth, a
 *   string), plus the dataset's own extras (solution, subject, level...).
 * - hotpotqa: `data.question`, `data.answer`, `data.context` ({title, sentences}[]),
 *   `data.supportingFacts` ({title, sentence}[]), `data.type`, `data.level`.
 * - countdown: `data.numbers`, `data.target`, `data.solution`.
 * - code (humaneval, mbpp, livecodebench; code.ts): `data.question`, `data.language`,
 *   `data.prelude`, `data.tests` as the code grader reads them (rewards/code.ts).
 */
import type { ChatMessage, Task } from "../types/index.js";
import { apps, taco } from "./apps.js";
import { bfcl } from "./bfcl.js";
import { humaneval, mbpp } from "./code.js";
import {
  COUNTDOWN_OPS,
  COUNTDOWN_PRESETS,
  type CountdownOp,
  generateCountdown,
  isCountdownHeldOut,
} from "./countdown.js";
import type { BenchmarkEntry } from "./entry.js";
import {
  BenchmarkRowError,
  copyOptionalStrings,
  optionalScalar,
  optionalString,
  type RowContext,
  requireInteger,
  requireIntegerArray,
  requireScalar,
  requireString,
  requireValue,
} from "./fields.js";
import { harborBenchmark } from "./harbor.js";
import { INSTRUCTION_BENCHMARKS } from "./instruction-benchmarks.js";
import { livecodebench } from "./livecodebench.js";
import { MATH_BENCHMARKS } from "./math-benchmarks.js";
import { MCQ_BENCHMARKS } from "./mcq-benchmarks.js";
import { primeintellect } from "./primeintellect.js";
import { MATH_PROMPTING, taskField } from "./prompts.js";
import { QA_BENCHMARKS } from "./qa-benchmarks.js";
import { wmt24pp } from "./wmt24pp.js";

export type { BenchmarkEntry, BenchmarkGenerator, BenchmarkSource } from "./entry.js";

export { BenchmarkRowError };

function context(name: string, split: string, index: number): RowContext {
  return { benchmark: name, split, index };
}

/** gsm8k solutions end in "#### <number>"; the number (commas dropped) is the ground truth. */
export function extractGsm8kAnswer(solution: string): string | undefined {
  const at = solution.lastIndexOf("####");
  if (at < 0) return undefined;
  const answer = solution
    .slice(at + 4)
    .trim()
    .replace(/,/g, "");
  return answer === "" ? undefined : answer;
}

const gsm8k: BenchmarkEntry = {
  name: "gsm8k",
  description: "Grade-school maths word problems (Cobbe et al., 2021): 7,473 train, 1,319 test.",
  source: {
    hfDataset: "openai/gsm8k",
    config: "main",
    splits: ["train", "test"],
    defaultSplit: "test",
    files: {
      train: "main/train-00000-of-00001.parquet",
      test: "main/test-00000-of-00001.parquet",
    },
  },
  toTask(row, index, split) {
    const ctx = context("gsm8k", split, index);
    const question = requireString(row, "question", ctx);
    const solution = requireString(row, "answer", ctx);
    const answer = extractGsm8kAnswer(solution);
    if (answer === undefined) {
      throw new BenchmarkRowError(ctx, "answer", `has no "#### <number>" final answer`);
    }
    return {
      id: `gsm8k/${split}/${index}`,
      dataSource: "gsm8k",
      index,
      data: { question, answer, solution },
    };
  },
  ...MATH_PROMPTING,
};

const math500: BenchmarkEntry = {
  name: "math500",
  description: "MATH-500: the 500-problem test subset of Hendrycks MATH used by PRM800K.",
  source: {
    hfDataset: "HuggingFaceH4/MATH-500",
    splits: ["test"],
    defaultSplit: "test",
    files: { test: "test.jsonl" },
  },
  toTask(row, index, split) {
    const ctx = context("math500", split, index);
    const question = requireString(row, "problem", ctx);
    const answer = requireScalar(row, "answer", ctx);
    const uniqueId = optionalString(row, "unique_id");
    const data: Record<string, unknown> = { question, answer };
    copyOptionalStrings(row, ["solution", "subject"], data);
    const level = row.level === undefined ? undefined : requireInteger(row, "level", ctx);
    if (level !== undefined) data.level = level;
    if (uniqueId !== undefined) data.uniqueId = uniqueId;
    return {
      // unique_id ("test/precalculus/807.json") is the problem's name in MATH itself.
      id: uniqueId ? `math500/${uniqueId}` : `math500/${split}/${index}`,
      dataSource: "math500",
      index,
      data,
    };
  },
  ...MATH_PROMPTING,
};

/**
 * Some AIME copies carry JSON mistakes where "\f" and "\t" of "\frac" and "\triangle" were read as
 * control characters (see shared/data/aime_2025/SOURCE.md); put the backslashes back.
 */
export function repairLatexEscapes(text: string): string {
  return text.replace(/\f/g, "\\f").replace(/\t(?=[a-zA-Z])/g, "\\t");
}

/** AIME answers are integers 0-999; some copies zero-pad them ("025"). Keep the plain integer. */
function normaliseAimeAnswer(answer: string): string {
  const trimmed = answer.trim();
  return /^\d+$/.test(trimmed) ? String(Number.parseInt(trimmed, 10)) : trimmed;
}

function aimeEntry(name: string, year: number, hfDataset: string): BenchmarkEntry {
  return {
    name,
    description: `AIME ${year} (I and II): 30 competition problems with integer answers 0-999.`,
    source: {
      hfDataset,
      splits: ["test"],
      defaultSplit: "test",
      hfSplits: { test: "train" },
    },
    toTask(row, index, split) {
      const ctx = context(name, split, index);
      const question = repairLatexEscapes(requireString(row, ["problem", "question"], ctx));
      const answer = normaliseAimeAnswer(requireScalar(row, "answer", ctx));
      const data: Record<string, unknown> = { question, answer };
      copyOptionalStrings(row, ["solution", "url"], data);
      const ownId = optionalScalar(row, ["id", "ID"]);
      return {
        id: ownId !== undefined ? `${name}/${ownId}` : `${name}/${split}/${index}`,
        dataSource: name,
        index,
        data,
      };
    },
    ...MATH_PROMPTING,
  };
}

export interface HotpotParagraph {
  title: string;
  sentences: string[];
}

export interface HotpotFact {
  title: string;
  sentence: number;
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((s) => typeof s === "string");
}

/**
 * HotpotQA context comes in two shapes: the official JSON's [title, sentences] pairs and the Hub
 * Parquet's struct of parallel lists {title: [...], sentences: [[...]]}. Both become paragraphs.
 */
function hotpotContext(value: unknown, ctx: RowContext): HotpotParagraph[] {
  if (Array.isArray(value)) {
    return value.map((pair, i) => {
      if (!Array.isArray(pair) || typeof pair[0] !== "string" || !isStringArray(pair[1])) {
        throw new BenchmarkRowError(ctx, `context[${i}]`, "must be a [title, sentences[]] pair");
      }
      return { title: pair[0], sentences: pair[1] };
    });
  }
  if (value !== null && typeof value === "object") {
    const { title, sentences } = value as { title?: unknown; sentences?: unknown };
    if (
      isStringArray(title) &&
      Array.isArray(sentences) &&
      sentences.length === title.length &&
      sentences.every(isStringArray)
    ) {
      return title.map((t, i) => ({ title: t, sentences: sentences[i] as string[] }));
    }
  }
  throw new BenchmarkRowError(
    ctx,
    "context",
    "must be a list of [title, sentences] pairs or {title: [...], sentences: [[...]]}",
  );
}

function hotpotFacts(value: unknown, ctx: RowContext): HotpotFact[] {
  if (value === undefined || value === null) return [];
  const isIndex = (n: unknown): n is number | bigint =>
    (typeof n === "number" && Number.isInteger(n)) || typeof n === "bigint";
  if (Array.isArray(value)) {
    return value.map((pair, i) => {
      if (!Array.isArray(pair) || typeof pair[0] !== "string" || !isIndex(pair[1])) {
        throw new BenchmarkRowError(
          ctx,
          `supporting_facts[${i}]`,
          "must be a [title, sentence index] pair",
        );
      }
      return { title: pair[0], sentence: Number(pair[1]) };
    });
  }
  if (typeof value === "object") {
    const { title, sent_id } = value as { title?: unknown; sent_id?: unknown };
    if (
      isStringArray(title) &&
      Array.isArray(sent_id) &&
      sent_id.length === title.length &&
      sent_id.every(isIndex)
    ) {
      return title.map((t, i) => ({ title: t, sentence: Number(sent_id[i]) }));
    }
  }
  throw new BenchmarkRowError(
    ctx,
    "supporting_facts",
    "must be a list of [title, sentence] pairs or {title: [...], sent_id: [...]}",
  );
}

/** "Title: sentence sentence ..." per paragraph; HotpotQA sentences carry their own leading spaces. */
export function formatHotpotContext(paragraphs: readonly HotpotParagraph[]): string {
  return paragraphs.map((p) => `${p.title}: ${p.sentences.join("").trim()}`).join("\n\n");
}

function readParagraphs(task: Task): HotpotParagraph[] {
  const value = task.data.context;
  const ok =
    Array.isArray(value) &&
    value.every(
      (p) =>
        p !== null &&
        typeof p === "object" &&
        typeof (p as HotpotParagraph).title === "string" &&
        isStringArray((p as HotpotParagraph).sentences),
    );
  if (!ok) throw new Error(`task ${task.id}: data.context must be a list of {title, sentences}`);
  return value as HotpotParagraph[];
}

const hotpotqa: BenchmarkEntry = {
  name: "hotpotqa",
  description:
    "HotpotQA distractor setting (Yang et al., 2018): multi-hop questions over 10 Wikipedia paragraphs, 2 of them gold.",
  source: {
    hfDataset: "hotpotqa/hotpot_qa",
    config: "distractor",
    splits: ["validation"],
    defaultSplit: "validation",
  },
  toTask(row, index, split) {
    const ctx = context("hotpotqa", split, index);
    const ownId = requireString(row, ["_id", "id"], ctx);
    const question = requireString(row, "question", ctx);
    const answer = requireString(row, "answer", ctx);
    const paragraphs = hotpotContext(requireValue(row, "context", ctx), ctx);
    const data: Record<string, unknown> = {
      question,
      answer,
      context: paragraphs.map((p) => ({ title: p.title, sentences: p.sentences })),
      supportingFacts: hotpotFacts(row.supporting_facts, ctx).map((f) => ({ ...f })),
    };
    copyOptionalStrings(row, ["type", "level"], data);
    return { id: `hotpotqa/${ownId}`, dataSource: "hotpotqa", index, data };
  },
  grader: "qa_f1",
  systemPrompt:
    "Answer the question using the context paragraphs. Think it through briefly if you need to, then " +
    'finish with one line of the form "Answer: <answer>", where <answer> is as short as possible: ' +
    'a name, a number, a few words, or "yes"/"no".',
  userPrompt(task) {
    const paragraphs = readParagraphs(task);
    return `Context:\n\n${formatHotpotContext(paragraphs)}\n\nQuestion: ${taskField(task, "question")}`;
  },
  defaultAgent: "single-turn",
};

/** Seeds for the countdown splits; the held-out hash keeps them disjoint whatever the seeds. */
const COUNTDOWN_SEEDS: Record<string, number> = { train: 20_250_101, test: 20_250_202 };
const COUNTDOWN_COUNTS: Record<string, number> = { train: 10_000, test: 1_000 };
const COUNTDOWN_DIFFICULTY = "medium";

function countdownOps(task: Task): CountdownOp[] {
  const ops = task.metadata?.ops;
  if (Array.isArray(ops) && ops.length > 0 && ops.every((op) => COUNTDOWN_OPS.includes(op))) {
    return ops as CountdownOp[];
  }
  return [...COUNTDOWN_OPS];
}

const countdown: BenchmarkEntry = {
  name: "countdown",
  description: `Generated countdown puzzles ("${COUNTDOWN_DIFFICULTY}": 4 numbers in 1-50, + - * /): reach the target using each number at most once. Train and test never share a problem.`,
  source: { splits: ["train", "test"], defaultSplit: "train" },
  toTask(row, index, split) {
    const ctx = context("countdown", split, index);
    // "nums" is the TinyZero dataset's spelling, so its files load too.
    const numbers = requireIntegerArray(row, ["numbers", "nums"], ctx);
    const target = requireInteger(row, "target", ctx);
    const data: Record<string, unknown> = { numbers, target };
    copyOptionalStrings(row, ["solution"], data);
    return { id: `countdown/${split}/${index}`, dataSource: "countdown", index, data };
  },
  grader: "countdown",
  systemPrompt:
    "You are solving a countdown arithmetic puzzle. Reason step by step, then give one equation that " +
    "equals the target inside <answer></answer>, for example <answer>(25 - 5) * 3</answer>. Use only " +
    "the given numbers, each at most once, and only the allowed operations. Do not write the result " +
    "(no '= target') inside the answer tags.",
  userPrompt(task) {
    const numbers = task.data.numbers;
    const target = task.data.target;
    if (!Array.isArray(numbers) || typeof target !== "number") {
      throw new Error(
        `task ${task.id}: data.numbers and data.target are needed to build the prompt`,
      );
    }
    return `Using the numbers [${numbers.join(", ")}], create an equation that equals ${target}. Allowed operations: ${countdownOps(task).join(" ")}. Each number may be used at most once.`;
  },
  defaultAgent: "single-turn",
  generator: {
    description: `seeded, "${COUNTDOWN_DIFFICULTY}" preset; test holds the tenth of the problem space that train never draws`,
    counts: COUNTDOWN_COUNTS,
    generate(split, count) {
      const seed = COUNTDOWN_SEEDS[split];
      const defaultCount = COUNTDOWN_COUNTS[split];
      if (seed === undefined || defaultCount === undefined) {
        throw new Error(
          `countdown has no split "${split}"; known splits: ${Object.keys(COUNTDOWN_SEEDS).join(", ")}`,
        );
      }
      const heldOut = split === "test";
      return generateCountdown({
        ...COUNTDOWN_PRESETS[COUNTDOWN_DIFFICULTY],
        seed,
        count: count ?? defaultCount,
        split,
        accept: (numbers, target) => isCountdownHeldOut(numbers, target) === heldOut,
      });
    },
  },
};

const ENTRIES: readonly BenchmarkEntry[] = [
  gsm8k,
  math500,
  aimeEntry("aime_2024", 2024, "HuggingFaceH4/aime_2024"),
  aimeEntry("aime_2025", 2025, "yentinglin/aime_2025"),
  hotpotqa,
  countdown,
  humaneval,
  mbpp,
  livecodebench,
  ...MCQ_BENCHMARKS,
  ...MATH_BENCHMARKS,
  ...INSTRUCTION_BENCHMARKS,
  ...QA_BENCHMARKS,
  wmt24pp,
  bfcl,
  apps,
  taco,
  primeintellect,
];

const BY_NAME = new Map(ENTRIES.map((entry) => [entry.name, entry]));

/** Every built-in benchmark, in catalog order. */
export function listBenchmarks(): BenchmarkEntry[] {
  return [...ENTRIES];
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** The catalog name closest to `name`, if any is close enough to be a plausible typo. */
export function closestBenchmarkName(name: string): string | undefined {
  // Compare without case and punctuation so "AIME-2024" and "aime2024" find "aime_2024".
  const squash = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, "");
  const wanted = squash(name);
  let best: { name: string; distance: number } | undefined;
  for (const entry of ENTRIES) {
    const candidate = squash(entry.name);
    const distance =
      candidate.includes(wanted) && wanted.length >= 3 ? 0 : editDistance(wanted, candidate);
    if (!best || distance < best.distance) best = { name: entry.name, distance };
  }
  if (!best) return undefined;
  return best.distance <= Math.max(2, Math.floor(wanted.length / 3)) ? best.name : undefined;
}

/** `harbor:DIR`: the Harbor tasks in DIR (harbor.ts), read when asked for. */
export const HARBOR_PREFIX = "harbor:";

/** The catalog entry called `name` (or `harbor:DIR`); throws listing the known names and the closest one. */
export function getBenchmark(name: string): BenchmarkEntry {
  if (name.startsWith(HARBOR_PREFIX)) return harborBenchmark(name.slice(HARBOR_PREFIX.length));
  const entry = BY_NAME.get(name);
  if (entry) return entry;
  const suggestion = closestBenchmarkName(name);
  const hint = suggestion ? ` Did you mean "${suggestion}"?` : "";
  throw new Error(
    `Unknown benchmark "${name}".${hint} Known benchmarks: ${ENTRIES.map((e) => e.name).join(", ")}.`,
  );
}

/**
 * The messages a single-turn agent sends for `task`: the entry's own `messages(task)` when it has
 * them, else its system prompt (left out when "") and the task's user prompt.
 */
export function benchmarkMessages(entry: BenchmarkEntry, task: Task): ChatMessage[] {
  if (entry.messages) return entry.messages(task);
  const user: ChatMessage = { role: "user", content: entry.userPrompt(task) };
  return entry.systemPrompt === ""
    ? [user]
    : [{ role: "system", content: entry.systemPrompt }, user];
}
