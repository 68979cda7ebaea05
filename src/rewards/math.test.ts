import assert from "node:assert/strict";
import { test } from "node:test";
import type { Task } from "../types/index.js";
import { lastAnswerLine, lastBoxed } from "./extract.js";
import { extractMathAnswer, mathGrader, mathGroundTruth } from "./math.js";
import { mathAnswersEqual, normalizeMathAnswer } from "./math-equal.js";
import { Rational } from "./rational.js";

const task = (answer: unknown, id = "t1"): Task => ({ id, data: { answer } });

async function grade(answer: unknown, response: string) {
  return await mathGrader(task(answer), response);
}

test("lastBoxed: last box, nested braces, spacing, fbox, truncation", () => {
  assert.equal(lastBoxed("so \\boxed{3} and then \\boxed{4}."), "4");
  assert.equal(lastBoxed("\\boxed{\\frac{1}{2}}"), "\\frac{1}{2}");
  assert.equal(
    lastBoxed("\\boxed{\\left\\{ 1, \\sqrt{2} \\right\\}}"),
    "\\left\\{ 1, \\sqrt{2} \\right\\}",
  );
  assert.equal(lastBoxed("$\\boxed {x+1}$"), "x+1");
  assert.equal(lastBoxed("\\fbox{7}"), "7");
  assert.equal(lastBoxed("The answer is $\\boxed 5$."), "5");
  // A box inside a box is part of the outer answer.
  assert.equal(lastBoxed("\\boxed{\\frac{1}{\\boxed{2}}}"), "\\frac{1}{\\boxed{2}}");
  // Cut off by the length limit: the last complete box counts.
  assert.equal(lastBoxed("\\boxed{3} ... so the final is \\boxed{\\frac{4"), "3");
  assert.equal(lastBoxed("no box here"), undefined);
  assert.equal(lastBoxed("\\boxeds{3}"), undefined);
});

test("lastAnswerLine: GSM8K, 'The answer is', 'Final answer:', Minerva, markdown", () => {
  assert.equal(lastAnswerLine("She makes $18.\n#### 18"), "18");
  assert.equal(lastAnswerLine("So the answer is 42."), "42");
  assert.equal(lastAnswerLine("Final answer: $\\frac{3}{4}$"), "\\frac{3}{4}");
  assert.equal(lastAnswerLine("Answer: 7 apples"), "7 apples");
  assert.equal(lastAnswerLine("**Answer:** 12"), "12");
  assert.equal(lastAnswerLine("**Final Answer**: 12"), "12");
  assert.equal(lastAnswerLine("Final Answer: The final answer is $5$. I hope it is correct."), "5");
  assert.equal(lastAnswerLine("The answer is:\n\n  9"), "9");
  assert.equal(lastAnswerLine("The answer is 3.5. That is all."), "3.5");
  assert.equal(lastAnswerLine("I think 4."), undefined);
});

test("extractMathAnswer prefers the last box over an answer line", () => {
  assert.deepEqual(extractMathAnswer("The answer is 3. Actually \\boxed{4}"), {
    answer: "4",
    source: "boxed",
  });
  assert.deepEqual(extractMathAnswer("Thus, the answer is 10."), {
    answer: "10",
    source: "answer_line",
  });
  assert.equal(extractMathAnswer("I have no idea"), undefined);
});

test("extractMathAnswer falls back as Math-Verify does: boxes, answer cue, LaTeX, number", () => {
  const found = (r: string) => extractMathAnswer(r);
  // Boxes separated only by a separator form one list answer; a revised answer far after does not.
  assert.deepEqual(found("So $\\boxed{1}$ and $\\boxed{2}$."), { answer: "1, 2", source: "boxed" });
  assert.deepEqual(
    found(
      "\\boxed{3}\n\nLong reasoning follows here, then a change of mind about all of it, and more words after.\n\\boxed{4}",
    ),
    {
      answer: "4",
      source: "boxed",
    },
  );
  assert.deepEqual(found("The answer is $\\$32,\\!348$."), {
    answer: "\\$32,\\!348",
    source: "answer_line",
  });
  // No box and no cue: the last LaTeX span or plain number, whichever ends later.
  assert.deepEqual(found("We get $x=2$ and then \\[ y = \\frac{1}{2} \\]"), {
    answer: "y = \\frac{1}{2}",
    source: "latex",
  });
  assert.deepEqual(found("First $x = 3$, so in total 1,080 pages"), {
    answer: "1080",
    source: "number",
  });
  assert.deepEqual(found("so 1 000 in all"), { answer: "1000", source: "number" });
  assert.deepEqual(found("Soucis : 2,74 $ a.."), { answer: "2.74", source: "number" });
  assert.deepEqual(found("it is .4"), { answer: ".4", source: "number" });
  // Math spans joined by `and`, `or` or a comma are one list answer.
  assert.deepEqual(found("The roots are $1$ and $-2$."), { answer: "1, -2", source: "latex" });
  assert.deepEqual(found("Either $1$; later $-2$."), { answer: "-2", source: "latex" });
  assert.deepEqual(found("ratio \\frac{10}{9}"), { answer: "\\frac{10}{9}", source: "number" });
  // A sentence after the cue: its last math or number.
  assert.deepEqual(found("Final Answer: The largest $n$ is 34."), {
    answer: "34",
    source: "answer_line",
  });
  assert.deepEqual(found("Answer: 7 apples"), { answer: "7 apples", source: "answer_line" });
  assert.deepEqual(found("It costs \\$5 and \\$7"), { answer: "7", source: "number" });
  assert.deepEqual(found("roughly 40% of them"), { answer: "40%", source: "number" });
  assert.equal(found("no digits at all"), undefined);
});

