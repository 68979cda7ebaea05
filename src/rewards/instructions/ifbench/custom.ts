/**
 * IFBench's `custom:*` instructions: fixed tasks whose answer the checker knows (allenai/IFBench
 * `ifbench/instructions.py`: PrintMultiplesChecker, MultipleChoiceQuestionsChecker,
 * ReverseNewlineChecker, WordReverseOrderChecker, CharacterReverseOrderChecker,
 * SentenceAlphabetChecker, EuropeanCapitalsSortChecker, CityCSVChecker, SpecialCharacterCSVChecker,
 * QuotesCSVChecker, DateFormatListChecker). They take no kwargs; the facts (the capitals' order,
 * the year range of Napoleon's battles, 1769–1821) are the reference's.
 *
 * The CSV checkers parse with Python's csv rules (csv.ts). Two of them first triple every `"` (the
 * reference's way of keeping the quotes of a quoted field in the parsed value). Where the
 * reference would crash on a response (an empty field in `custom:csv_quotes`), the answer fails.
 */

import { plain } from "../args.js";
import { punktSentences } from "../punkt.js";
import { asciiFold, pySplit, removePunctuation, stripPunctSpace } from "../python.js";
import type { InstructionChecker } from "../types.js";
import { readCsv } from "./csv.js";

/** European capitals north of 45°, by latitude from the highest. */
const CAPITALS_BY_LATITUDE = (
  "Reykjavik Helsinki Oslo Tallinn Stockholm Riga Moscow Copenhagen Vilnius Minsk Dublin Berlin " +
  "Amsterdam Warsaw London Brussels Prague Luxembourg Paris Vienna Bratislava Budapest Vaduz " +
  "Chisinau Bern Ljubljana Zagreb"
).split(" ");

/** Exactly four "Question N" blocks from the first character, five lettered options each, the
 * question texts (before the first option) strictly longer one after another. */
function multipleChoiceQuestions(value: string): boolean {
  if (!value.startsWith("Question")) return false;
  let parts = value.split(/\n*(?:Question \d+[.|):;]?\s*)/u);
  if (parts[0] === "") parts = parts.slice(1);
  const questions = parts.map((q) => q.trim()).filter((q) => q !== "");
  if (questions.length !== 4) return false;
  const lengths: number[] = [];
  for (const q of questions) {
    let text = "";
    let options = 0;
    for (const line of q.split("\n")) {
      if (/^[A-Ea-e][.|)]\s*[\p{L}\p{N}_]/u.test(line.trim())) options++;
      else if (options === 0) text += " " + line.trim();
    }
    if (options !== 5) return false;
    lengths.push([...text.trim()].length);
  }
  return lengths.every((n, i) => i === 0 || n > lengths[i - 1]!);
}

/** From the first line naming Zimbabwe, at least 52 lines in reverse alphabetical order (lines
 * stripped of punctuation, compared without diacritics). */
function africaReversed(value: string): boolean {
  const lines = value
    .split("\n")
    .map(stripPunctSpace)
    .filter((l) => l !== "");
  const start = lines.findIndex((l) => l.includes("Zimbabwe"));
  if (start === -1) return false;
  const target = lines.slice(start).map(asciiFold);
  if (target.length < 52) return false;
  const sorted = [...target].sort().reverse();
  return target.every((l, i) => l === sorted[i]);
}

/** The answer's words reversed back form one sentence that says "bald eagle". */
function wordsReversed(value: string): boolean {
  const words = pySplit(removePunctuation(value.toLowerCase().trim()));
  const restored = words.reverse().join(" ");
  return restored.includes("bald eagle") && punktSentences(restored).includes(restored);
}

/** 26 sentences whose first words start with a, b, c, … z in order. */
function alphabetSentences(value: string): boolean {
  const sentences = punktSentences(value);
  if (sentences.length !== 26) return false;
  return sentences.every((s, i) => {
    const word = pySplit(s)[0];
    return word !== undefined && [...word.toLowerCase()][0] === String.fromCharCode(97 + i);
  });
}

