/**
 * chrF (Popović 2015) and chrF++ (Popović 2017) as sacrebleu 2.6 computes a sentence score
 * (sacrebleu/metrics/chrf.py, `CHRF.sentence_score` with its defaults, and metrics/helpers.py for
 * the n-gram extraction), and the `chrf` grader for translation benchmarks (WMT24++).
 *
 * The score, for one hypothesis against one reference:
 * - character n-grams of orders 1..6 are taken after deleting every whitespace character (Python's
 *   `''.join(s.split())`, so the whitespace set is Python's `str.isspace`, not JavaScript's `\s`);
 *   characters are Unicode code points (an emoji is one character, as in Python), case is kept;
 * - chrF++ (`wordOrder: 2`) adds word unigrams and bigrams, words being the whitespace-split tokens
 *   with one ASCII punctuation character split off the end (else off the start) of each token
 *   longer than one character (chrF's reference tokenisation; "(hi)" becomes "(hi" and ")");
 * - for each order n: hyp_n, ref_n = the n-gram counts, match_n = Σ min(count in hyp, count in ref);
 *   an order counts only when hyp_n > 0 and ref_n > 0 ("effective order"; sacrebleu's
 *   `eps_smoothing=False`, the default);
 * - P = mean over the effective orders of match_n / hyp_n, R = mean of match_n / ref_n;
 * - chrF = 100 · (1 + β²) · P · R / (β² · P + R) with β = 2, and 0 when P + R = 0 (no effective
 *   order, or nothing matched).
 * Edge cases therefore decided as sacrebleu does: an empty (or whitespace-only) hypothesis or
 * reference scores 0; identical non-empty texts score 100; a one-character text has only its
 * unigram order, so "a" against "a" is 100.
 *
 * The float operations run in sacrebleu's order, so scores agree with it to the last bit on the
 * fixture (fixtures/chrf-sacrebleu.json, made by fixtures/make-chrf.py with sacrebleu 2.6.0).
 *
 * The grader's translation is read from the response as follows (decided once, for every
 * benchmark that uses this grader): the content of the last fenced code block when there is one;
 * else the text after the last line-initial "Translation:" cue (any case, markdown bold allowed,
 * up to the end of the response); else the whole response. The result is trimmed. A prompt that
 * wants no extraction at all should ask for the bare translation, which the last rule takes as is.
 */
import { z } from "zod";
import type { EvalOutput, Task } from "../types/index.js";
import { extractProgram } from "./code-task.js";
import type { Grader } from "./types.js";

/** Character n-gram order (sacrebleu's CHRF.CHAR_ORDER). */
const CHAR_ORDER = 6;
/** β: recall weighs β times as much as precision (sacrebleu's CHRF.BETA). */
const BETA = 2;

/** The code points Python's `str.isspace` accepts: what `str.split()` splits on. */
const PY_WHITESPACE = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001,
  0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f,
  0x205f, 0x3000,
]);

/** ASCII punctuation (Python's `string.punctuation`): what chrF++ splits off words. */
const PUNCTUATION = new Set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~");

/** Python's `s.split()`: the non-empty runs between whitespace. */
function pySplit(text: string): string[] {
  const words: string[] = [];
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    // Every whitespace code point is in the BMP, so UTF-16 units suffice here.
    const space = i === text.length || PY_WHITESPACE.has(text.charCodeAt(i));
    if (space && start >= 0) {
      words.push(text.slice(start, i));
      start = -1;
    } else if (!space && start < 0) start = i;
  }
  return words;
}

type Counts = Map<string, number>;

function add(counts: Counts, gram: string): void {
  counts.set(gram, (counts.get(gram) ?? 0) + 1);
}

function wordNgrams(words: readonly string[], n: number): Counts {
  const counts: Counts = new Map();
  for (let i = 0; i + n <= words.length; i++) add(counts, words.slice(i, i + n).join(" "));
  return counts;
}

/** chrF's word tokenisation for chrF++ (sacrebleu's `_remove_punctuation`). */
function chrfWords(text: string): string[] {
  const words: string[] = [];
  for (const w of pySplit(text)) {
    const chars = [...w];
    if (chars.length === 1) words.push(w);
    else if (PUNCTUATION.has(chars.at(-1)!)) words.push(chars.slice(0, -1).join(""), chars.at(-1)!);
    else if (PUNCTUATION.has(chars[0]!)) words.push(chars[0]!, chars.slice(1).join(""));
    else words.push(w);
  }
  return words;
}

/**
 * Character n-gram counts of `text` for n = 1..order, by code point (a surrogate pair is one
 * character, as in Python): `starts` holds where each character begins, so an n-gram is one slice.
 */