test("normalizeMathAnswer: one canonical string per spelling", () => {
  const cases: [string, string][] = [
    ["\\dfrac{3}{4}", "\\frac{3}{4}"],
    ["\\tfrac34", "\\frac{3}{4}"],
    ["\\frac 59", "\\frac{5}{9}"],
    ["\\frac9{19}", "\\frac{9}{19}"],
    ["\\frac{270}7\\text{ degrees}", "\\frac{270}{7}"],
    ["\\sqrt2", "\\sqrt{2}"],
    ["11\\sqrt2", "11\\sqrt{2}"],
    ["\\sqrt[3]8", "\\sqrt[3]{8}"],
    ["\\left( 3, \\frac{\\pi}{2} \\right)", "(3,\\frac{\\pi}{2})"],
    ["10,\\!080", "10080"],
    ["11,\\! 111,\\! 111,\\! 100", "11111111100"],
    ["\\$32,\\!348", "32348"],
    ["\\$18.90", "18.90"],
    ["$\\frac{1}{2}$", "\\frac{1}{2}"],
    ["50\\%", "50\\%"],
    ["50 percent", "50\\%"],
    ["106^\\circ", "106"],
    ["30^{\\circ}", "30"],
    ["45°", "45"],
    ["15\\mbox{ cm}^2", "15"],
    ["864 \\mbox{ inches}^2", "864"],
    ["5.4 \\text{ cents}", "5.4"],
    ["18 dollars", "18"],
    ["\\text{Evelyn}", "Evelyn"],
    ["\\text{(C)}", "C"],
    ["x = 5", "x=5"],
    ["a \\le b", "a\\le b"],
    ["x \\in [-2,7]", "[-2,7]"],
    ["4210_{5}", "4210_5"],
    ["5.", "5"],
    ["\\displaystyle\\frac{1}{2}", "\\frac{1}{2}"],
    ["\\cot x", "\\cot x"],
    ["\\begin{bmatrix} 1 \\\\ 2 \\end{bmatrix}", "\\begin{pmatrix}1\\\\2\\end{pmatrix}"],
    ["137 1/2", "137\\frac{1}{2}"],
    ["(1,2)", "(1,2)"],
    ["1,2", "1,2"],
  ];
  for (const [input, want] of cases) {
    assert.equal(normalizeMathAnswer(input), want, `normalizeMathAnswer(${JSON.stringify(input)})`);
  }
});

