/**
 * Agreement of our math checker with Hugging Face's Math-Verify (issue 19), on every MATH-500,
 * GSM8K test and AIME 2024/2025 reference answer paired with rewritings that are equivalent or
 * not by construction (bench/math-verify/pairs.ts, seeded).
 *
 *   node --import tsx bench/math-verify.ts [--data ../shared/data] [--seed 19] [--pairs-out FILE]
 *
 * Both checkers grade the same response text. Ours: extractMathAnswer (the math grader's
 * extraction) then mathAnswersEqual(pred, gold). Math-Verify 0.9.0 (bench/math-verify/verify.py,
 * in its own venv under bench/results/, created on the first run): verify(parse("$gold$"),
 * parse(response)). Prints each against the truth, their agreement and every disagreement;
 * writes bench/results/math-verify.json and bench/results/math-pairs.jsonl (every pair with both
 * verdicts; --pairs-out writes a copy elsewhere). Targets: ours 0 false positives, agreement ≥ 98%.
 */
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { extractMathAnswer, mathAnswersEqual } from "../src/rewards/index.js";
import { generatePairs, type Pair } from "./math-verify/pairs.js";
import { ensureMathVerify, runMathVerify } from "./math-verify/python.js";
import { loadReferences } from "./math-verify/references.js";
import { buildReport, formatReport, type Graded } from "./math-verify/report.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const RESULTS = join(ROOT, "bench", "results");

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const value = process.argv[i + 1];
  if (value === undefined || value.startsWith("--")) throw new Error(`--${name} needs a value`);
  return value;
}

/** Our verdict on one response: the grader's extraction, then the equality under test. */
function oursOn(p: Pair): boolean {
  const found = extractMathAnswer(p.response);
  return found !== undefined && mathAnswersEqual(found.answer, p.gold);
}

/** Our verdicts, and the mean ms per comparison of a second, timed pass (the first warms up). */
function gradeOurs(pairs: readonly Pair[]): { verdicts: boolean[]; ms: number } {
  const verdicts = pairs.map(oursOn);
  const start = performance.now();
  for (const p of pairs) oursOn(p);
  return { verdicts, ms: (performance.now() - start) / pairs.length };
}

async function main(): Promise<void> {
  const dataDir = resolve(arg("data", join(ROOT, "..", "shared", "data")));
  const seed = Number(arg("seed", "19"));
  if (!Number.isInteger(seed)) throw new Error("--seed must be an integer");
  const pairsOut = process.argv.includes("--pairs-out") ? resolve(arg("pairs-out", "")) : undefined;

  const refs = loadReferences(dataDir);
  const pairs = generatePairs(refs, seed);
  console.log(`${refs.length} reference answers, ${pairs.length} pairs (seed ${seed})`);

  mkdirSync(RESULTS, { recursive: true });
  const python = ensureMathVerify(join(RESULTS, "venv-math-verify"), (l) => console.log(l));
  const mvStart = performance.now();
  const mv = await runMathVerify(python, pairs);
  const mvWallS = (performance.now() - mvStart) / 1000;
  const ours = gradeOurs(pairs);

  const graded: Graded[] = pairs.map((p, i) => ({
    ...p,
    ours: ours.verdicts[i]!,
    mathVerify: mv[i]!.verdict,
    ...(mv[i]!.note ? { mathVerifyNote: mv[i]!.note } : {}),
  }));
  const mvMs = mv.reduce((s, v) => s + v.ms, 0) / mv.length;
  const report = buildReport(graded, ours.ms, mvMs);
  console.log(`Math-Verify graded them in ${mvWallS.toFixed(0)} s\n`);
  console.log(formatReport(report));

  writeFileSync(
    join(RESULTS, "math-verify.json"),
    `${JSON.stringify({ seed, ...report }, null, 2)}\n`,
  );
  const jsonl = join(RESULTS, "math-pairs.jsonl");
  writeFileSync(jsonl, graded.map((g) => JSON.stringify(g)).join("\n") + "\n");
  if (pairsOut) copyFileSync(jsonl, pairsOut);
  console.log(
    `\nwrote ${join(RESULTS, "math-verify.json")} and ${jsonl}${pairsOut ? ` (and ${pairsOut})` : ""}`,
  );
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
