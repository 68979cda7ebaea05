/**
 * IFEval's detectable-content instructions (instructions.py: PlaceholderChecker,
 * PostscriptChecker). A placeholder is anything in square brackets on one line ("[name]"; "[]"
 * counts too). A postscript is its marker anywhere in the lower-cased response: "P.S." also matches
 * "p. s." and "P.P.S" also "p. p. s"; any other marker is used as a pattern, as in the reference.
 */
import { instruction } from "../args.js";

export const numberPlaceholders = instruction(
  "detectable_content:number_placeholders",
  (response, a) => (response.match(/\[[^\n]*?\]/gu)?.length ?? 0) >= a.count("num_placeholders"),
);

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