test("mathAnswersEqual: the same answer written differently", () => {
  const same: [string, string][] = [
    ["\\frac{1}{2}", "0.5"],
    ["\\boxed{\\frac{1}{2}}", "1/2"],
    [".5", "0.50"],
    ["1,000", "1000"],
    ["\\$18.00", "18"],
    ["50\\%", "50"],
    ["10^\\circ", "10"],
    ["033", "33"],
    ["\\dfrac{3}{4}", "3/4"],
    ["\\frac34", "0.75"],
    ["\\sqrt2", "\\sqrt{2}"],
    ["2\\sqrt{5}", "\\sqrt{20}"],
    ["\\frac{\\sqrt{3}}{3}", "\\frac{1}{\\sqrt{3}}"],
    ["3\\pi", "\\pi \\cdot 3"],
    ["2^{10}", "1024"],
    ["1\\frac{4}{5}", "\\frac95"],
    ["-\\frac{24}{25}", "-0.96"],
    ["10\\text{ cm}", "10"],
    ["x = 5", "5"],
    ["y = 2x + 3", "2x+3"],
    ["(1, 2)", "(1,2)"],
    ["\\left(\\frac{3}{5},\\frac{8}{3}\\right]", "(0.6, 8/3]"],
    ["(-\\infty, 0]", "(-\\infty,0]"],
    ["(2,12) \\cup (12,102)", "(12,102)\\cup(2,12)"],
    ["-2,1", "1, -2"],
    ["\\{1\\pm\\sqrt{5},-2\\}", "\\{-2, 1\\pm\\sqrt{5}\\}"],
    ["\\text{Evelyn}", "evelyn"],
    ["\\text{(B)}", "B"],
    ["-2 + 7i", "-2+7i"],
    [
      "\\begin{pmatrix} -1/3 \\\\ 2/3 \\\\ 5/3 \\end{pmatrix}",
      "\\begin{bmatrix} -\\frac13 \\\\ \\frac{2}{3} \\\\ \\frac53 \\end{bmatrix}",
    ],
    ["204_5", "204_{5}"],
    ["\\$32,\\!348", "32,348"],
    ["1{,}000", "1000"],
    ["1\\,000", "1000"],
    // Math-Verify rounds both sides to 6 decimals when one is a lone decimal number.
    ["\\sqrt{2}", "1.41421356237"],
    ["\\pi", "3.14159265358979"],
  ];
  for (const [a, b] of same) {
    assert.ok(mathAnswersEqual(a, b), `${JSON.stringify(a)} should equal ${JSON.stringify(b)}`);
    assert.ok(mathAnswersEqual(b, a), `${JSON.stringify(b)} should equal ${JSON.stringify(a)}`);
  }
});

test("mathAnswersEqual: different answers stay different", () => {
  const different: [string, string][] = [
    ["(1,2)", "12"],
    ["1,2", "12"],
    ["(3,4]", "(3,4)"],
    ["(1,2)", "(2,1)"],
    ["\\frac{1}{3}", "0.3333"],
    ["\\sqrt{2}", "1.4142"],
    ["\\pi", "3.14"],
    ["2 and 3", "2"],
    ["-2,1", "-2,1,3"],
    ["5", "6"],
    ["0", ""],
    ["", ""],
    ["\\frac{1}{2}", "\\frac{1}{4}"],
    ["10^\\circ", "100"],
    ["50\\%", "5"],
    ["33", "333"],
    ["x^2", "x^3"],
  ];
  for (const [a, b] of different) {
    assert.ok(
      !mathAnswersEqual(a, b),
      `${JSON.stringify(a)} should differ from ${JSON.stringify(b)}`,
    );
  }
});

test("Rational: exact arithmetic and decimal parsing", () => {
  const r = (s: string) => Rational.parseDecimal(s)!;
  assert.equal(r("0.1").add(r("0.2")).toString(), "3/10");
  assert.equal(r("-3.50").toString(), "-7/2");
  assert.equal(r("007").toString(), "7");
  assert.equal(r(".5").toString(), "1/2");
  assert.equal(Rational.parseDecimal("1e5"), undefined);
  assert.equal(Rational.parseDecimal("."), undefined);
  assert.equal(r("1").div(r("0")), undefined);
  assert.ok(Rational.of(6n, -4n).equals(r("-1.5")));
});

test("an answer cue followed by several math spans is a list: naming candidates earns nothing", async () => {
  assert.deepEqual(extractMathAnswer("The answer is $2$ or $3$."), {
    answer: "2, 3",
    source: "answer_line",
  });
  assert.equal((await grade("2", "The answer is $2$ or $3$.")).reward, 0);
  assert.equal((await grade("2", "Final answer: $x = 2$, $x = 3$")).reward, 0);
  assert.equal((await grade("2", "**Answer:** $2$ and $3$ and $4$")).reward, 0);
  // A list gold is matched by the listed answers; one math span stays one answer.
  assert.equal((await grade("2, 3", "The answer is $2$ and $3$.")).reward, 1);
  assert.equal((await grade("2", "The answer is $2$. I hope it is correct.")).reward, 1);
  assert.equal((await grade("2", "The answer is $2$, since $3$ is too big.")).reward, 1);
});

