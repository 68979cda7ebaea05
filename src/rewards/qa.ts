/**
 * Short-answer QA graders (HotpotQA, SQuAD-style): `qa_f1` rewards token-level F1 and `qa_em`
 * rewards exact match, both after SQuAD answer normalisation, as in the official HotpotQA
 * evaluation script (`hotpot_evaluate_v1.py`), so numbers reported here compare with papers.
 */
import type { EvalOutput, Task } from "../types/index.js";
import { lastAnswerLine, lastBoxed, lastTagContent } from "./extract.js";
import { PY_WORD_CHAR, pySplit, removePunctuation } from "./instructions/python.js";
import type { Grader } from "./types.js";

// Python's `\b` is Unicode-aware and JavaScript's is not, so the word boundary is spelled out.
const ARTICLE = new RegExp(`(?<!${PY_WORD_CHAR})(?:a|an|the)(?!${PY_WORD_CHAR})`, "gu");

/**
 * SQuAD normalisation: lowercase, drop punctuation, drop the articles a/an/the, collapse
 * whitespace (in that order, as `normalize_answer` in the SQuAD v1.1 script does).
 */
export function normalizeQaAnswer(text: string): string {
  const lower = text.toLowerCase();
  // Python's `string.punctuation`: SQuAD strips exactly these ASCII characters, nothing more.
  const noPunct = removePunctuation(lower);
  return pySplit(noPunct.replace(ARTICLE, " ")).join(" ");
}

/** Exact match after SQuAD normalisation. */
export function qaExactMatch(prediction: string, truth: string): boolean {
  return normalizeQaAnswer(prediction) === normalizeQaAnswer(truth);
}

/**
 * Token F1 after SQuAD normalisation: the harmonic mean of precision (shared tokens / predicted
 * tokens) and recall (shared tokens / true tokens), shared tokens counted as a multiset. HotpotQA's
 * rule for yes/no/noanswer: when either side is one of those and they differ, F1 is 0 (a partial
 * overlap with "yes" means nothing).
 */
export function qaF1(prediction: string, truth: string): number {
  const p = normalizeQaAnswer(prediction);
  const t = normalizeQaAnswer(truth);
  const special = ["yes", "no", "noanswer"];
  if ((special.includes(p) || special.includes(t)) && p !== t) return 0;
  const predTokens = p.split(" ").filter(Boolean);
  const truthTokens = t.split(" ").filter(Boolean);
  const remaining = new Map<string, number>();
  for (const tok of truthTokens) remaining.set(tok, (remaining.get(tok) ?? 0) + 1);
  let common = 0;
  for (const tok of predTokens) {
    const left = remaining.get(tok) ?? 0;
    if (left > 0) {
      common++;
      remaining.set(tok, left - 1);
    }
  }
  if (common === 0) return 0;
  const precision = common / predTokens.length;
  const recall = common / truthTokens.length;
  return (2 * precision * recall) / (precision + recall);
}

/**
 * The answer part of a QA response: a `\boxed{}`, else an `Answer:` / `Final answer:` line, else
 * `<answer>...</answer>`, else the whole response. Scoring a whole chain of thought by F1 is
 * harsh by design: prompts should ask for one of the marked forms.
 */
export function extractQaAnswer(response: string): string {
  return (
    lastBoxed(response) ??
    lastAnswerLine(response, { cutSentence: false }) ??
    lastTagContent(response, "answer") ??
    response.trim()
  );
}

/** The accepted answers: `data.answer` (a string or several), numbers read as text. */
function qaGroundTruths(task: Task, grader: string): string[] {
  const answer = task.data["answer"];
  const list = Array.isArray(answer) ? answer : [answer];
  const truths = list
    .filter((a): a is string | number => typeof a === "string" || typeof a === "number")
    .map(String);
  if (truths.length === 0 || truths.length !== list.length) {
    throw new Error(
      `${grader} grader: task ${task.id} needs data.answer as a string (or an array of accepted strings); ` +
        `fields present: ${Object.keys(task.data).join(", ") || "none"}.`,
    );
  }
  return truths;
}

/** Scores against every accepted answer and keeps the best, as SQuAD does with several references. */
function gradeQa(task: Task, response: string, grader: "qa_f1" | "qa_em"): EvalOutput {
  const truths = qaGroundTruths(task, grader);
  const extracted = extractQaAnswer(response);
  const f1 = Math.max(...truths.map((t) => qaF1(extracted, t)));
  const em = truths.some((t) => qaExactMatch(extracted, t)) ? 1 : 0;
  return {
    reward: grader === "qa_f1" ? f1 : em,
    isCorrect: em === 1,
    signals: { f1, em },
    metadata: { extracted, expected: truths.length === 1 ? truths[0] : truths },
  };
}

/** Reward = token F1 (partial credit); isCorrect = exact match. */
export const qaF1Grader: Grader = (task, response) => gradeQa(task, response, "qa_f1");

/** Reward = exact match (0 or 1). */
export const qaEmGrader: Grader = (task, response) => gradeQa(task, response, "qa_em");
