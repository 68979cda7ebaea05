/**
 * IFEval's loose mode (Zhou et al., 2023; `evaluation_lib.py`, `test_instruction_following_loose`):
 * an instruction counts as followed when any of eight variants of the response follows it — the
 * response itself, without its first line, without its last line, without both, and each of those
 * four with every `*` removed (markdown emphasis). Empty variants (after trimming) never count. The
 * variants are trimmed of surrounding white space, except the response itself, as in the reference.
 * IFBench uses the same rule. Trimming is Python's `str.strip()` (python.ts).
 */
import { pyStrip } from "./python.js";

export function looseVariants(response: string): string[] {
  const lines = response.split("\n");
  const withoutFirst = pyStrip(lines.slice(1).join("\n"));
  const withoutLast = pyStrip(lines.slice(0, -1).join("\n"));
  const withoutBoth = pyStrip(lines.slice(1, -1).join("\n"));
  const noStars = (s: string) => s.replaceAll("*", "");
  const base = [response, withoutFirst, withoutLast, withoutBoth];
  return [...base, ...base.map(noStars)].filter((v) => pyStrip(v) !== "");
}
