/**
 * bench/chrf — sentence chrF (src/rewards/chrf.ts) against sacrebleu's, in speed and in value.
 *
 *   node --import tsx bench/chrf.ts [--pairs 20000] [--python python3]
 *
 * The pairs are the fixture's (src/rewards/fixtures/chrf-sacrebleu.json) cycled to `--pairs`, each
 * hypothesis suffixed with its index so no two pairs are the same strings. Both sides score every
 * pair with sentence chrF (char order 6, word order 0, β 2) in one process, timed around the loop
 * only; the Python side is `CHRF().sentence_score` of sacrebleu, which must be importable by
 * `--python` (pip install sacrebleu==2.6.0). Reported: pairs/s each, the speed ratio, and the
 * largest |ours − sacrebleu| over all pairs (expected 0). Without sacrebleu the bench says so,
 * reports our side only and exits 1.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chrfScore } from "../src/rewards/chrf.js";
import { markdownTable } from "./lib/stats.js";

function arg(name: string, dflt: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? dflt) : dflt;
}

const PAIRS = Number(arg("pairs", "20000"));
const PYTHON = arg("python", "python3");

const fixture = JSON.parse(
  readFileSync(new URL("../src/rewards/fixtures/chrf-sacrebleu.json", import.meta.url), "utf8"),
) as { cases: { hyp: string; ref: string }[] };
const pairs = Array.from({ length: PAIRS }, (_, i) => {
  const c = fixture.cases[i % fixture.cases.length]!;
  return { hyp: `${c.hyp} ${i}`, ref: c.ref };
});

const PY_SCRIPT = `
import json, sys, time
from sacrebleu.metrics import CHRF
pairs = json.load(open(sys.argv[1], encoding="utf-8"))
chrf = CHRF()
start = time.perf_counter()
scores = [chrf.sentence_score(p["hyp"], [p["ref"]]).score for p in pairs]
elapsed = time.perf_counter() - start
json.dump({"seconds": elapsed, "scores": scores}, open(sys.argv[2], "w"))
`;

function timeOurs(): { seconds: number; scores: number[] } {
  for (const p of pairs.slice(0, 500)) chrfScore(p.hyp, p.ref); // warm up the JIT
  const start = process.hrtime.bigint();
  const scores = pairs.map((p) => chrfScore(p.hyp, p.ref));
  return { seconds: Number(process.hrtime.bigint() - start) / 1e9, scores };
}

function timeSacrebleu(): { seconds: number; scores: number[] } | string {
  const dir = mkdtempSync(join(tmpdir(), "rllm-bench-chrf-"));
  try {
    const input = join(dir, "pairs.json");
    const output = join(dir, "out.json");
    writeFileSync(input, JSON.stringify(pairs));
    const run = spawnSync(PYTHON, ["-c", PY_SCRIPT, input, output], { encoding: "utf8" });
    if (run.status !== 0) return (run.stderr || run.error?.message || "failed").trim();
    return JSON.parse(readFileSync(output, "utf8"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const ours = timeOurs();
const ref = timeSacrebleu();
const rate = (r: { seconds: number }) => Math.round(PAIRS / r.seconds).toLocaleString("en-US");
if (typeof ref === "string") {
  console.log(`ours: ${rate(ours)} pairs/s over ${PAIRS} pairs`);
  console.error(`sacrebleu not measured (${PYTHON}): ${ref.split("\n").at(-1)}`);
  console.error("install it with: pip install sacrebleu==2.6.0, then pass --python <that python>");
  process.exit(1);
}
const maxDiff = Math.max(...ours.scores.map((s, i) => Math.abs(s - ref.scores[i]!)));
console.log(
  markdownTable(
    ["implementation", "pairs", "seconds", "pairs/s"],
    [
      ["rllm chrf.ts", String(PAIRS), ours.seconds.toFixed(3), rate(ours)],
      ["sacrebleu 2.6 (Python)", String(PAIRS), ref.seconds.toFixed(3), rate(ref)],
    ],
  ),
);
console.log(`speed ratio (ours / sacrebleu): ${(ref.seconds / ours.seconds).toFixed(2)}×`);
console.log(`max |ours − sacrebleu| over ${PAIRS} pairs: ${maxDiff}`);
if (maxDiff > 1e-9) process.exit(1);
