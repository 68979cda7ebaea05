/**
 * mathAnswersEqual(pred, gold) by answer kind: for each, spellings that must match and look-alikes
 * that must not (a false positive rewards a wrong answer, the worst failure of a grader).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { compareAnswers, mathAnswersEqual } from "../math-equal.js";
import { Comparer, OutOfTime } from "./compare.js";
import { shapeOf } from "./structure.js";

/** [pred, gold] pairs; `both` also checks them the other way round (symmetric rules). */
function expectSame(pairs: [string, string][], both = true) {
  for (const [pred, gold] of pairs) {
    assert.ok(
      compareAnswers(pred, gold),
      `${JSON.stringify(pred)} should equal ${JSON.stringify(gold)}`,
    );
    if (both) {
      assert.ok(
        compareAnswers(gold, pred),
        `${JSON.stringify(gold)} should equal ${JSON.stringify(pred)}`,
      );
    }
  }
}

function expectDifferent(pairs: [string, string][]) {
  for (const [pred, gold] of pairs) {
    assert.ok(
      !compareAnswers(pred, gold),
      `${JSON.stringify(pred)} should differ from ${JSON.stringify(gold)}`,
    );
    assert.ok(
      !compareAnswers(gold, pred),
      `${JSON.stringify(gold)} should differ from ${JSON.stringify(pred)}`,
    );
  }
}

test("numbers: separators, decimal comma, scientific, mixed numbers, fractions", () => {
  expectSame([
    ["1,000", "1000"],
    ["1{,}000", "1000"],
    ["1\\,000", "1000"],
    ["1\\!,\\!000", "1000"],
    ["12,345.5", "12345.5"],
    ["1.5e3", "1500"],
    ["1.5E-2", "0.015"],
    ["1.5\\times10^{3}", "1500"],
    ["1.5 \\cdot 10^3", "1500"],
    ["2\\frac{1}{2}", "\\frac{5}{2}"],
    ["2\\frac{1}{2}", "2.5"],
    ["\\dfrac{3}{4}", "3/4"],
    ["\\tfrac{3}{4}", "0.75"],
    ["\\frac{6}{8}", "\\frac34"],
    ["-\\frac{1}{2}", "\\frac{-1}{2}"],
    ["007", "7"],
    ["5.000", "5"],
  ]);
  // Spelling accidents: a doubled backslash, `{, }`, plain braces around a list.
  expectSame([
    ["\\\\frac{1}{2}", "\\frac12"],
    ["14 {, }916", "14{,}916"],
  ]);
  expectDifferent([
    ["0,111", "111"],
    ["1,001", "1000"],
    ["1.5e3", "15"],
    ["1.5\\times10^{3}", "150"],
    ["2\\frac{1}{2}", "1"],
    ["\\frac{3}{4}", "\\frac{4}{3}"],
    ["3/4", "0.7"],
    ["-5", "5"],
    ["12", "1,2"],
  ]);
});

test("numbers: the decimal comma is read only for a whole answer against a one-number gold", () => {
  // pred, gold: `3,5` is 3.5 when the gold is one number, a list when the gold is a list.
  expectSame(
    [
      ["3,5", "3.5"],
      ["-0,25", "-\\frac14"],
      ["3,5", "3, 5"],
      ["3,5", "5,3"],
    ],
    false,
  );
  // With three digits after the comma it is a thousands separator, never a decimal.
  assert.ok(!mathAnswersEqual("3,500", "3.5"));
  // Spaced, it is a list; and the boxes of a revised answer joined as a list are no decimal.
  assert.ok(!mathAnswersEqual("3, 5", "3.5"));
  // Groups of three after spaced commas are one number against a one-number gold (Math-Verify
  // reads a list there); against a list gold they stay a list.
  assert.ok(mathAnswersEqual("58, 500", "58500"));
  assert.ok(mathAnswersEqual("58, 500", "500, 58"));
  assert.ok(!mathAnswersEqual("58, 500", "58"));
  assert.ok(!mathAnswersEqual("-1, 0", "-1"));
  // `0,111` cannot be thousands. A gold is never read with a decimal comma: MATH's `-2,1` is a list.
  assert.ok(mathAnswersEqual("0,111", "0.111"));
  assert.ok(!mathAnswersEqual("-2.1", "-2,1"));
  assert.ok(mathAnswersEqual("-2,1", "-2.1"));
});

