/**
 * IFEval's start/end instructions (instructions.py: EndChecker, QuotationChecker). End: the
 * response, trimmed, then without surrounding double quotes, ends with the trimmed `end_phrase`,
 * case-insensitively. Quotation: the trimmed response is at least two characters and starts and ends
 * with a double quote.
 */
import { instruction } from "../args.js";
import { pyStrip } from "../python.js";

export const endChecker = instruction("startend:end_checker", (response, a) => {
  const value = pyStrip(response)
    .replace(/^"+|"+$/gu, "")
    .toLowerCase();
  return value.endsWith(pyStrip(a.text("end_phrase")).toLowerCase());
});

export const quotation = instruction("startend:quotation", (response) => {
  const value = pyStrip(response);
  return value.length > 1 && value.startsWith('"') && value.endsWith('"');
});
