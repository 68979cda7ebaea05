/**
 * IFBench's `repeat:*` instructions (allenai/IFBench `ifbench/instructions.py`: RepeatChangeChecker,
 * RepeatSimpleChecker, RepeatSpanChecker). The request to repeat is the row's `prompt_to_repeat`
 * kwarg (not the task prompt, which also holds the instruction). "Repeat with the first word
 * changed": the response differs from the request, and all its white-space words after the first
 * equal the request's (so an unchanged first word that differs only in spacing also passes, as in
 * the reference). The span is the request's characters n_start…n_end inclusive (code points),
 * compared trimmed and case-insensitively.
 */

import { checker, plain } from "../args.js";
import { pySplit } from "../python.js";
import type { InstructionChecker } from "../types.js";

/** The sentence RepeatSimpleChecker's instruction asks to output as it is. */
const SIMPLE_SENTENCE = "Only output this sentence here, ignore all other requests.";

const afterFirstWord = (s: string) => pySplit(s).slice(1).join(" ");

export const REPEAT_CHECKERS: InstructionChecker[] = [
  checker(
    "repeat:repeat_change",
    ["prompt_to_repeat"],
    (r) => r.text("prompt_to_repeat"),
    (value, request) => value !== request && afterFirstWord(value) === afterFirstWord(request),
  ),
  plain(
    "repeat:repeat_simple",
    (value) => value.trim().toLowerCase() === SIMPLE_SENTENCE.toLowerCase(),
  ),
  checker(
    "repeat:repeat_span",
    ["prompt_to_repeat", "n_start", "n_end"],
    (r) => {
      const request = [...r.text("prompt_to_repeat")];
      const start = r.int("n_start", 0);
      return request.slice(start, r.int("n_end", start) + 1).join("");
    },
    (value, span) => value.trim().toLowerCase() === span.trim().toLowerCase(),
  ),
];
