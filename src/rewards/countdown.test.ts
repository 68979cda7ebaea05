import assert from "node:assert/strict";
import { test } from "node:test";
import type { EvalOutput, Task } from "../types/index.js";
import { countdownGrader, parseCountdownEquation } from "./countdown.js";

const task = (numbers: number[], target: number): Task => ({
  id: "cd-1",
  data: { numbers, target },
});

const grade = countdownGrader();

async function reason(numbers: number[], target: number, response: string): Promise<unknown> {
  const out: EvalOutput = await grade(task(numbers, target), response);
  return out.metadata?.["reason"];
}

test("correct equations score 1 (precedence, parentheses, unary minus, exact division)", async () => {
  const right: [number[], number, string][] = [
    [[25, 3, 1], 72, "(25 - 1) * 3"],
    [[19, 36, 55, 7], 65, "55 + 36 - 7 - 19"],
    [[2, 3, 4], 14, "2 + 3 * 4"],
    [[2, 3, 4], 20, "(2 + 3) * 4"],
    [[1, 3, 4, 6], 24, "6 / (1 - 3 / 4)"], // 24 exactly, though 3/4 is not an integer
    [[3, 3, 8, 8], 24, "8 / (3 - 8 / 3)"], // floats give 23.999999999999993
    [[5, 9], 4, "-5 + 9"],
    [[5, 9], -45, "-5 * 9"],
    [[5, 9], 45, "-(-5 * 9)"],
    [[44, 19, 35], 98, "44 + 19 + 35"],
    [[10, 2], 5, " ( 10 / 2 ) "],
    [[6, 4], 24, "6 × 4"],
    [[8, 2], 4, "8 ÷ 2"],
    [[8, 2], 6, "8 − 2"],
    [[6, 4], 24, "6 * 4 = 24"], // restating the target is allowed
    [[7, 7, 2], 7, "7 * 2 - 7"], // a number given twice may be used twice
    [[50, 3], 47, "50 - 3"], // not every number has to be used by default
  ];
  for (const [numbers, target, equation] of right) {
    const out = await grade(
      task(numbers, target),
      `<think>...</think>\n<answer>${equation}</answer>`,
    );
    assert.equal(out.reward, 1, `${equation} = ${target}: ${JSON.stringify(out.metadata)}`);
    assert.equal(out.isCorrect, true);
  }
});

test("the last <answer> tag counts", async () => {
  const response = "<answer>1 + 2</answer> wait, no: <answer>(25 - 1) * 3</answer>";
  assert.equal((await grade(task([25, 3, 1], 72), response)).reward, 1);
});

test("every failure reason", async () => {
  assert.equal(await reason([1, 2], 3, "1 + 2 = 3"), "no <answer> tag");
  assert.equal(await reason([1, 2], 3, "<answer>1 + 2"), "no <answer> tag");
  assert.equal(
    await reason([1, 2], 3, "<answer></answer>"),
    "parse error at position 0: empty equation",
  );
  assert.equal(
    await reason([1, 2], 3, "<answer>1 + x</answer>"),
    "parse error at position 4: expected a number or '(', found 'x'",
  );
  assert.equal(
    await reason([1, 2], 3, "<answer>1 +</answer>"),
    "parse error at position 3: unexpected end of equation, expected a number or '('",
  );
  assert.equal(
    await reason([1, 2], 3, "<answer>(1 + 2</answer>"),
    "parse error at position 6: expected ')' to close the '(' at position 0, found the end",
  );
  assert.equal(
    await reason([1, 2], 3, "<answer>1 + 2)</answer>"),
    "parse error at position 5: unmatched ')'",
  );
  assert.equal(
    await reason([2, 3], 6, "<answer>2(3)</answer>"),
    "parse error at position 1: unexpected '('",
  );
  assert.equal(
    await reason([2, 3], 8, "<answer>2 ** 3</answer>"),
    "parse error at position 3: expected a number or '(', found '*'",
  );
  assert.equal(
    await reason([2, 3], 8, "<answer>2 ^ 3</answer>"),
    "parse error at position 2: unexpected '^'",
  );
  assert.equal(
    await reason([3, 8], 24, "<answer>3 * 8 * 1</answer>"),
    "uses 1 which is not among the numbers",
  );
  assert.equal(
    await reason([3, 4, 5], 23, "<answer>3 + 4 * 5 - 7 + 7</answer>"),
    "uses 7 which is not among the numbers",
  );
  assert.equal(
    await reason([5, 3], 25, "<answer>5 * 5</answer>"),
    "uses 5 twice but it is given once",
  );
  assert.equal(
    await reason([5, 5, 2], 125, "<answer>5 * 5 * 5</answer>"),
    "uses 5 3 times but it is given twice",
  );
  assert.equal(
    await reason([3, 8, 1], 24, "<answer>3 * 8 - 1</answer>"),
    "evaluates to 23, not 24",
  );
  assert.equal(await reason([1, 2], 1, "<answer>1 / 2</answer>"), "evaluates to 1/2, not 1");
  assert.equal(await reason([4, 2, 2], 4, "<answer>4 / (2 - 2)</answer>"), "division by zero");
});

