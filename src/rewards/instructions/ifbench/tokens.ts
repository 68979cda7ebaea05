/**
 * IFBench's word helpers beyond IFEval's (allenai/IFBench `ifbench/instructions_util.py`); the
 * shared ones (`count_words`, NLTK's `word_tokenize`) are in ../text.ts.
 * - `wordTokensWithoutPunctuation`: the word tokens with at least one letter or digit.
 * - `countStopwords` is `count_stopwords`: the `\w+` tokens that, lower-cased, are in NLTK's English
 *   stop word list (nltk_data corpora/stopwords/english). Its entries with an apostrophe ("don't",
 *   "you're", and the 19 the 2024 list added) can never equal a `\w+` token, so they are left out:
 *   the count is the same with either version of the list.
 */

import { PY_WORD_CHAR } from "../python.js";
import { wordTokenize } from "../text.js";

const WORD_RUN = new RegExp(`${PY_WORD_CHAR}+`, "gu");

/** `[t for t in word_tokenize(text) if any(ch.isalnum() for ch in t)]` (the reference's helper). */
export function wordTokensWithoutPunctuation(text: string): string[] {
  return wordTokenize(text).filter((t) => /[\p{L}\p{N}]/u.test(t));
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