test("numbers: Math-Verify's 6-decimal rounding applies only against a lone decimal number", () => {
  expectSame([
    ["\\frac{1}{3}", "0.333333"],
    ["\\frac{2}{3}", "0.666667"],
    ["\\sqrt{2}", "1.414214"],
    ["2\\sqrt{2}", "2.82842712"],
  ]);
  expectDifferent([
    ["\\frac{1}{3}", "0.3333"],
    ["\\frac{1}{3}", "0.33"],
    ["\\sqrt{2}", "1.41"],
    ["\\pi", "3.1416"],
    ["\\frac{22}{7}", "\\pi"],
    // Stricter than Math-Verify: small numbers also need 6 significant digits.
    ["\\frac{1}{14881}", ".0000672"],
  ]);
  expectSame([["\\frac{1}{14881}", "0.0000671998"]]);
});

test("numbers: percent is X/100 (Math-Verify) and, against a plain number, X (MATH)", () => {
  expectSame([
    ["50\\%", "0.5"],
    ["50\\%", "\\frac{1}{2}"],
    ["50\\%", "50"],
    ["12.5%", "0.125"],
    ["50 percent", "50\\%"],
  ]);
  expectDifferent([
    ["50\\%", "5"],
    ["50\\%", "0.05"],
    ["5\\%", "50\\%"],
  ]);
});

test("numbers: roots, pi, degrees, units, text wrappers, complex numbers", () => {
  expectSame([
    ["2\\sqrt{5}", "\\sqrt{20}"],
    ["\\sqrt[3]{27}", "3"],
    ["\\frac{\\sqrt{3}}{3}", "\\frac{1}{\\sqrt{3}}"],
    ["sqrt(51)", "\\sqrt{51}"],
    ["3*sqrt(13)", "3\\sqrt{13}"],
    ["\\frac{\\pi}{2}", "0.5\\pi"],
    ["2\\pi", "\\pi \\cdot 2"],
    ["90^\\circ", "90"],
    ["90°", "90^{\\circ}"],
    ["10\\text{ cm}", "10"],
    ["15\\mbox{ cm}^2", "15"],
    ["18 dollars", "18"],
    ["5.4 cents", "5.4\\text{ cents}"],
    ["10 \\text{inch}", "10 inches"],
    ["\\$18.90", "18.9"],
    ["\\text{Evelyn}", "evelyn"],
    ["\\textbf{(C)}", "C"],
    ["-2+7i", "7i-2"],
    ["e^{i\\pi}", "-1"],
    ["(1+i)^2", "2i"],
  ]);
  expectDifferent([
    ["\\sqrt{20}", "2\\sqrt{4}"],
    ["\\sqrt{2}", "2"],
    ["2\\pi", "\\pi"],
    ["90^\\circ", "9"],
    ["10\\text{ cm}", "100"],
    ["\\text{Evelyn}", "Eve"],
    ["\\text{no}", "\\text{on}"],
    // Two stated units that differ are different answers (Math-Verify drops both).
    ["5.4 \\text{ dollars}", "5.4 \\text{ cents}"],
    ["15\\mbox{ m}^2", "15\\mbox{ cm}^2"],
    ["15\\mbox{ cm}^3", "15\\mbox{ cm}^2"],
    ["10 feet", "10 \\text{inches}"],
    ["-2+7i", "-2-7i"],
    ["2+3i", "3+2i"],
  ]);
});

test("a trailing \\text holding another candidate or a condition is no unit: hedges earn nothing", () => {
  expectSame([
    ["12\\text{ square units}", "12"],
    ["5\\text{ m}^2", "5"],
  ]);
  expectDifferent([
    ["2 \\text{ or 3}", "2"],
    ["2 \\text{ (or 3)}", "2"],
    ["2 \\mbox{ or 3}", "2"],
    ["2 \\text{ and 3}", "2"],
    ["2\\text{ cm or 3 cm}", "2"],
    ["2 \\text{ or maybe 3}", "2"],
    ["\\frac{1}{2}\\text{ or 2}", "\\frac12"],
    ["2 \\text{ (mod 7)}", "2"],
  ]);
});