test("wrong answers carry the equation and value in metadata", async () => {
  const out = await grade(task([3, 8, 1], 24), "<answer>3 * 8 - 1</answer>");
  assert.deepEqual(out, {
    reward: 0,
    isCorrect: false,
    metadata: {
      numbers: [3, 8, 1],
      target: 24,
      equation: "3 * 8 - 1",
      reason: "evaluates to 23, not 24",
      value: "23",
    },
  });
});

test("formatScore rewards a well-formed but wrong equation, not a malformed one", async () => {
  const shaped = countdownGrader({ formatScore: 0.1 });
  const t = task([3, 8, 1], 24);
  assert.equal((await shaped(t, "<answer>3 * 8 - 1</answer>")).reward, 0.1);
  assert.equal((await shaped(t, "<answer>3 * 8 * 7</answer>")).reward, 0.1); // misused number
  assert.equal((await shaped(t, "<answer>3 * 8 * 1</answer>")).reward, 1);
  assert.equal((await shaped(t, "<answer>3 * * 8</answer>")).reward, 0); // parse error
  assert.equal((await shaped(t, "24")).reward, 0); // no tag
  assert.equal((await shaped(t, "<answer>3 * 8 * 1</answer>")).isCorrect, true);
  assert.equal((await shaped(t, "<answer>3 * 8 - 1</answer>")).isCorrect, false);
});

test("closenessScore: a miss scores by how near it lands; a correct answer still 1", async () => {
  const near = countdownGrader({ formatScore: 0.1, closenessScore: 0.2 });
  const t = task([3, 8, 1], 24);
  const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-12, `${a} vs ${b}`);
  close((await near(t, "<answer>3 * 8 - 1</answer>")).reward, 0.1 + 0.2 * (1 - 1 / 24));
  close((await near(t, "<answer>3 + 8 + 1</answer>")).reward, 0.1 + 0.2 * (1 - 12 / 24));
  close((await near(t, "<answer>3 * 8 * 8</answer>")).reward, 0.1); // misused number: format only
  close((await near(t, "<answer>(3 + 8) * 8 / 1</answer>")).reward, 0.1);
  close((await near(t, "<answer>1 - 3 * 8</answer>")).reward, 0.1); // 47 off: past the target
  assert.equal((await near(t, "<answer>3 * 8 * 1</answer>")).reward, 1);
  assert.equal((await near(t, "<answer>3 * 8 - 1</answer>")).isCorrect, false);
  assert.equal((await near(t, "<answer>3 * * 8</answer>")).reward, 0);
  assert.throws(() => countdownGrader({ formatScore: 0.5, closenessScore: 0.5 }), /less than 1/);
  assert.throws(() => countdownGrader({ closenessScore: -0.1 }), /must be ≥ 0/);
});

test("requireAllNumbers enforces TinyZero's use-every-number rule", async () => {
  const strict = countdownGrader({ requireAllNumbers: true });
  const out = await strict(task([50, 3, 9], 47), "<answer>50 - 3</answer>");
  assert.equal(out.reward, 0);
  assert.equal(out.metadata?.["reason"], "does not use 9; every number must be used");
  assert.equal((await strict(task([50, 3, 9], 56), "<answer>50 - 3 + 9</answer>")).reward, 1);
});

test("parseCountdownEquation builds a tree without evaluating anything", () => {
  const parsed = parseCountdownEquation("-(1 + 2) * 3");
  assert.ok(parsed.ok);
  assert.equal(parsed.expr.kind, "binary");
  const bad = parseCountdownEquation("process.exit()");
  assert.deepEqual(bad, { ok: false, position: 0, message: "expected a number or '(', found 'p'" });
});

test("a task without numbers or target is a dataset error", () => {
  assert.throws(
    () => grade({ id: "cd-bad", data: { target: 3 } }, "<answer>1</answer>"),
    /task cd-bad needs data\.numbers/,
  );
  // TinyZero's field name `nums` is accepted.
  const out = grade({ id: "cd-nums", data: { nums: [1, 2], target: 3 } }, "<answer>1+2</answer>");
  assert.equal((out as EvalOutput).reward, 1);
});

test("adversarial equations are parse errors, not stack overflows", async () => {
  const t = task([1], 1);
  const deep = await grade(t, `<answer>${"(".repeat(5000)}1${")".repeat(5000)}</answer>`);
  assert.equal(deep.metadata?.["reason"], "parse error at position 100: nested more than 100 deep");
  const minus = await grade(t, `<answer>${"-".repeat(5000)}1</answer>`);
  assert.match(String(minus.metadata?.["reason"]), /nested more than 100 deep/);
  const long = await grade(t, `<answer>${"1+".repeat(20_000)}1</answer>`);
  assert.equal(long.metadata?.["reason"], "parse error at position 200: more than 100 numbers");
  const tags = await grade(t, "<answer>".repeat(50_000));
  assert.equal(tags.metadata?.["reason"], "no <answer> tag");
});
