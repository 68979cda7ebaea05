/**
 * IFBench's `format:*` instructions (allenai/IFBench `ifbench/instructions.py`:
 * NestedParenthesesChecker, NestedQuotesChecker, OptionsResponseChecker, NewLineWordsChecker,
 * EmojiSentenceChecker, IndentStairsChecker, QuoteExplanationChecker, SpecialBulletPointsChecker,
 * ItalicsThesisChecker, SubBulletPointsChecker, SomeBulletPointsChecker, TitleCaseChecker,
 * OutputTemplateChecker, NoWhitespaceChecker). Each function's comment states the rule the reference
 * applies, which is sometimes looser than the instruction's wording (e.g. "sub-bullets" only needs
 * a "-" after every "*"); those rules are kept as they are, since they define the benchmark.
 *
 * Emoji: the reference asks the `emoji` package whether one character is an emoji. Its single-
 * character emoji are exactly Unicode's Emoji property minus # * 0-9 and the regional indicator
 * letters (checked against emoji 2.16 over every code point), plus nine Unicode 17 emoji that
 * Node's ICU may not know yet, listed explicitly.
 */

import { checker, plain } from "../args.js";
import { punktSentences } from "../punkt.js";
import {
  PY_PUNCTUATION,
  pyIsAlphaChar,
  pyIsLower,
  pyIsUpper,
  pySplit,
  removePunctuation,
  stripChars,
  stripPunctSpace,
} from "../python.js";
import { wordTokenize } from "../text.js";
import type { InstructionChecker } from "../types.js";

