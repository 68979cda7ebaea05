/**
 * IFEval's length instructions (instructions.py: NumberOfSentences, ParagraphChecker,
 * NumberOfWords, ParagraphFirstWordCheck).
 *
 * - Sentences: NLTK's English Punkt tokenizer (punkt.ts), as `count_sentences` does.
 * - Words: runs of Python `\w` characters (`count_words`).
 * - number_paragraphs: paragraphs are separated by the markdown divider `***` (with at most one
 *   white-space character either side); an empty first or last piece is not a paragraph, an empty
 *   one between two dividers fails the instruction; the count must be exact.
 * - nth_paragraph_first_word: paragraphs are separated by "\n\n"; blank pieces are not counted,
 *   but the n-th piece is taken from the split as is (the reference's indexing); its first
 *   white-space-separated word, without leading quotes and cut at the first . , ? ! ' ", must equal
 *   `first_word` (case-insensitively), and the paragraph count must be exact.
 */
import { instruction } from "../args.js";
import { pySplit, pyStrip } from "../python.js";
import { compareCount, countSentences, countWords } from "../text.js";
import { InstructionArgsError } from "../types.js";

export const numberSentences = instruction("length_constraints:number_sentences", (response, a) =>
  compareCount(countSentences(response), a.relation("relation"), a.int("num_sentences")),
);

export const numberWords = instruction("length_constraints:number_words", (response, a) =>
  compareCount(countWords(response), a.relation("relation"), a.int("num_words")),
);

export const numberParagraphs = instruction(
  "length_constraints:number_paragraphs",
  (response, a) => {
    const paragraphs = response.split(/\s?\*\*\*\s?/u);
    let count = paragraphs.length;
    for (const [i, p] of paragraphs.entries()) {
      if (pyStrip(p) !== "") continue;
      if (i !== 0 && i !== paragraphs.length - 1) return false;
      count--;
    }
    return count === a.int("num_paragraphs");
  },
);

const WORD_END = new Set([".", ",", "?", "!", "'", '"']);

export const nthParagraphFirstWord = instruction(
  "length_constraints:nth_paragraph_first_word",
  (response, a) => {
    const expectedCount = a.int("num_paragraphs");
    const nth = a.int("nth_paragraph");
    if (nth < 1 || nth > expectedCount) {
      throw new InstructionArgsError(
        "length_constraints:nth_paragraph_first_word",
        "nth_paragraph",
        `must be between 1 and num_paragraphs (${expectedCount}), got ${nth}`,
      );
    }
    const firstWord = a.text("first_word").toLowerCase();
    const paragraphs = response.split("\n\n");
    const count = paragraphs.filter((p) => pyStrip(p) !== "").length;
    if (nth > count) return false;
    const paragraph = pyStrip(paragraphs[nth - 1]!);
    if (paragraph === "") return false;
    const word = pySplit(paragraph)[0]!.replace(/^'+/u, "").replace(/^"+/u, "");
    let first = "";
    for (const c of word) {
      if (WORD_END.has(c)) break;
      first += c.toLowerCase();
    }
    return count === expectedCount && first === firstWord;
  },
);