function capitalsSorted(value: string): boolean {
  const names = asciiFold(value)
    .split(",")
    .filter((c) => c.trim() !== "");
  return (
    names.length === CAPITALS_BY_LATITUDE.length &&
    names.every((c, i) => c.trim() === CAPITALS_BY_LATITUDE[i])
  );
}

function cityCsv(value: string): boolean {
  const rows = readCsv(value, ",");
  if (rows.length !== 8) return false;
  if (rows[0]!.join("\u0000") !== ["ID", "Country", "City", "Year", "Count"].join("\u0000")) {
    return false;
  }
  return rows.slice(1).every((r) => r.length === 5);
}

const PRODUCT_HEADER =
  /^(ProductID|"ProductID"),[ \t]*(Category|"Category"),[ \t]*(Brand|"Brand"),[ \t]*(Price|"Price"),[ \t]*(Stock|"Stock")$/u;
const STUDENT_HEADER =
  /^(StudentID|"StudentID")\t *(Subject|"Subject")\t *(Grade|"Grade")\t *(Semester|"Semester")\t *(Score|"Score")$/u;
const firstLine = (value: string) => value.split("\n")[0]!.trim();
const tripleQuotes = (value: string) => value.replaceAll('"', '"""');

/** Product CSV: its header, 14 rows of 5 fields, and a quoted field holding a special character
 * (rows are checked in order; the first row with such a field answers, a short row before it
 * fails). */
function specialCharacterCsv(value: string): boolean {
  if (!PRODUCT_HEADER.test(firstLine(value))) return false;
  const rows = readCsv(tripleQuotes(value), ",");
  if (rows.length !== 15) return false;
  for (const row of rows.slice(1)) {
    if (row.length !== 5) return false;
    if (row.some((f) => /^".*[^\d\p{L}\p{N}_\s].*"/u.test(f))) return true;
  }
  return false;
}

/** Student TSV: its header, 3 rows, 5 fields each, every field in double quotes. */
function quotedTsv(value: string): boolean {
  if (!STUDENT_HEADER.test(firstLine(value))) return false;
  const rows = readCsv(tripleQuotes(value), "\t");
  if (rows.length !== 4) return false;
  return rows.every(
    (row) =>
      row.length === 5 &&
      row.every((f) => {
        const t = f.trim();
        return t.length > 0 && t.startsWith('"') && t.endsWith('"');
      }),
  );
}

/** Comma-separated YYYY-MM-DD dates in 1769–1821 with a possible month and day. */
function napoleonDates(value: string): boolean {
  return value
    .trim()
    .split(",")
    .every((raw) => {
      const date = raw.trim();
      if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return false;
      const [y, m, d] = date.split("-").map(Number) as [number, number, number];
      if (y < 1769 || y > 1821 || m > 12) return false;
      if ([1, 3, 5, 7, 8, 10, 12].includes(m)) return d <= 31;
      if ([4, 6, 9, 11].includes(m)) return d <= 30;
      return m !== 2 || d <= 29;
    });
}

export const CUSTOM_CHECKERS: InstructionChecker[] = [
  plain("custom:multiples", (value) => {
    const numbers = value.replaceAll(",", ", ").match(/\p{Nd}+/gu) ?? [];
    return numbers.join(",") === "14,21,28,35,42,49";
  }),
  plain("custom:mcq_count_length", multipleChoiceQuestions),
  plain("custom:reverse_newline", africaReversed),
  plain("custom:word_reverse", wordsReversed),
  plain("custom:character_reverse", (value) => value.toLowerCase().includes("elgae dlab")),
  plain("custom:sentence_alphabet", alphabetSentences),
  plain("custom:european_capitals_sort", capitalsSorted),
  plain("custom:csv_city", cityCsv),
  plain("custom:csv_special_character", specialCharacterCsv),
  plain("custom:csv_quotes", quotedTsv),
  plain("custom:date_format_list", napoleonDates),
];
