/**
 * The pair generator's ground truth: "equivalent by construction" must be true, or the agreement
 * report grades both checkers against a wrong key. Numeric pairs are re-read and compared by exact
 * value; polynomial pairs are evaluated at random points; the structural rules are pinned on real
 * MATH-500 answers. Runs on the repository's benchmark fixtures (same file layout as shared/data).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { mulberry32 } from "../../src/random.js";
import { Rational } from "../../src/rewards/rational.js";
import { parsePolynomial } from "./expressions.js";
import {
  exactDecimal,
  groupThousands,
  parseNumeric,
  roundedDecimal,
  scientific,
} from "./numbers.js";
import { generatePairs, rewritesOf } from "./pairs.js";
import { loadReferences, type Reference } from "./references.js";

const FIXTURES = fileURLToPath(new URL("../../src/benchmarks/fixtures/data/", import.meta.url));

const gold = (answer: string, problem = "") => ({ answer, dataset: "math500" as const, problem });
const find = (answer: string, rule: string, problem = "") =>
  rewritesOf(gold(answer, problem)).filter((r) => r.rule === rule);

test("numbers: exact decimals, rounding, scientific notation and grouping", () => {
  assert.equal(exactDecimal(Rational.of(243n, 625n)), "0.3888");
  assert.equal(exactDecimal(Rational.of(-3n, 8n)), "-0.375");
  assert.equal(exactDecimal(Rational.of(1n, 3n)), undefined);
  assert.equal(roundedDecimal(Rational.of(14n, 3n), 2), "4.67");
  assert.equal(roundedDecimal(Rational.of(-35n, 9n), 2), "-3.89");
  assert.equal(scientific(Rational.of(1450000n)), "1.45 \\times 10^{6}");
  assert.equal(scientific(Rational.of(672n, 10000000n)), "6.72 \\times 10^{-5}");
  assert.equal(groupThousands(-1450000n), "-1,450,000");
  assert.equal(groupThousands(1234n, "\\,"), "1\\,234");
});

test("numbers: references are read with their decoration and exact value", () => {
  const money = parseNumeric("\\$32,\\!348")!;
  assert.ok(money.value.equals(Rational.of(32348n)) && money.decoration.currency && money.grouped);
  assert.ok(parseNumeric("1\\frac{4}{5}")!.value.equals(Rational.of(9n, 5n)));
  assert.ok(parseNumeric("137 \\frac{1}{2}")!.value.equals(Rational.of(275n, 2n)));
  assert.ok(parseNumeric("\\frac9{19}")!.value.equals(Rational.of(9n, 19n)));
  assert.ok(parseNumeric(".0000672")!.value.equals(Rational.of(21n, 312500n)));
  assert.equal(parseNumeric("864 \\mbox{ inches}^2")!.decoration.unit, " \\mbox{ inches}^2");
  assert.ok(parseNumeric("30^\\circ")!.decoration.degrees);
  assert.ok(parseNumeric("025")!.padded);
  assert.equal(parseNumeric("(1,2)"), undefined);
  assert.equal(parseNumeric("2k+2"), undefined);
});

/** The value a numeric prediction states, read back from its text, or undefined. */
function statedValue(pred: string): Rational | undefined {
  const bare = pred
    .replace(/^x = /, "")
    .replace(/^\\text\{(.*)\}$/, "$1")
    .replace(/ \\text\{ dollars\}$/, "")
    .replace(/°$|\^\{\\circ\}$/, "");
  const sci = /^(-?[\d.]+) \\times 10\^\{(-?\d+)\}$/.exec(bare);
  if (sci) {
    const e = Number(sci[2]);
    const m = Rational.parseDecimal(sci[1]!)!;
    return e >= 0 ? m.mul(Rational.of(10n ** BigInt(e))) : m.div(Rational.of(10n ** BigInt(-e)));
  }
  const thin = bare.replace(/\\,/g, ",");
  const unreduced = /^\\frac\{(-?\d+)\}\{(\d+)\}$/.exec(thin);
  if (unreduced) return Rational.of(BigInt(unreduced[1]!), BigInt(unreduced[2]!));
  return parseNumeric(thin)?.value;
}

