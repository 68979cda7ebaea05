/**
 * IFEval's combination instructions (instructions.py: TwoResponsesChecker,
 * RepeatPromptThenAnswer). Two responses: exactly two non-blank pieces between "******" dividers,
 * different after trimming; a blank piece between two dividers fails. Repeat prompt: the trimmed
 * response starts with the trimmed `prompt_to_repeat`, case-insensitively.
 */
import { instruction } from "../args.js";
import { pyStrip } from "../python.js";

export const twoResponses = instruction("combination:two_responses", (response) => {
  const pieces = response.split("******");
  const valid: string[] = [];
  for (const [i, piece] of pieces.entries()) {
    if (pyStrip(piece) !== "") valid.push(piece);
    else if (i !== 0 && i !== pieces.length - 1) return false;
  }
  return valid.length === 2 && pyStrip(valid[0]!) !== pyStrip(valid[1]!);
});

export const repeatPrompt = instruction("combination:repeat_prompt", (response, a) =>
  pyStrip(response)
    .toLowerCase()
    .startsWith(pyStrip(a.text("prompt_to_repeat")).toLowerCase()),
);
