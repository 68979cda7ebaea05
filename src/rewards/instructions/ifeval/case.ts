/**
 * IFEval's case instructions (instructions.py: CapitalWordFrequencyChecker,
 * CapitalLettersEnglishChecker, LowercaseLettersEnglishChecker).
 *
 * - capital_word_frequency: NLTK word tokens (text.ts `wordTokenize`, so "DON'T" is two) that are
 *   upper case in Python's sense (`str.isupper`).
 * - english_capital / english_lowercase: the whole response is upper / lower case (Python's
 *   `isupper` / `islower`: some cased letter, none of the other case) and its language is English;
 *   a response whose language cannot be told passes the language half, as in the reference.
 *   Where the two differ: langdetect skips every word written in capitals, so on upper-case text it
 *   judges by stray one-letter words and often calls plain English something else (the reference
 *   then fails an all-caps English answer); franc reads the letters whatever their case. On
 *   generated responses (bench/ifeval-reference.ts) the two agreed on 97.9% of english_capital and
 *   98% of english_lowercase cases, the rest being such upper-case text and two-word fragments.
 */
import { instruction } from "../args.js";
import { detectLanguage } from "../language.js";
import { pyIsLower, pyIsUpper } from "../python.js";
import { compareCount, wordTokenize } from "../text.js";

export const capitalWordFrequency = instruction(
  "change_case:capital_word_frequency",
  (response, a) => {
    const capitalWords = wordTokenize(response).filter(pyIsUpper).length;
    return compareCount(capitalWords, a.relation("capital_relation"), a.int("capital_frequency"));
  },
);

const englishOrUnknown = (text: string) => (detectLanguage(text) ?? "en") === "en";

export const englishCapital = instruction(
  "change_case:english_capital",
  (response) => pyIsUpper(response) && englishOrUnknown(response),
);

export const englishLowercase = instruction(
  "change_case:english_lowercase",
  (response) => pyIsLower(response) && englishOrUnknown(response),
);
