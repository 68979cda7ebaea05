/**
 * The `multiple_choice` grader (MMLU, GPQA, ARC-style tasks): reward 1 when the chosen option is
 * `task.data.answer`. The answer may be a letter (A-J), a 0-based index, or, when
 * `task.data.choices` is given, the text of the right option.
 *
 * Responses are read after NFKC normalisation, so full-width letters, brackets and colons
 * (`（Ｂ）`, `答案：B`) read as their ASCII forms; a Chinese answer cue (`答案：B`, `答案是 B`,
 * `答案为B`) counts as an answer line when no English one (`Answer: B`) is present.
 */
import type { Task } from "../types/index.js";
import { cleanAnswerText, lastAnswerLine, lastBoxed } from "./extract.js";
import { normalizeQaAnswer } from "./qa.js";
import type { Grader } from "./types.js";

const LETTERS = "ABCDEFGHIJ";

/** What was found in the response: a letter, or (failing that) free text to match to a choice. */
export interface ChoiceExtraction {
  letter?: string;
  text?: string;
  source: "boxed" | "answer_line" | "parenthesised" | "whole_response" | "none";
}

/** The options as an array in letter order: `["Paris", ...]` or `{A: "Paris", ...}`. */
function choicesOf(task: Task): string[] | undefined {
  const raw = task.data["choices"] ?? task.data["options"];
  if (Array.isArray(raw)) return raw.map((c) => String(c));
  if (raw && typeof raw === "object") {
    const record = raw as Record<string, unknown>;
    return [...LETTERS].filter((l) => l in record).map((l) => String(record[l]));
  }
  return undefined;
}

/**
 * A letter at the start of an answer: `C`, `(C)`, `C.`, `C) Paris`, `option C`. Lower case counts
 * only when the letter stands alone (`c`, `(c)`), because `a` begins many English answers.
 */
function leadingLetter(text: string, valid: string): string | undefined {
  const s = text
    .trim()
    .replace(/^\\text\{(.*)\}$/s, "$1")
    .replace(/^[*_\s]+|[*_\s]+$/g, "")
    .replace(/^(?:option|choice)\s+/i, "");
  const alone = /^\(?([A-Za-z])\)?[.:]?$/.exec(s);
  const upperFirst = /^\(?([A-Z])(?:\)|(?=[\s.,:;!。、]|$))/.exec(s);
  const letter = (alone?.[1] ?? upperFirst?.[1])?.toUpperCase();
  return letter && valid.includes(letter) ? letter : undefined;
}

/** The letter of the choice whose text is `text` (after SQuAD normalisation), if any. */
function letterOfText(text: string, choices: string[] | undefined): string | undefined {
  const wanted = normalizeQaAnswer(text);
  if (!choices || wanted === "") return undefined;
  const k = choices.findIndex((c) => normalizeQaAnswer(c) === wanted);
  return k >= 0 ? LETTERS[k] : undefined;
}

/** The rest of the line after the last Chinese answer cue (答案, then 是/为/為 or a colon), trimmed. */
function lastCjkAnswerLine(text: string): string | undefined {
  const last = [...text.matchAll(/答案\s*(?:是|为|為)?\s*:?/g)].at(-1);
  if (!last) return undefined;
  const rest = text.slice(last.index + last[0].length).split("\n")[0] ?? "";
  const answer = cleanAnswerText(rest, false);
  return answer === "" ? undefined : answer;
}

/**
 * The chosen option, looked for in order of how deliberate the marking is: the last `\boxed{}`,
 * the last answer line (`Answer: C`, `The answer is (C).`, or a choice's text), the last
 * parenthesised letter `(C)`, then a response that is nothing but a letter or a choice's text.
 * With `choices`, only their letters are valid and the text of a choice selects it.
 */
export function extractChoice(raw: string, choices?: string[]): ChoiceExtraction {
  const response = raw.normalize("NFKC");
  const count = choices ? Math.min(Math.max(choices.length, 1), LETTERS.length) : LETTERS.length;
  const valid = LETTERS.slice(0, count);
  const boxed = lastBoxed(response);
  if (boxed !== undefined) {
    const letter = leadingLetter(boxed, valid) ?? letterOfText(boxed, choices);
    return letter ? { letter, text: boxed, source: "boxed" } : { text: boxed, source: "boxed" };
  }
  const line = lastAnswerLine(response, { cutSentence: false }) ?? lastCjkAnswerLine(response);
  if (line !== undefined) {
    const letter = leadingLetter(line, valid) ?? letterOfText(line, choices);
    if (letter) return { letter, text: line, source: "answer_line" };
  }
  const parenthesised = [...response.matchAll(/\(([A-J])\)/g)]
    .map((m) => m[1]!)
    .filter((l) => valid.includes(l));
  if (parenthesised.length > 0) return { letter: parenthesised.at(-1)!, source: "parenthesised" };
  const trimmed = response.trim();
  const whole =
    trimmed.length <= 4 ? leadingLetter(trimmed, valid) : letterOfText(trimmed, choices);
  if (whole) return { letter: whole, text: trimmed, source: "whole_response" };
  if (line !== undefined) return { text: line, source: "answer_line" };
  return trimmed ? { text: trimmed, source: "whole_response" } : { source: "none" };
}

/** The right letter from `data.answer`: a letter, a 0-based index, or the text of a choice. */
function expectedLetter(task: Task, choices: string[] | undefined): string {
  const answer = task.data["answer"];
  const fail = (why: string): never => {
    throw new Error(
      `multiple_choice grader: task ${task.id}: ${why}. data.answer must be a letter A-J, a 0-based ` +
        `index, or the text of one of data.choices.`,
    );
  };
  if (typeof answer === "number" || (typeof answer === "string" && /^\d+$/.test(answer.trim()))) {
    const index = Number(answer);
    if (!Number.isInteger(index) || index < 0 || index >= LETTERS.length) {
      return fail(`index ${answer} is out of range`);
    }
    if (choices && index >= choices.length)
      return fail(`index ${answer} but only ${choices.length} choices`);
    return LETTERS[index]!;
  }
  if (typeof answer !== "string")
    return fail(`got ${answer === undefined ? "no answer" : typeof answer}`);
  const letter = /^\(?([A-Ja-j])\)?\.?$/.exec(answer.trim())?.[1];
  if (letter) return letter.toUpperCase();
  const byText = letterOfText(answer, choices);
  if (byText) return byText;
  return fail(`"${answer.slice(0, 40)}" is neither a letter nor one of the choices`);
}

/** Grades a multiple-choice response. Letters compare case-insensitively. */
export const multipleChoiceGrader: Grader = (task, response) => {
  const choices = choicesOf(task);
  const expected = expectedLetter(task, choices);
  const found = extractChoice(response, choices);
  const extracted = found.text ?? found.letter ?? null;
  if (!found.letter) {
    return {
      reward: 0,
      isCorrect: false,
      metadata: { extracted, predicted: null, expected, reason: "no choice found" },
    };
  }
  const isCorrect = found.letter === expected;
  return {
    reward: isCorrect ? 1 : 0,
    isCorrect,
    metadata: { extracted, predicted: found.letter, expected, extractedFrom: found.source },
  };
};
