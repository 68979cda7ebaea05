/**
 * Text measures the verifiable-instruction checkers (IFEval, IFBench) share, with the semantics of
 * the Python references (IFEval's `instructions_util.py`, which IFBench copies; Python's string
 * rules are in python.ts):
 *
 * - `countWords`: NLTK `RegexpTokenizer(r"\w+")` with Python's `\w`, so a Devanagari word splits
 *   at its vowel signs, as the reference does;
 * - `countSentences`: NLTK's English Punkt (punkt.ts);
 * - `wordTokenize`: NLTK's `word_tokenize` (Punkt sentences, then `NLTKWordTokenizer`, the improved
 *   Treebank tokenizer of nltk/tokenize/destructive.py), which splits contractions ("DON'T" →
 *   "DO", "N'T"; "CANNOT" → "CAN", "NOT") and punctuation off words.
 *
 * NLTK version: 3.9 (the `re` engine), what the published IFEval results were computed with;
 * IFBench pins 3.9.2, whose punkt.py and destructive.py do the same for English as 3.9.1's.
 * NLTK 3.10 moved its tokenizers to the `regex` engine, whose `\w` also takes combining marks
 * (so Hindi words stop splitting) and changed a few quote rules; its results differ on such text.
 */
import { punktSentences } from "./punkt.js";
import { PY_SPACE, PY_WORD_CHAR, pySplit } from "./python.js";

/** `count_words` (IFEval's, which IFBench copies): the number of runs of `\w` characters. */
export function countWords(text: string): number {
  return text.match(new RegExp(`${PY_WORD_CHAR}+`, "gu"))?.length ?? 0;
}

/** IFEval's `count_sentences`: the number of sentences NLTK's English Punkt model finds. */
export function countSentences(text: string): number {
  return punktSentences(text).length;
}

/** The comparisons IFEval's count instructions take (`_COMPARISON_RELATION`). */
export const RELATIONS = ["less than", "at least"] as const;
export type Relation = (typeof RELATIONS)[number];

/** `actual < threshold` for "less than", `actual >= threshold` for "at least". */
export function compareCount(actual: number, relation: Relation, threshold: number): boolean {
  return relation === "less than" ? actual < threshold : actual >= threshold;
}

// NLTKWordTokenizer's rules, in its order (destructive.py). `W` is Python's `\w`; `\b` next to a
// word character becomes a look-around on W.
const W = PY_WORD_CHAR;
const S = PY_SPACE;
const Q_CLOSE = "\\]\\)}>\"'»”’ ";
type Rule = readonly [RegExp, string];
const STARTING_QUOTES: Rule[] = [
  [/([«“‘„]|`+)/gu, " $1 "],
  [/^"/u, "``"],
  [/(``)/gu, " $1 "],
  [/([ ([{<])("|'{2})/gu, "$1 `` "],
  [new RegExp(`(')(?!re|ve|ll|m|t|s|d|n)(${W})(?!${W})`, "giu"), "$1 $2"],
];
const PUNCTUATION: Rule[] = [
  // (?=(X*))\3 is X*+ (possessive, as nltk 3.10 writes it; the same splits): a long run of
  // spaces after a period would otherwise be retried at every length.
  [new RegExp(`([^.])(\\.)(?=([${Q_CLOSE}]*))\\3${S}*$`, "u"), "$1 $2 $3 "],
  [/([:,])(\P{Nd})/gu, " $1 $2"],
  [/([:,])$/u, " $1 "],
  [/\.{2,}/gu, " $& "],
  [/[;@#$%&]/gu, " $& "],
  [new RegExp(`([^.])(\\.)([\\])}>"']*)${S}*$`, "u"), "$1 $2$3 "],
  [/[?!]/gu, " $& "],
  [/([^'])' /gu, "$1 ' "],
  [/[*]/gu, " $& "],
];
const PARENS_BRACKETS: Rule = [/[\][(){}<>]/gu, " $& "];
const DOUBLE_DASHES: Rule = [/--/gu, " -- "];
const ENDING_QUOTES: Rule[] = [
  [/([»”’])/gu, " $1 "],
  [/''/gu, " '' "],
  [/"/gu, " '' "],
  [new RegExp(`${S}+`, "gu"), " "],
  [/([^' ])('[sS]|'[mM]|'[dD]|') /gu, "$1 $2 "],
  [/([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) /gu, "$1 $2 "],
];
const CONTRACTIONS: Rule[] = [
  ...[
    "(can)(not)",
    "(d)('ye)",
    "(gim)(me)",
    "(gon)(na)",
    "(got)(ta)",
    "(lem)(me)",
    "(more)('n)",
  ].map((p): Rule => [new RegExp(`(?<!${W})${p}(?!${W})`, "giu"), " $1 $2 "]),
  [new RegExp(`(?<!${W})(wan)(na)(?=${S})`, "giu"), " $1 $2 "],
  [new RegExp(` ('t)(is)(?!${W})`, "giu"), " $1 $2 "],
  [new RegExp(` ('t)(was)(?!${W})`, "giu"), " $1 $2 "],
];

function treebankTokens(sentence: string): string[] {
  let text = sentence;
  const apply = (rules: readonly Rule[]) => {
    for (const [re, by] of rules) text = text.replace(re, by);
  };
  apply(STARTING_QUOTES);
  apply(PUNCTUATION);
  apply([PARENS_BRACKETS, DOUBLE_DASHES]);
  text = ` ${text} `;
  apply(ENDING_QUOTES);
  apply(CONTRACTIONS);
  return pySplit(text);
}

/** NLTK's `word_tokenize(text)` (English). */
export function wordTokenize(text: string): string[] {
  return punktSentences(text).flatMap(treebankTokens);
}