function charNgrams(text: string, order: number): Counts[] {
  const starts: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const low = text.charCodeAt(i + 1);
    starts.push(i);
    if (unit >= 0xd800 && unit <= 0xdbff && low >= 0xdc00 && low <= 0xdfff) i++;
  }
  starts.push(text.length);
  const orders: Counts[] = [];
  for (let n = 1; n <= order; n++) {
    const counts: Counts = new Map();
    for (let i = 0; i + n < starts.length; i++) add(counts, text.slice(starts[i], starts[i + n]));
    orders.push(counts);
  }
  return orders;
}

/** The n-gram counts of every order: character orders 1..6, then word orders 1..wordOrder. */
function allNgrams(text: string, wordOrder: number): Counts[] {
  const orders = charNgrams(pySplit(text).join(""), CHAR_ORDER);
  if (wordOrder > 0) {
    const words = chrfWords(text);
    for (let n = 1; n <= wordOrder; n++) orders.push(wordNgrams(words, n));
  }
  return orders;
}

/** [hyp n-grams, ref n-grams, matches] of one order (sacrebleu's `_get_match_statistics`). */
function matchStatistics(hyp: Counts, ref: Counts): [number, number, number] {
  let matches = 0;
  let hypTotal = 0;
  for (const [gram, c] of hyp) {
    hypTotal += c;
    const r = ref.get(gram);
    if (r !== undefined) matches += Math.min(c, r);
  }
  let refTotal = 0;
  for (const c of ref.values()) refTotal += c;
  return [ref.size > 0 ? hypTotal : 0, refTotal, matches];
}

/** The F-score of the per-order statistics with effective-order averaging, 0..100. */
function fScore(stats: [number, number, number][]): number {
  const factor = BETA ** 2;
  let avgPrec = 0;
  let avgRec = 0;
  let effectiveOrder = 0;
  for (const [nHyp, nRef, nMatch] of stats) {
    if (nHyp > 0 && nRef > 0) {
      avgPrec += nMatch / nHyp;
      avgRec += nMatch / nRef;
      effectiveOrder++;
    }
  }
  if (effectiveOrder > 0) {
    avgPrec /= effectiveOrder;
    avgRec /= effectiveOrder;
  }
  if (avgPrec + avgRec === 0) return 0;
  let score = (1 + factor) * avgPrec * avgRec;
  score /= factor * avgPrec + avgRec;
  return 100 * score;
}

/**
 * Sentence-level chrF (or chrF++ with `wordOrder: 2`) of `hypothesis` against `reference`, 0-100,
 * equal to sacrebleu's `CHRF(word_order=wordOrder).sentence_score(hypothesis, [reference]).score`.
 */
export function chrfScore(hypothesis: string, reference: string, wordOrder = 0): number {
  const hyp = allNgrams(hypothesis, wordOrder);
  const ref = allNgrams(reference, wordOrder);
  return fScore(hyp.map((h, i) => matchStatistics(h, ref[i]!)));
}

/** The translation inside a response (see the header for the rule). */
export function extractTranslation(response: string): string {
  const fenced = extractProgram(response);
  if (fenced.fence !== undefined) return fenced.code.trim();
  const cues = [...response.matchAll(/^[ \t>*_]*translation[ \t*_]*:[ \t*_]*/gim)];
  const last = cues.at(-1);
  if (last) return response.slice(last.index + last[0].length).trim();
  return response.trim();
}

export const ChrfGraderOptionsSchema = z
  .object({
    /** 0: chrF (the default, sacrebleu's); 2: chrF++ (word unigrams and bigrams added). */
    wordOrder: z.union([z.literal(0), z.literal(2)]).default(0),
  })
  .strict();

export type ChrfGraderOptions = z.input<typeof ChrfGraderOptionsSchema>;

function chrfReference(task: Task): string {
  const reference = task.data["reference"];
  if (typeof reference !== "string") {
    throw new Error(
      `chrf grader: task ${task.id} needs data.reference (the reference translation, a string); ` +
        `got ${reference === undefined ? "no such field" : typeof reference}.`,
    );
  }
  return reference;
}

/**
 * The chrF grader: reward = chrF / 100 of the extracted translation against `data.reference`;
 * `isCorrect` when the score is 100 (the translation equals the reference up to whitespace).
 * Metadata: `score` (0-100) and `translation` (what was scored).
 */
export function chrfGrader(options: ChrfGraderOptions = {}): Grader {
  const { wordOrder } = ChrfGraderOptionsSchema.parse(options);
  return (task, response): EvalOutput => {
    const reference = chrfReference(task);
    const translation = extractTranslation(response);
    const score = chrfScore(translation, reference, wordOrder);
    return {
      reward: score / 100,
      isCorrect: score === 100,
      signals: { chrf: score },
      metadata: { score, translation },
    };
  };
}
