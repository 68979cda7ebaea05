/**
 * Word-level text utilities of IFBench (allenai/IFBench `ifbench/instructions_util.py`) and the NLTK
 * functions behind them:
 * - `wordTokenize` is `nltk.word_tokenize`: Punkt sentences (punkt.ts), each split by
 *   NLTKWordTokenizer's regular expressions (nltk/tokenize/destructive.py of NLTK 3.9.2, which
 *   IFBench's lock file pins; 3.10 also splits off en/em dashes and reads a leading apostrophe
 *   differently), applied in its order.
 *   Python's `\w`/`\b` are Unicode-aware, JavaScript's `\b` is ASCII: the contraction rules, whose
 *   words are ASCII, can differ only next to a non-ASCII letter.
 * - `countWords` is `count_words`: the tokens of `RegexpTokenizer(r"\w+")`.
 * - `countStopwords` is `count_stopwords`: those tokens that, lower-cased, are in NLTK's English
 *   stop word list (nltk_data corpora/stopwords/english). Its entries with an apostrophe ("don't",
 *   "you're", and the 19 the 2024 list added) can never equal a `\w+` token, so they are left out:
 *   the count is the same with either version of the list.
 */
import { sentTokenize } from "./punkt.js";
import { WORD_CHAR as W } from "./python.js";

const WORD_RUN = /[\p{L}\p{N}_]+/gu;

type Rule = [RegExp, string];

const STARTING_QUOTES: Rule[] = [
  [/([«“‘„]|[`]+)/gu, " $1 "],
  [/^"/u, "``"],
  [/(``)/gu, " $1 "],
  [/([ ([{<])("|'{2})/gu, "$1 `` "],
  [new RegExp(`(')(?!re|ve|ll|m|t|s|d|n)(${W})(?!${W})`, "giu"), "$1 $2"],
];

const PUNCTUATION: Rule[] = [
  [/([^.])(\.)([\])}>"'»”’ ]*)\s*$/u, "$1 $2 $3 "],
  [/([:,])([^\d])/gu, " $1 $2"],
  [/([:,])$/u, " $1 "],
  [/\.{2,}/gu, " $& "],
  [/[;@#$%&]/gu, " $& "],
  [/([^.])(\.)([\])}>"']*)\s*$/u, "$1 $2$3 "],
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
  [/\s+/gu, " "],
  [/([^' ])('[sS]|'[mM]|'[dD]|') /gu, "$1 $2 "],
  [/([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) /gu, "$1 $2 "],
];

// MacIntyre's contractions ("cannot" → "can not", "gonna" → "gon na", " 'tis" → " 't is").
const CONTRACTIONS: RegExp[] = [
  /\b(can)(not)\b/giu,
  /\b(d)('ye)\b/giu,
  /\b(gim)(me)\b/giu,
  /\b(gon)(na)\b/giu,
  /\b(got)(ta)\b/giu,
  /\b(lem)(me)\b/giu,
  /\b(more)('n)\b/giu,
  /\b(wan)(na)(?=\s)/giu,
  / ('t)(is)\b/giu,
  / ('t)(was)\b/giu,
];

const apply = (text: string, rules: Rule[]) =>
  rules.reduce((t, [re, sub]) => t.replace(re, sub), text);

/** NLTKWordTokenizer.tokenize on one sentence. */
function treebankTokens(sentence: string): string[] {
  let text = apply(sentence, STARTING_QUOTES);
  text = apply(text, PUNCTUATION);
  text = apply(text, [PARENS_BRACKETS, DOUBLE_DASHES]);
  text = apply(` ${text} `, ENDING_QUOTES);
  for (const re of CONTRACTIONS) text = text.replace(re, " $1 $2 ");
  return text.split(/\s+/).filter((t) => t !== "");
}

/** `nltk.word_tokenize(text)`. */
export function wordTokenize(text: string): string[] {
  return sentTokenize(text).flatMap(treebankTokens);
}

/** `[t for t in word_tokenize(text) if any(ch.isalnum() for ch in t)]` (the reference's helper). */
export function wordTokensWithoutPunctuation(text: string): string[] {
  return wordTokenize(text).filter((t) => /[\p{L}\p{N}]/u.test(t));
}

/** `instructions_util.count_words`: the number of `\w+` runs. */
export function countWords(text: string): number {
  return text.match(WORD_RUN)?.length ?? 0;
}

/** NLTK's English stop words without the entries that contain an apostrophe (see the header). */
const STOPWORDS = new Set(
  (
    "i me my myself we our ours ourselves you your yours yourself yourselves he him his himself " +
    "she her hers herself it its itself they them their theirs themselves what which who whom " +
    "this that these those am is are was were be been being have has had having do does did " +
    "doing a an the and but if or because as until while of at by for with about against " +
    "between into through during before after above below to from up down in out on off over " +
    "under again further then once here there when where why how all any both each few more " +
    "most other some such no nor not only own same so than too very s t can will just don " +
    "should now d ll m o re ve y ain aren couldn didn doesn hadn hasn haven isn ma mightn " +
    "mustn needn shan shouldn wasn weren won wouldn"
  ).split(" "),
);

/** `instructions_util.count_stopwords`. */
export function countStopwords(text: string): number {
  return (text.match(WORD_RUN) ?? []).filter((t) => STOPWORDS.has(t.toLowerCase())).length;
}