test("mathGroundTruth: GSM8K solutions, plain answers, numbers, full MATH solutions", () => {
  assert.equal(
    mathGroundTruth(task("Janet sells 9 eggs.\nShe makes 9 * 2 = $<<9*2=18>>18.\n#### 18")),
    "18",
  );
  assert.equal(mathGroundTruth(task("#### 1,080")), "1,080");
  assert.equal(mathGroundTruth(task("1080")), "1080");
  assert.equal(mathGroundTruth(task(33)), "33");
  assert.equal(mathGroundTruth(task("So $x = \\boxed{\\frac{1}{2}}$.")), "\\frac{1}{2}");
  assert.throws(
    () => mathGroundTruth(task(undefined, "gsm-7")),
    /task gsm-7 has no usable data\.answer/,
  );
  assert.throws(() => mathGroundTruth(task("  ")), /no usable data\.answer/);
  assert.throws(
    () => mathGroundTruth({ id: "x", data: { question: "q" } }),
    /Fields present: question/,
  );
});

test("mathGrader: realistic GSM8K responses", async () => {
  const gsm = "He needs 3 * 360 = <<3*360=1080>>1080 pages.\n#### 1,080";
  assert.equal((await grade(gsm, "So he reads 1080 pages in total.\n#### 1080")).reward, 1);
  assert.equal((await grade(gsm, "The answer is \\boxed{1,080}.")).reward, 1);
  assert.equal((await grade(gsm, "Total: $1,080. The answer is 1080.")).reward, 1);
  assert.equal((await grade(gsm, "The answer is 1008.")).reward, 0);
  assert.equal(
    (await grade("#### 18", "She earns \\$18.00 a day, so \\boxed{\\$18.00}")).reward,
    1,
  );
  assert.equal((await grade("#### -10", "The change is \\boxed{-10}")).reward, 1);
});

test("mathGrader: MATH and AIME responses", async () => {
  assert.equal((await grade("\\frac{1}{2}", "Hence $p = \\boxed{0.5}$.")).reward, 1);
  assert.equal((await grade("0.5", "Hence $p = \\boxed{\\dfrac{1}{2}}$.")).reward, 1);
  assert.equal((await grade("033", "so $m+n=\\boxed{33}$")).reward, 1);
  assert.equal((await grade(33, "so $m+n=\\boxed{033}$")).reward, 1);
  assert.equal((await grade("90^\\circ", "The angle is $\\boxed{90}$ degrees")).reward, 1);
  assert.equal((await grade("(3,4]", "The interval is \\boxed{(3,4)}")).reward, 0);
  assert.equal((await grade("(1,2)", "\\boxed{12}")).reward, 0);
  assert.equal((await grade("\\text{(C)}", "The answer is \\boxed{C}")).reward, 1);
  assert.equal(
    (await grade("10", "it is $10\\text{ cm}$\n\nFinal answer: $10\\text{ cm}$")).reward,
    1,
  );
});

test("mathGrader: result shape, metadata and the no-answer case", async () => {
  const right = await grade("#### 18", "\\boxed{18}");
  assert.deepEqual(right, {
    reward: 1,
    isCorrect: true,
    metadata: { extracted: "18", expected: "18", extractedFrom: "boxed" },
  });
  const wrong = await grade("#### 18", "The answer is 17.");
  assert.equal(wrong.reward, 0);
  assert.equal(wrong.isCorrect, false);
  assert.equal(wrong.metadata?.["extracted"], "17");
  const none = await grade("#### 18", "I think it's eighteen-ish");
  assert.deepEqual(none, {
    reward: 0,
    isCorrect: false,
    metadata: { extracted: null, expected: "18", reason: "no answer found" },
  });
  // Malformed model output never throws.
  for (const junk of ["", "\\boxed{", "\\boxed{}", "}}}{{{", "\\frac{", "Answer:", "$$$$"]) {
    const out = await grade("5", junk);
    assert.equal(out.reward, 0, JSON.stringify(junk));
  }
});

test("adversarial responses neither throw nor take long", async () => {
  const responses = [
    "\\boxed{".repeat(50_000), // quadratic if each box were read separately
    `\\boxed{${"{".repeat(50_000)}${"}".repeat(50_000)}}`,
    `\\boxed{${"(".repeat(450)}5${")".repeat(450)}}`,
    `\\boxed{${"\\frac{".repeat(140)}1${"}{2}".repeat(140)}}`,
    `\\boxed{${"-".repeat(900)}5}`,
    `\\boxed{9^{9^{9}}}`,
    `\\boxed{5 ${"\\text{ cm}".repeat(3000)}${" ".repeat(50_000)}}`,
    "The answer is 4. ".repeat(20_000),
    `<answer>${"<answer>".repeat(20_000)}`,
  ];
  const started = performance.now();
  for (const response of responses) {
    const out = await grade("5", response);
    assert.equal(out.reward, 0);
  }
  const elapsed = performance.now() - started;
  assert.ok(elapsed < 2000, `took ${Math.round(elapsed)} ms`);
});
