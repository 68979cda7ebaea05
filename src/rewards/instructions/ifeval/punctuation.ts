/** IFEval's `punctuation:no_comma` (instructions.py: CommaChecker): no "," anywhere. */
import { instruction } from "../args.js";

export const noComma = instruction("punctuation:no_comma", (response) => !response.includes(","));
