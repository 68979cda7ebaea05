/**
 * The math comparison never throws and never runs long: seeded random LaTeX-ish garbage and
 * pathological answers go through compareAnswers (which, unlike mathAnswersEqual, lets a rule's
 * bug escape) and through the grader.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { mulberry32 } from "../../random.js";
import { mathGrader } from "../math.js";
import { compareAnswers, mathAnswersEqual } from "../math-equal.js";
import { OutOfTime } from "./compare.js";

const PIECES = [
  ..."0123456789xyzeiabn+-*/^_()[]{},.=<>!|&% ",
  "\\frac{",
  "\\dfrac",
  "\\sqrt",
  "\\sqrt[",
  "\\pi",
  "\\infty",
  "\\cup",
  "\\pm",
  "\\%",
  "\\le",
  "\\ne",
  "\\{",
  "\\}",
  "\\left(",
  "\\right)",
  "\\text{",
  "\\sin",
  "\\log_",
  "\\cdot",
  "\\times10^",
  "\\begin{pmatrix}",
  "\\end{pmatrix}",
  "\\\\",
  "\\boxed{",
  "^\\circ",
  "\\alpha",
  "\\,",
  "{,}",
  "$",
];

/** Calls compareAnswers; only OutOfTime may escape it. Returns the time taken in ms. */
function timedCompare(pred: string, gold: string, timeoutMs = 1000): number {
  const started = performance.now();
  try {
    compareAnswers(pred, gold, { timeoutMs });
  } catch (e) {
    if (!(e instanceof OutOfTime)) {
      assert.fail(`${JSON.stringify(pred)} vs ${JSON.stringify(gold)} threw ${(e as Error).stack}`);
    }
  }
  return performance.now() - started;
}

test("random garbage: no exception, and no comparison near the time limit", () => {
  const rand = mulberry32(19);
  const piece = () => PIECES[Math.floor(rand() * PIECES.length)]!;
  const garbage = () => Array.from({ length: 1 + Math.floor(rand() * 30) }, piece).join("");
  let slowest = 0;
  for (let k = 0; k < 3000; k++) {
    const a = garbage();
    const b = rand() < 0.3 ? a.replace(/x/g, "y") : garbage();
    slowest = Math.max(slowest, timedCompare(a, b), timedCompare(b, a));
  }
  assert.ok(slowest < 500, `slowest comparison ${Math.round(slowest)} ms`);
});

test("pathological answers: deep nesting, huge powers, long strings", () => {
  const cases: [string, string][] = [
    [`${"(".repeat(400)}1${")".repeat(400)}`, "1"],
    [`${"{".repeat(400)}1${"}".repeat(400)}`, "1"],
    [`${"\\frac{".repeat(140)}1${"}{2}".repeat(140)}`, "0"],
    [`${"\\sqrt{".repeat(150)}2${"}".repeat(150)}`, "1"],
    [`${"-".repeat(900)}5`, "5"],
    [`x${"^{x".repeat(120)}${"}".repeat(120)}`, "x"],
    ["9^{9^{9}}", "9^{9^{9}}+1"],
    ["10^{10^{10}}", "10^{10^{10}}"],
    ["2^{2^{2^{2^{2^{2}}}}}", "3^{3^{3^{3}}}"],
    ["3!!!!!!!!", "720"],
    ["\\frac{2^{99999}+1}{3^{60000}+1}", "\\frac{2^{99999}+3}{3^{60000}+1}"],
    [`${"2^{4999}\\cdot ".repeat(60)}1`, `${"2^{4999}\\cdot ".repeat(59)}2`],
    ["1000!", "1000!+1"],
    ["\\{".repeat(300) + "\\}".repeat(300), "\\{\\}"],
    [
      Array.from({ length: 240 }, (_, k) => k).join(","),
      Array.from({ length: 240 }, (_, k) => 239 - k).join(","),
    ],
    ["x".repeat(999), "x".repeat(998)],
    ["1".repeat(10_000), "1".repeat(10_000)],
    ["\\boxed{".repeat(3000), "5"],
    ["(1,2]\\cup".repeat(100) + "(1,2]", "(1,2]"],
  ];
  for (const [a, b] of cases) {
    const ms = Math.max(timedCompare(a, b), timedCompare(b, a));
    assert.ok(ms < 1500, `${a.slice(0, 40)}… took ${Math.round(ms)} ms`);
  }
  // Overflowing doubles are not values: two different huge powers do not match.
  assert.equal(mathAnswersEqual("2^{2^{2^{2^{2^{2}}}}}", "3^{3^{3^{3}}}"), false);
  assert.equal(mathAnswersEqual("9^{9^{9}}", "9^{9^{9}}+1"), false);
  // Equal text is equal, however long; different long text is not.
  assert.equal(mathAnswersEqual("1".repeat(10_000), "1".repeat(10_000)), true);
  assert.equal(mathAnswersEqual("1".repeat(10_000), "1".repeat(9_999)), false);
});

test("the grader on long and broken responses: reward 0 or 1, never an exception", async () => {
  const task = { id: "t", data: { answer: "\\frac{1}{2}" } };
  const responses = [
    `${"word ".repeat(2000)} so the answer is $\\frac12$`,
    `${"$".repeat(10_001)}`,
    `${"\\[".repeat(5000)}1/2`,
    `\\boxed{${"\\frac{".repeat(3000)}}`,
    `$${"x^".repeat(4000)}2$`,
  ];
  for (const response of responses) {
    const started = performance.now();
    const out = await mathGrader(task, response);
    assert.ok(out.reward === 0 || out.reward === 1);
    assert.ok(performance.now() - started < 1500, response.slice(0, 30));
  }
  assert.equal((await mathGrader(task, responses[0]!)).reward, 1);
});