test("every numeric pair is equivalent exactly when the values are equal", () => {
  const refs = loadReferences(FIXTURES);
  const numeric = [
    ...refs,
    ...[
      "\\frac{14}{3}",
      "-\\frac{24}{25}",
      ".0000672",
      "\\$18.90",
      "10,\\!080",
      "1\\frac{4}{5}",
      "5.4 \\text{ cents}",
    ].map(
      (answer, i): Reference => ({ id: `extra/${i}`, dataset: "math500", answer, problem: "" }),
    ),
  ].filter((r) => parseNumeric(r.answer));
  let checked = 0;
  for (const ref of numeric) {
    const goldValue = parseNumeric(ref.answer)!.value;
    for (const r of rewritesOf(ref)) {
      if (r.response !== undefined) continue;
      if (r.rule === "unit-changed") {
        // The same number of another unit: another quantity.
        assert.ok(!r.equivalent && parseNumeric(r.pred)!.value.equals(goldValue), r.pred);
        continue;
      }
      const v = statedValue(r.pred);
      if (v === undefined) continue;
      checked++;
      assert.equal(v.equals(goldValue), r.equivalent, `${ref.answer} → ${r.pred} (${r.rule})`);
    }
  }
  assert.ok(checked > 200, `only ${checked} numeric pairs were checked`);
});

/** A polynomial's value with each letter bound to `point[letter]`. */
function evaluate(text: string, point: Record<string, number>): number | undefined {
  const terms = parsePolynomial(text);
  if (!terms) return undefined;
  return terms.reduce((sum, t) => {
    const m = /^([a-zA-Z])(?:\^\{(\d+)\})?$/.exec(t.monomial);
    const power = m ? point[m[1]!]! ** Number(m[2] ?? 1) : 1;
    return sum + Number(t.coef) * power;
  }, 0);
}

test("polynomial rewritings agree with the reference at random points exactly when equivalent", () => {
  const rand = mulberry32(7);
  for (const answer of ["6r^2-4r-24", "2k+2", "p - q", "x^5 - x^4 + x^3 - x^2 + x - 1", "-13x+3"]) {
    let compared = 0;
    for (const r of rewritesOf(gold(answer))) {
      if (r.response !== undefined || parsePolynomial(r.pred) === undefined) continue;
      const letters = "abcdefghjklmnopqrstuvwxyzR";
      const point = Object.fromEntries([...letters].map((l) => [l, Math.floor(rand() * 90) + 3]));
      const equal = evaluate(r.pred, point) === evaluate(answer, point);
      assert.equal(equal, r.equivalent, `${answer} → ${r.pred} (${r.rule})`);
      compared++;
    }
    assert.ok(compared >= 4, `${answer}: ${compared} rewritings compared`);
  }
});

