/**
 * The agreement report's arithmetic: false positives and negatives against the truth, Math-Verify's
 * "error" read as "differ", agreement, the side that is right in each disagreement, the targets.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { buildReport, formatReport, type Graded } from "./report.js";

function pair(
  id: string,
  equivalent: boolean,
  ours: boolean,
  mathVerify: boolean | "error",
): Graded {
  const dataset = id.startsWith("g") ? "gsm8k" : "math500";
  return {
    id,
    dataset,
    gold: "1",
    pred: "2",
    response: "",
    equivalent,
    rule: `r-${id}`,
    ours,
    mathVerify,
  };
}

test("tallies each checker against the truth and lists every disagreement with the right side", () => {
  const r = buildReport(
    [
      pair("m1", true, true, true), // both right
      pair("m2", false, true, false), // ours: false positive
      pair("m3", true, false, true), // ours: false negative
      pair("g1", false, false, "error"), // error reads as "differ": right here
      pair("g2", true, true, "error"), // Math-Verify: false negative through its error
    ],
    0.01,
    2,
  );
  assert.deepEqual(r.ours, { pairs: 5, correct: 3, falsePositives: 1, falseNegatives: 1 });
  assert.deepEqual(r.mathVerify, {
    pairs: 5,
    correct: 4,
    falsePositives: 0,
    falseNegatives: 1,
    errors: 2,
  });
  assert.equal(r.agreement, 2 / 5);
  assert.deepEqual(
    r.disagreements.map((d) => [d.id, d.right]),
    [
      ["m2", "Math-Verify"],
      ["m3", "Math-Verify"],
      ["g2", "ours"],
    ],
  );
  assert.deepEqual(r.targets, { falsePositivesZero: false, agreementAtLeast98: false });
  assert.equal(r.byDataset["gsm8k"]!.agreement, 0.5);
  assert.equal(r.msPerComparison.ratio, 200);
  assert.deepEqual(
    r.byRule.map((b) => b.rule),
    ["r-m2", "r-m3", "r-g2"],
  );
  const text = formatReport(r);
  assert.match(text, /target: ours false positives 0 \.+ FAIL \(1\)/);
  assert.match(text, /\| m2 .*\| Math-Verify \|/);
});

test("all agreeing and right meets both targets", () => {
  const r = buildReport([pair("m1", true, true, true), pair("m2", false, false, false)], 1, 1);
  assert.deepEqual(r.targets, { falsePositivesZero: true, agreementAtLeast98: true });
  assert.equal(r.disagreements.length, 0);
});