test("expressions with variables: identities match, near misses do not", () => {
  expectSame([
    ["(x+1)^2", "x^2+2x+1"],
    ["\\frac{1}{2}x", "x/2"],
    ["\\sin^2x+\\cos^2x", "1"],
    ["\\sin 2x", "2\\sin x\\cos x"],
    ["\\frac{x^2-1}{x-1}", "x+1"],
    ["\\sqrt{x^2}", "|x|"],
    ["e^{\\ln x}", "x"],
    ["x^5 - x^4 + x^3 - x^2 + x - 1", "(x-1)(x^4+x^2+1)"],
    ["p - q", "-q+p"],
    ["a_1 + a_2", "a_2 + a_1"],
    ["2\\alpha", "\\alpha+\\alpha"],
    ["\\log_2 8", "3"],
    ["\\binom{5}{2}", "10"],
    ["4!", "24"],
    ["\\cot x", "\\frac{\\cos x}{\\sin x}"],
  ]);
  expectDifferent([
    ["x^2", "x^3"],
    ["(x+1)^2", "x^2+2x+2"],
    ["(x+1)^2", "x^2+1"],
    ["\\sqrt{x^2}", "x"],
    ["\\ln(x^2)", "2\\ln x"],
    ["2x", "2y"],
    ["x-y", "y-x"],
    ["\\sin x", "\\cos x"],
    ["\\frac{x}{2}", "\\frac{2}{x}"],
    ["a_1", "a_2"],
    ["x+10^{-6}", "x"], // (differences under the relative 1e-9 tolerance are not seen)
  ]);
});

test("equations and inequalities: sides swapped, rearranged, scaled", () => {
  expectSame([
    ["x > 3", "3 < x"],
    ["x \\geq 3", "3 \\le x"],
    ["x + y = 1", "y = 1 - x"],
    ["2x + 2y = 2", "x + y = 1"],
    ["10x - 14y + 22z + 8 = 0", "5x - 7y + 11z + 4 = 0"],
    ["5 = x", "x = 5"],
    ["2x > 6", "x > 3"],
    ["1 < x < 2", "2 > x > 1"],
    ["x \\ne 2", "2 \\neq x"],
    ["x <= 3", "x \\le 3"],
  ]);
  expectDifferent([
    ["x > 3", "x < 3"],
    ["x > 3", "x \\ge 3"],
    ["-x > -3", "x > 3"],
    ["x = 1", "y = 1"],
    ["x + y = 1", "x - y = 1"],
    ["1 < x < 2", "1 < x < 3"],
    ["x > 3", "3"],
  ]);
});

test("assignments follow Math-Verify: the gold's form decides which side is compared", () => {
  // [pred, gold]
  const same: [string, string][] = [
    ["2x+3", "y = 2x+3"],
    ["y = 2x+3", "2x+3"],
    ["x = 5", "5"],
    ["5", "x = 5"],
    ["k = \\frac{1}{2}", "0.5"],
    // An assignment chain is its first and last sides; `\\approx` after an exact value is dropped.
    ["x = 5+5+1 = 7 = 11", "x = 11"],
    ["x = 1/3 \\approx 0.33", "x = \\frac13"],
    ["x \\approx 11", "11"],
    ["0", "1 = 2 - 1 = x = 0"],
    // A left side that names a quantity: a tuple of variables, a ratio, an absolute value.
    ["(3,2)", "(p,q)=(3,2)"],
    ["7:32", "V_1:V_2 = 7:32"],
    ["1", "|AB| = 1"],
    ["\\frac{1}{\\sqrt{6}}", "\\frac{NO}{BO}=\\frac{1}{\\sqrt{6}}"],
    ["x = 10,\\!080", "10,\\!080"],
  ];
  expectSame(same, false);
  // A gold equation that is not an assignment needs an equation.
  assert.ok(!mathAnswersEqual("1", "x + y = 1"));
  assert.ok(!mathAnswersEqual("x = 6", "5"));
  assert.ok(!mathAnswersEqual("x = 5+5+1 = 7 = 12", "x = 11"));
  assert.ok(!mathAnswersEqual("y = 11", "x = 11"));
});