test("tuples keep their order and brackets; sets and asked-for lists do not", () => {
  assert.deepEqual(
    find("(3,4]", "swapped-order").map((r) => [r.pred, r.equivalent]),
    [["(4, 3]", false]],
  );
  assert.deepEqual(find("(3,4]", "bracket-flipped")[0]?.pred, "(3, 4)");
  assert.deepEqual(find("(-\\infty, 0]", "bracket-flipped")[0]?.pred, "(-\\infty, 0)");
  assert.deepEqual(find("(2,\\infty)", "bracket-flipped")[0]?.pred, "[2, \\infty)");
  assert.equal(find("\\{1\\pm\\sqrt{5},-2\\}", "set-reordered")[0]?.equivalent, true);
  assert.equal(
    find("-2,1", "list-reordered", "Enter all the integer roots, separated by commas.")[0]?.pred,
    "1, -2",
  );
  assert.deepEqual(
    find("-2,1", "list-reordered"),
    [],
    "a list is unordered only where the problem says so",
  );
  assert.deepEqual(find("10,\\!080", "list-reordered", "separated by commas"), []);
  assert.equal(find("(0,9) \\cup (9,36)", "union-reordered")[0]?.pred, "(9,36) \\cup (0,9)");
  assert.equal(
    find("5x - 7y + 11z + 4 = 0", "scale-x2").length,
    0,
    "a scaled equation is the same plane",
  );
  assert.equal(find("y = 2x + 3", "scale-x2")[0]?.pred, "y = 4x + 6");
  assert.equal(find("y = 2x + 3", "term-moved-across")[0]?.pred, "y - 2x = 3");
  assert.equal(find("5x - 7y + 11z + 4 = 0", "term-moved-across")[0]?.pred, "5x - 7y + 11z = -4");
  assert.equal(find("(-1,6)", "tuple-as-set")[0]?.equivalent, false);
  const solve = "Solve \\[\\frac{1}{x - 5} > 0.\\]";
  assert.equal(find("(5,\\infty)", "interval-as-inequality", solve)[0]?.pred, "x > 5");
  assert.equal(
    find("(-\\infty, 0]", "interval-as-inequality", `${solve} for x`)[0]?.pred,
    "x \\le 0",
  );
  assert.deepEqual(find("(-\\infty, 0]", "interval-as-inequality", "the range of $y=f(x)$"), []);
});

test("roots, π and ± rewritings", () => {
  assert.equal(find("3\\sqrt{13}", "root-merged")[0]?.pred, "\\sqrt{117}");
  assert.equal(find("3\\sqrt{13}", "coefficient-inside-root")[0]?.pred, "\\sqrt{39}");
  assert.equal(
    find("\\frac{\\sqrt{3}}{3}", "root-rationalised-inverse")[0]?.pred,
    "\\frac{1}{\\sqrt{3}}",
  );
  assert.equal(find("-\\frac{\\pi}{6}", "pi-over-slash")[0]?.pred, "-\\pi/6");
  assert.equal(
    find("3 \\pm 2 \\sqrt{2}", "pm-expanded")[0]?.pred,
    "3 + 2 \\sqrt{2}, 3 - 2 \\sqrt{2}",
  );
  assert.equal(find("(a+5)(b+2)", "product-expanded")[0]?.pred, "ab + 2a + 5b + 10");
  assert.deepEqual(
    find("12\\pi", "pi-approximated").map((r) => [r.pred, r.equivalent]),
    [["37.70", false]],
  );
  assert.equal(find("-\\sqrt{3}", "root-approximated")[0]?.pred, "-1.73");
  assert.equal(find("\\frac{7}{2}", "as-mixed-number")[0]?.pred, "3\\frac{1}{2}");
  assert.equal(find("\\frac{7}{2}", "as-mixed-number-plain-text")[0]?.equivalent, true);
});

test("pairs are seeded, unique, never identical to the reference when they differ", () => {
  const refs = loadReferences(FIXTURES);
  const a = generatePairs(refs, 19);
  assert.deepEqual(generatePairs(refs, 19), a);
  assert.notDeepEqual(generatePairs(refs, 20), a);
  assert.equal(new Set(a.map((p) => p.id)).size, a.length);
  assert.deepEqual([...new Set(a.map((p) => p.dataset))].sort(), [
    "aime_2024",
    "aime_2025",
    "gsm8k",
    "math500",
  ]);
  for (const p of a) {
    if (!p.equivalent) assert.notEqual(p.pred.replace(/\s/g, ""), p.gold.replace(/\s/g, ""), p.id);
    assert.ok(p.response.includes(p.pred) || p.rule === "reference-then-revised", p.id);
  }
  assert.ok(a.some((p) => p.equivalent) && a.some((p) => !p.equivalent));
});

test("a missing data folder is an error that says what to pass", () => {
  assert.throws(() => loadReferences("/nonexistent"), /no math500 data at .*pass --data DIR/);
});
