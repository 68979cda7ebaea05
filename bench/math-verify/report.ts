/**
 * The agreement report: each checker against the truth by construction (correct, false positives
 * = a non-equivalent pair accepted, false negatives = an equivalent pair rejected), the two
 * checkers against each other, every disagreement with the side that is right, the rules where
 * either checker goes wrong, and the time per comparison. Math-Verify's "error" (a comparison
 * that raised or timed out, or a gold it could not parse) counts as its verdict False, which is
 * what its users get, and is listed.
 */
import { fmtMs, markdownTable } from "../lib/stats.js";
import type { Pair } from "./pairs.js";

export interface Graded extends Pair {
  ours: boolean;
  mathVerify: boolean | "error";
  mathVerifyNote?: string;
}

interface Tally {
  pairs: number;
  correct: number;
  falsePositives: number;
  falseNegatives: number;
}

interface Disagreement {
  id: string;
  rule: string;
  gold: string;
  pred: string;
  ours: boolean;
  mathVerify: boolean | "error";
  truth: boolean;
  right: "ours" | "Math-Verify";
}

export interface Report {
  pairs: number;
  byDataset: Record<string, { ours: Tally; mathVerify: Tally; agreement: number }>;
  ours: Tally;
  mathVerify: Tally & { errors: number };
  agreement: number;
  msPerComparison: { ours: number; mathVerify: number; ratio: number };
  targets: { falsePositivesZero: boolean; agreementAtLeast98: boolean };
  byRule: {
    rule: string;
    equivalent: boolean;
    pairs: number;
    oursWrong: number;
    mathVerifyWrong: number;
  }[];
  disagreements: Disagreement[];
}

function tally(graded: readonly Graded[], verdict: (g: Graded) => boolean): Tally {
  const t: Tally = { pairs: graded.length, correct: 0, falsePositives: 0, falseNegatives: 0 };
  for (const g of graded) {
    const v = verdict(g);
    if (v === g.equivalent) t.correct++;
    else if (v) t.falsePositives++;
    else t.falseNegatives++;
  }
  return t;
}

const mvTrue = (g: Graded) => g.mathVerify === true;

export function buildReport(
  graded: readonly Graded[],
  oursMs: number,
  mathVerifyMs: number,
): Report {
  const byDataset: Report["byDataset"] = {};
  for (const dataset of new Set(graded.map((g) => g.dataset))) {
    const part = graded.filter((g) => g.dataset === dataset);
    byDataset[dataset] = {
      ours: tally(part, (g) => g.ours),
      mathVerify: tally(part, mvTrue),
      agreement: part.filter((g) => g.ours === mvTrue(g)).length / part.length,
    };
  }
  const rules = new Map<string, Report["byRule"][number]>();
  for (const g of graded) {
    const r = rules.get(g.rule) ?? {
      rule: g.rule,
      equivalent: g.equivalent,
      pairs: 0,
      oursWrong: 0,
      mathVerifyWrong: 0,
    };
    r.pairs++;
    if (g.ours !== g.equivalent) r.oursWrong++;
    if (mvTrue(g) !== g.equivalent) r.mathVerifyWrong++;
    rules.set(g.rule, r);
  }
  const disagreements: Disagreement[] = graded
    .filter((g) => g.ours !== mvTrue(g))
    .map((g) => ({
      id: g.id,
      rule: g.rule,
      gold: g.gold,
      pred: g.pred,
      ours: g.ours,
      mathVerify: g.mathVerify,
      truth: g.equivalent,
      right: g.ours === g.equivalent ? "ours" : "Math-Verify",
    }));
  const ours = tally(graded, (g) => g.ours);
  const agreement = graded.length === 0 ? 0 : 1 - disagreements.length / graded.length;
  return {
    pairs: graded.length,
    byDataset,
    ours,
    mathVerify: {
      ...tally(graded, mvTrue),
      errors: graded.filter((g) => g.mathVerify === "error").length,
    },
    agreement,
    msPerComparison: { ours: oursMs, mathVerify: mathVerifyMs, ratio: mathVerifyMs / oursMs },
    targets: {
      falsePositivesZero: ours.falsePositives === 0,
      agreementAtLeast98: agreement >= 0.98,
    },
    byRule: [...rules.values()]
      .filter((r) => r.oursWrong + r.mathVerifyWrong > 0)
      .sort((a, b) => b.oursWrong + b.mathVerifyWrong - (a.oursWrong + a.mathVerifyWrong)),
    disagreements,
  };
}

const pct = (x: number, n: number) => `${((100 * x) / Math.max(1, n)).toFixed(2)}%`;
const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");
const verdict = (v: boolean | "error") => (v === "error" ? "error" : v ? "equal" : "differ");

/** The report as text: summary, targets, the rules that go wrong, every disagreement. */
export function formatReport(r: Report): string {
  const row = (name: string, t: Tally) => [
    name,
    `${t.correct} (${pct(t.correct, t.pairs)})`,
    String(t.falsePositives),
    String(t.falseNegatives),
  ];
  const perDataset = Object.entries(r.byDataset).flatMap(([d, t]) => [
    row(`  ${d}: ours`, t.ours),
    row(`  ${d}: Math-Verify (agreement ${(100 * t.agreement).toFixed(2)}%)`, t.mathVerify),
  ]);
  const lines = [
    `pairs: ${r.pairs}`,
    "",
    markdownTable(
      ["checker vs truth", "correct", "false positives", "false negatives"],
      [
        row("ours (mathAnswersEqual)", r.ours),
        row("Math-Verify 0.9.0", r.mathVerify),
        ...perDataset,
      ],
    ),
    `Math-Verify errors/timeouts (counted as "differ"): ${r.mathVerify.errors}`,
    `agreement ours vs Math-Verify: ${(100 * r.agreement).toFixed(2)}% ` +
      `(${r.disagreements.length} disagreements)`,
    `per comparison: ours ${fmtMs(r.msPerComparison.ours)}, Math-Verify ` +
      `${fmtMs(r.msPerComparison.mathVerify)} (Math-Verify / ours = ${r.msPerComparison.ratio.toFixed(0)}×)`,
    "",
    `target: ours false positives 0 ... ${r.targets.falsePositivesZero ? "PASS" : "FAIL"} (${r.ours.falsePositives})`,
    `target: agreement >= 98% ........ ${r.targets.agreementAtLeast98 ? "PASS" : "FAIL"} (${(100 * r.agreement).toFixed(2)}%)`,
    "",
    "rules where a checker is wrong:",
    markdownTable(
      ["rule", "truth", "pairs", "ours wrong", "Math-Verify wrong"],
      r.byRule.map((b) => [
        b.rule,
        b.equivalent ? "equal" : "differ",
        String(b.pairs),
        String(b.oursWrong),
        String(b.mathVerifyWrong),
      ]),
    ),
    "",
    `every disagreement (${r.disagreements.length}):`,
    markdownTable(
      ["id", "gold", "pred", "ours", "Math-Verify", "truth", "right"],
      r.disagreements.map((d) => [
        d.id,
        cell(d.gold),
        cell(d.pred),
        verdict(d.ours),
        verdict(d.mathVerify),
        verdict(d.truth),
        d.right,
      ]),
    ),
  ];
  return lines.join("\n");
}
