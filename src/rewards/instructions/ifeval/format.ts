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
import { pyStrip } from "../text.js";

export const numberBulletLists = instruction(
  "detectable_format:number_bullet_lists",
  (response, a) => {
    const stars = response.match(/^\s*\*[^*].*$/gmu)?.length ?? 0;
    const dashes = response.match(/^\s*-.*$/gmu)?.length ?? 0;
    return stars + dashes === a.count("num_bullets");
  },
);

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
    return count >= a.count("num_highlights");
  },
);

export const multipleSections = instruction(
  "detectable_format:multiple_sections",
  (response, a) => {
    const spliter = a.text("section_spliter").trim();
    const splitter = a.regex("section_spliter", `\\s?${spliter}\\s?\\p{Nd}+\\s?`, "");
    return response.split(splitter).length - 1 >= a.count("num_sections");
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

export const title = instruction("detectable_format:title", (response) =>
  (response.match(/<<[^\n]+>>/gu) ?? []).some(
    (t) => pyStrip(t.replace(/^<+/u, "").replace(/>+$/u, "")) !== "",
  ),
);