const EMOJI =
  /^(?:(?![#*0-9\u{1F1E6}-\u{1F1FF}])\p{Emoji}|[\u{1F6D9}\u{1FA8B}-\u{1FA8D}\u{1FACC}\u{1FADD}\u{1FAEB}\u{1FAF9}\u{1FAFA}])$/u;
const isEmoji = (c: string | undefined) => c !== undefined && EMOJI.test(c);

/** A bracket group ( [ { closed properly after reaching depth ≥ 5; a mismatch resets the count. */
function nestedBrackets(value: string): boolean {
  const pairs: Record<string, string> = { ")": "(", "]": "[", "}": "{" };
  let open: string[] = [];
  let maxDepth = 0;
  for (const c of value) {
    if ("([{".includes(c)) {
      open.push(c);
      maxDepth = Math.max(maxDepth, open.length);
    } else if (c in pairs) {
      if (open.length > 0 && open.at(-1) === pairs[c]) {
        open.pop();
        if (maxDepth >= 5 && open.length < maxDepth) return true;
      } else {
        open = [];
        maxDepth = 0;
      }
    }
  }
  return false;
}

/** Quotes inside quotes, 3 deep: a quote char closes the innermost open one when equal, else opens. */
function nestedQuotes(value: string): boolean {
  const open: string[] = [];
  let reached = 0;
  for (const c of value) {
    if (open.length > 0 && c === open.at(-1)) {
      open.pop();
      if (reached - open.length >= 3) return true;
    } else if (c === '"' || c === "'") {
      open.push(c);
      reached = Math.max(reached, open.length);
    }
  }
  return false;
}

interface Options {
  strict: boolean;
  options: string[];
}

/** The options text split on "/", else on "or" (anywhere, as a substring), else on ","; lettered
 * options (a), b), c)…) must be answered exactly, others up to case and outer punctuation. */
function parseOptions(text: string): Options {
  const strict = /^\W*[aA]\W*[bB]\W*[cC]\W*/.test(text);
  const separator = text.includes("/") ? "/" : text.includes("or") ? "or" : ",";
  return { strict, options: text.split(separator).map((o) => o.trim()) };
}

function answersOption(value: string, { strict, options }: Options): boolean {
  if (strict) return options.includes(value);
  const answer = stripPunctSpace(value).toLowerCase();
  return options.some((o) => stripPunctSpace(o).toLowerCase() === answer);
}

/** As many non-empty lines as words (after removing ASCII punctuation). */
function wordPerLine(value: string): boolean {
  const text = removePunctuation(value).trim();
  return text.split("\n").filter((l) => l !== "").length === pySplit(text).length;
}

/** Each sentence ends with an emoji (in its last two characters after punctuation is removed), or
 * the next sentence starts with one. */
function emojiSentences(value: string): boolean {
  const sentences = punktSentences(value);
  return sentences.every((sentence, i) => {
    const chars = [...removePunctuation(sentence).trim()];
    if (chars.length === 0) return false;
    if (isEmoji(chars.at(-1)) || isEmoji(chars.at(-2) ?? chars.at(-1))) return true;
    if (i === sentences.length - 1) return false;
    const next = [...removePunctuation(sentences[i + 1]!).trim()];
    return next.length > 0 && isEmoji(next[0]);
  });
}

/**
 * Each line indented by more spaces than the one before, blank lines dropped the way the reference
 * drops them: `for line in lines: if not line.strip(): lines.remove(line)` removes, from the list
 * it iterates, the first remaining line equal to the blank one, so the line after it is skipped
 * (a blank line right after a removed one stays, and counts as indentation 0). The first remaining
 * equal line is never after the current one, so the loop is replayed in one pass: a queue per blank
 * value gives the line to remove, and the walk steps over the next line. (Splicing the array as
 * the reference does took a second on 50,000 blank lines.)
 */
function indentStairs(value: string): boolean {
  const lines = value.split("\n");
  const removed = new Array<boolean>(lines.length).fill(false);
  const blanks = new Map<string, number[]>();
  lines.forEach((line, i) => {
    if (line.trim() !== "") return;
    const at = blanks.get(line);
    if (at) at.push(i);
    else blanks.set(line, [i]);
  });
  const nextOf = new Map<string, number>();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() !== "") continue;
    const k = nextOf.get(line) ?? 0;
    removed[blanks.get(line)![k]!] = true;
    nextOf.set(line, k + 1);
    i++; // the line that moved into the current place is not visited
  }
  const kept = lines.filter((_, i) => !removed[i]);
  const indent = (l: string) => l.length - l.replace(/^ +/, "").length;
  return kept.every((l, i) => i === 0 || indent(l) > indent(kept[i - 1]!));
}

/** With white space removed: no two double quotes adjacent, and the text (digits and punctuation
 * other than " trimmed) does not end with a double quote. */
function quoteExplained(value: string): boolean {
  const text = value.replaceAll("'\"'", "").replace(/\s+/g, "");
  if (text.includes('""')) return false;
  const trimmed = stripChars(text, "0123456789" + PY_PUNCTUATION.replace('"', ""));
  return trimmed === "" || !trimmed.endsWith('"');
}

/** Occurrences of the separator (non-overlapping) at least twice, anywhere. */
function separatorList(value: string, sep: string): boolean {
  let n = 0;
  for (let i = value.indexOf(sep); i !== -1 && n < 2; i = value.indexOf(sep, i + sep.length)) n++;
  return n >= 2;
}

/** An <i>…</i> (or <em>…</em>) with non-blank content and non-blank text after it. The reference
 * offsets by 3 and 4 characters whatever the tag, which is kept. */
function italicThesis(value: string): boolean {
  let start = value.indexOf("<i>");
  if (start === -1) start = value.indexOf("<em>");
  if (start === -1) return false;
  const rest = value.slice(start);
  let end = rest.indexOf("</i>");
  if (end === -1) end = rest.indexOf("</em>");
  if (end === -1) return false;
  return rest.slice(3, end).trim() !== "" && rest.slice(end + 4).trim() !== "";
}

/** At least two sentences in the leading non-bullet lines, then at least two lines starting with
 * "*", and nothing after the bullets. A blank line among the leading lines makes the next
 * non-bullet line fail (the reference's flag becomes an empty list there). */
function sentencesThenBullets(value: string): boolean {
  let inSentences = true;
  let sentenceCount = 0;
  let bullets = 0;
  for (const line of value.split("\n")) {
    if (line.trim().startsWith("*")) {
      inSentences = false;
      if (sentenceCount < 2) return false;
      bullets++;
    } else if (inSentences) {
      const sentences = punktSentences(line.trim());
      sentenceCount += sentences.length;
      inSentences = sentences.length > 0;
    } else {
      return false;
    }
  }
  return bullets >= 2;
}

/** Every NLTK token starting with a letter is capitalised: one letter upper-case; longer ones fail
 * when the first letter is lower-case and the rest all lower- or all upper-case. */
function titleCase(value: string): boolean {
  return wordTokenize(value).every((word) => {
    const cs = [...word];
    if (cs.length === 0 || !pyIsAlphaChar(cs[0]!)) return true;
    if (cs.length === 1) return !pyIsLower(cs[0]!);
    const head = cs[0]!;
    const tail = cs.slice(1).join("");
    if (pyIsUpper(head) && pyIsLower(tail)) return true;
    return !(pyIsLower(head) && (pyIsUpper(tail) || pyIsLower(tail)));
  });
}

export const FORMAT_CHECKERS: InstructionChecker[] = [
  plain("format:parentheses", nestedBrackets),
  plain("format:quotes", nestedQuotes),
  checker("format:options", ["options"], (r) => parseOptions(r.text("options")), answersOption),
  plain("format:newline", wordPerLine),
  plain("format:emoji", emojiSentences),
  plain("format:line_indent", indentStairs),
  plain("format:quote_unquote", quoteExplained),
  checker("format:list", ["sep"], (r) => r.text("sep"), separatorList),
  plain("format:thesis", italicThesis),
  plain("format:sub-bullets", (value) =>
    value
      .split("*")
      .slice(1)
      .every((part) => part.includes("-")),
  ),
  plain("format:no_bullets_bullets", sentencesThenBullets),
  plain("format:title_case", titleCase),
  plain(
    "format:output_template",
    (value) =>
      value.includes("My Answer:") &&
      value.includes("My Conclusion:") &&
      value.includes("Future Outlook:"),
  ),
  plain("format:no_whitespace", (value) => !/\s/u.test(value)),
];
