/**
 * IFEval's detectable-content instructions (instructions.py: PlaceholderChecker,
 * PostscriptChecker). A placeholder is anything in square brackets on one line ("[name]"; "[]"
 * counts too). A postscript is its marker anywhere in the lower-cased response: "P.S." also matches
 * "p. s." and "P.P.S" also "p. p. s"; any other marker is used as a pattern, as in the reference.
 */
import { instruction } from "../args.js";

export const numberPlaceholders = instruction(
  "detectable_content:number_placeholders",
  (response, a) => countPlaceholders(response) >= a.int("num_placeholders"),
);

/**
 * Python's `len(re.findall(r"\[.*?\]", text))`: from each "[", the nearest "]" on its line. A
 * scan, since the lazy regex is quadratic on a line of many "[".
 */
function countPlaceholders(text: string): number {
  let count = 0;
  let pos = 0;
  for (;;) {
    const open = text.indexOf("[", pos);
    if (open < 0) return count;
    const close = text.indexOf("]", open + 1);
    const newline = text.indexOf("\n", open + 1);
    if (close >= 0 && (newline < 0 || close < newline)) {
      count++;
      pos = close + 1;
    } else if (newline >= 0) {
      pos = newline + 1; // no "]" on this line, so no later "[" on it closes either
    } else {
      return count;
    }
  }
}

export const postscript = instruction("detectable_content:postscript", (response, a) => {
  const marker = a.text("postscript_marker").trim();
  const source =
    marker === "P.P.S"
      ? "p\\.\\s?p\\.\\s?s"
      : marker === "P.S."
        ? "p\\.\\s?s\\."
        : marker.toLowerCase();
  return a.regex("postscript_marker", source, "m").test(response.toLowerCase());
});
