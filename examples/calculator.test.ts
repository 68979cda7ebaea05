/** The examples' calculator: school precedence, and a clear error for anything else. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { calculator, evaluateArithmetic } from "./calculator.js";

test("arithmetic with school precedence, unary signs, parentheses and decimals", () => {
  assert.equal(evaluateArithmetic("2 + 3 * 4"), 14);
  assert.equal(evaluateArithmetic("(2 + 3) * 4"), 20);
  assert.equal(evaluateArithmetic("10 - 4 - 3"), 3, "left to right");
  assert.equal(evaluateArithmetic("48 / 4 / 2"), 6, "left to right");
  assert.equal(evaluateArithmetic("-3 * -(2 + +1)"), 9);
  assert.equal(evaluateArithmetic(" .5 + 1.25 "), 1.75);
  assert.equal(evaluateArithmetic("0.1 + 0.2"), 0.3, "rounded to 12 significant digits");
  assert.equal(evaluateArithmetic("10 / 4"), 2.5);
  assert.equal(evaluateArithmetic("2 * (18 - 5) - 18 + 10"), 18);
});

test("anything else is an error naming what and where", () => {
  assert.throws(() => evaluateArithmetic(""), /expected a number or \( at the end of ""/);
  assert.throws(() => evaluateArithmetic("2 ** 3"), /expected a number or \( at 3 \("\*"\)/);
  assert.throws(() => evaluateArithmetic("(1 + 2"), /expected \) at the end of "\(1 \+ 2"/);
  assert.throws(() => evaluateArithmetic("1 + 2)"), /unexpected at 5 \("\)"\)/);
  assert.throws(() => evaluateArithmetic("Math.PI"), /expected a number or \( at 0 \("M"\)/);
  assert.throws(
    () => evaluateArithmetic("1 / (2 - 2)"),
    /division by zero \(the "\/" at 2\) in "1 \/ \(2 - 2\)"/,
  );
  assert.throws(() => evaluateArithmetic("1e400"), /unexpected at 1 \("e"\)/);
});

test("the tool's text: the value, or the error for the model to read", () => {
  assert.equal(calculator("(48 / 2) + 48"), "72");
  assert.equal(calculator("6 / 0"), 'error: division by zero (the "/" at 2) in "6 / 0"');
});
