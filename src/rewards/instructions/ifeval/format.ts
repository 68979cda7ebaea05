/**
 * IFEval's detectable-format instructions (instructions.py: BulletListChecker,
 * ConstrainedResponseChecker, HighlightSectionChecker, SectionChecker, JsonFormat, TitleChecker).
 *
 * - Bullets: lines starting (after white space) with "*" not followed by another "*", or with "-";
 *   the count must be exact. As in the reference, "---" rules count as bullets.
 * - Constrained response: the response contains "My answer is yes.", "... no." or "... maybe.".
 * - Highlights: each non-blank `*text*` counts once and each non-blank `**text**` once more (a
 *   bold section counts twice, as in the reference); at least `num_highlights`.
 * - Sections: pieces after each "<spliter> <number>" (case-sensitive); at least `num_sections`.
 * - JSON: the response, trimmed and without the prefixes ```json, ```Json, ```JSON, ``` (removed
 *   in that order, each if present) and a ``` suffix,, parses as
 *   JSON. (Python's parser also takes NaN and Infinity; JSON.parse does not.)
 * - Title: some `<<...>>` on one line with something other than white space inside.
 */
import { instruction } from "../args.js";
import { pyIsSpace, pyStrip } from "../python.js";

export const numberBulletLists = instruction(
  "detectable_format:number_bullet_lists",
  (response, a) => {
    const isStar = (t: string, q: number) => t[q] === "*" && q + 1 < t.length && t[q + 1] !== "*";
    const stars = countLineStarts(response, isStar);
    const dashes = countLineStarts(response, (t, q) => t[q] === "-");
    return stars + dashes === a.int("num_bullets");
  },
);

/**
 * The matches Python's `re.findall(r"^\s*X.*$", text, re.MULTILINE)` finds, for a bullet X that
 * `isBullet(text, q)` recognises at q: from a line start, white space (which may cross lines), the
 * bullet, then the rest of its line; the next match is looked for after it. A scan, since the
 * regex is quadratic on long runs of blank lines: every line start in a run of white space reaches
 * the same first non-space character, so a failed run is skipped whole.
 */
function countLineStarts(text: string, isBullet: (text: string, q: number) => boolean): number {
  let count = 0;
  let pos = 0;
  while (pos <= text.length) {
    let lineStart = pos;
    if (pos !== 0 && text[pos - 1] !== "\n") {
      const newline = text.indexOf("\n", pos);
      if (newline < 0) break;
      lineStart = newline + 1;
    }
    let q = lineStart;
    while (q < text.length && pyIsSpace(text[q]!)) q++;
    if (q < text.length && isBullet(text, q)) {
      count++;
      // The bullet (a star takes the character after it too, even a newline), then its line.
      let end = text[q] === "*" ? q + 2 : q + 1;
      while (end < text.length && text[end] !== "\n") end++;
      pos = end;
    } else {
      pos = q + 1;
    }
  }
  return count;
}

const ANSWER_OPTIONS = ["My answer is yes.", "My answer is no.", "My answer is maybe."];

export const constrainedResponse = instruction(
  "detectable_format:constrained_response",
  (response) => {
    const value = pyStrip(response);
    return ANSWER_OPTIONS.some((o) => value.includes(o));
  },
);

export const numberHighlightedSections = instruction(
  "detectable_format:number_highlighted_sections",
  (response, a) => {
    const single = response.match(/\*[^\n*]*\*/gu) ?? [];
    const double = response.match(/\*\*[^\n*]*\*\*/gu) ?? [];
    const count =
      single.filter((h) => pyStrip(h.replace(/^\*+|\*+$/gu, "")) !== "").length +
      double.filter((h) => pyStrip(h.slice(2, -2)) !== "").length;
    return count >= a.int("num_highlights");
  },
);

export const multipleSections = instruction(
  "detectable_format:multiple_sections",
  (response, a) => {
    const spliter = a.text("section_spliter").trim();
    const splitter = a.regex("section_spliter", `\\s?${spliter}\\s?\\p{Nd}+\\s?`, "");
    return response.split(splitter).length - 1 >= a.int("num_sections");
  },
);

export const jsonFormat = instruction("detectable_format:json_format", (response) => {
  let value = pyStrip(response);
  for (const fence of ["```json", "```Json", "```JSON", "```"]) {
    if (value.startsWith(fence)) value = value.slice(fence.length);
  }
  if (value.endsWith("```")) value = value.slice(0, -3);
  try {
    JSON.parse(pyStrip(value));
    return true;
  } catch {
    return false;
  }
});

/**
 * `<<[^\n]+>>` matches, on each line, from the first "<<" to the last ">>" that leaves a character
 * between them (it is greedy), and nothing after that; found by index here, as the regex is
 * quadratic on a line of many "<<".
 */
export const title = instruction("detectable_format:title", (response) =>
  response.split("\n").some((line) => {
    const open = line.indexOf("<<");
    const close = line.lastIndexOf(">>");
    if (open < 0 || close < open + 3) return false;
    const inner = line
      .slice(open, close + 2)
      .replace(/^<+/u, "")
      .replace(/>+$/u, "");
    return pyStrip(inner) !== "";
  }),
);