test("intervals and unions: brackets matter, union order does not", () => {
  expectSame([
    ["(-\\infty, 2] \\cup (3, \\infty)", "(3,\\infty)\\cup(-\\infty,2]"],
    ["\\left(\\frac{3}{5},\\frac{8}{3}\\right]", "(0.6, 8/3]"],
    ["[-2, 7]", "x \\in [-2,7]"],
    ["(-\\infty, 0)", "(-\\infty,0)"],
  ]);
  expectDifferent([
    ["(3,4]", "(3,4)"],
    ["[3,4)", "(3,4)"],
    ["(-\\infty, 2] \\cup (3, \\infty)", "(-\\infty, 2] \\cup [3, \\infty)"],
    ["(-\\infty, 2]", "(-\\infty, 2] \\cup (3, \\infty)"],
    ["(2, \\infty)", "(-\\infty, 2)"],
    ["(1, \\infty)", "(1, 10^{400})"],
  ]);
  // An inequality against an interval, either way round.
  assert.ok(mathAnswersEqual("(3, \\infty)", "x > 3"));
  assert.ok(mathAnswersEqual("[-1, 2)", "-1 \\le x < 2"));
  assert.ok(mathAnswersEqual("(-\\infty, 4]", "4 \\ge x"));
  assert.ok(!mathAnswersEqual("[3, \\infty)", "x > 3"));
  assert.ok(mathAnswersEqual("x > 3", "(3, \\infty)"));
  assert.ok(!mathAnswersEqual("x \\ge 3", "(3, \\infty)"));
});

test("sets, tuples, points, matrices and multiple answers", () => {
  expectSame([
    ["\\{1,2\\}", "\\{2,1\\}"],
    ["\\{1\\pm\\sqrt{5},-2\\}", "\\{-2, 1\\pm\\sqrt{5}\\}"],
    ["1 + \\sqrt{19}, 1 - \\sqrt{19}", "1 \\pm \\sqrt{19}"],
    ["1, 2", "2, 1"],
    ["1,-2", "-2, 1"],
    ["3, 5, 7", "7, 3, 5"],
    ["(1, 2)", "(1,2)"],
    ["(6,31,-1)", "\\left(6, 31, -1\\right)"],
    ["(1, 2)", "1, 2"],
    ["\\left( 3, \\frac{\\pi}{2} \\right)", "(3, \\pi/2)"],
    [
      "\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}",
      "\\begin{bmatrix}1&2\\\\3&4\\end{bmatrix}",
    ],
    [
      "\\begin{pmatrix} -1/3 \\\\ 2/3 \\end{pmatrix}",
      "\\begin{pmatrix} -\\frac13 \\\\ \\frac{2}{3} \\end{pmatrix}",
    ],
    ["5", "\\{5\\}"],
    ["{1,3}", "(1,3)"],
    ["\\{-12, -11, -10\\}", "-12;-11;-10"],
    ["(0,-2,6), (4,0,0)", "(4;0;0),(0;-2;6)"],
    [
      "\\left[\\begin{array}{cc}1 & 2 \\\\3 & 4\\end{array}\\right]",
      "\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}",
    ],
  ]);
  expectDifferent([
    ["(1,2)", "(2,1)"],
    ["(6,31,-1)", "(6,-1,31)"],
    ["1, 2", "1, 2, 3"],
    ["1, 2", "1"],
    ["\\{1,2\\}", "\\{1,3\\}"],
    ["[1, 2]", "1, 2"],
    [
      "\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}",
      "\\begin{pmatrix} 1 & 3 \\\\ 2 & 4 \\end{pmatrix}",
    ],
    ["\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}", "\\begin{pmatrix} 1 & 2 \\end{pmatrix}"],
    ["1 \\pm \\sqrt{19}", "1 + \\sqrt{19}"],
    ["1 \\pm \\sqrt{19}, 1 + \\sqrt{19}", "1 \\pm \\sqrt{19}"],
    ["2, 2", "2"],
  ]);
});

test("a comparison past its time limit is 'not equal', and the limit is checked inside loops", () => {
  assert.ok(mathAnswersEqual("(x+1)^2", "x^2+2x+1"));
  assert.equal(mathAnswersEqual("(x+1)^2", "x^2+2x+1", { timeoutMs: -1 }), false);
  assert.throws(() => compareAnswers("(x+1)^2", "x^2+2x+1", { timeoutMs: -1 }), OutOfTime);
  // Inside the multiset matching of a long list, not only at its start.
  const items = Array.from({ length: 150 }, (_, k) => `${k}x`);
  const comparer = new Comparer(performance.now() + 5);
  const slowEqual = () =>
    comparer.equal(shapeOf(items.join(",")), shapeOf([...items].reverse().join(",")));
  const started = performance.now();
  assert.throws(slowEqual, OutOfTime);
  assert.ok(performance.now() - started < 200, "stopped soon after the deadline");
});
