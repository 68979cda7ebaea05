import assert from "node:assert/strict";
import { test } from "node:test";
import { evaluateExact, evaluateNumeric } from "./evaluate.js";
import { normalizeMathAnswer } from "./normalize.js";
import { ParseError, parseExpression, variablesOf } from "./parse.js";
import { shapeOf } from "./structure.js";

const exact = (s: string) => evaluateExact(parseExpression(normalizeMathAnswer(s)))?.toString();
const numeric = (s: string, env: Record<string, number> = {}) =>
  evaluateNumeric(
    parseExpression(normalizeMathAnswer(s)),
    new Map(Object.entries(env).map(([k, v]) => [k, { re: v, im: 0 }])),
  );

test("exact values while every step is rational", () => {
  assert.equal(exact("\\frac{3}{4}"), "3/4");
  assert.equal(exact("1\\frac{4}{5}"), "9/5");
  assert.equal(exact("-1\\frac{1}{2}"), "-3/2");
  assert.equal(exact("2^{-2}"), "1/4");
  assert.equal(exact("-2^2"), "-4");
  assert.equal(exact("\\sqrt{\\frac{9}{4}}"), "3/2");
  assert.equal(exact("8^{1/3}"), "2");
  assert.equal(exact("\\sqrt[3]{27}"), "3");
  assert.equal(exact("(1+2)(3)"), "9");
  assert.equal(exact("0.1+0.2"), "3/10");
  assert.equal(exact("1.5e3"), "1500");
  assert.equal(exact("2.5E-1"), "1/4");
  assert.equal(exact("50\\%"), "1/2");
  assert.equal(exact("2\\frac{\\pi}{3}"), undefined); // a product with π, not a mixed number
  assert.equal(exact("\\sqrt{2}"), undefined);
  assert.equal(exact("9^{9^{9}}"), undefined); // past the exact-power budget
});

test("numeric values: principal branches, functions, constants", () => {
  const close = (a: number, b: number) => Math.abs(a - b) < 1e-12;
  assert.ok(close(numeric("\\sqrt{2}").re, Math.SQRT2));
  const i = numeric("\\sqrt{-4}");
  assert.ok(close(i.re, 0) && close(i.im, 2));
  assert.ok(close(numeric("\\sin^2 x + \\cos^2 x", { x: 0.7 }).re, 1));
  assert.ok(close(numeric("\\log_{2} 8").re, 3));
  assert.ok(close(numeric("\\ln e").re, 1));
  assert.ok(close(numeric("|x|", { x: -3 }).re, 3));
  assert.ok(close(numeric("\\sin^{-1} 1").re, Math.PI / 2));
  assert.ok(close(numeric("\\lfloor 2.5 \\rfloor").re, 2));
  assert.ok(close(numeric("5!").re, 120));
  assert.ok(Number.isNaN(numeric("\\frac{1}{0}").re));
  assert.ok(Number.isNaN(numeric("y", { x: 1 }).re), "an unbound variable has no value");
  assert.equal(numeric("\\infty").re, Number.POSITIVE_INFINITY);
});

test("variables: letters, Greek, subscripts; e and i are constants", () => {
  const vars = (s: string) => [...variablesOf(parseExpression(normalizeMathAnswer(s)))].sort();
  assert.deepEqual(vars("2xy + z"), ["x", "y", "z"]);
  assert.deepEqual(vars("\\alpha + \\theta_1"), ["\\alpha", "\\theta_1"]);
  assert.deepEqual(vars("a_{n+1} - a_n"), ["a_n", "a_{n+1}"]);
  assert.deepEqual(vars("e^{i\\pi} + 1"), []);
});

test("what the parser refuses (the caller then compares text)", () => {
  for (const text of ["x+", "\\pm 2", "(1", "\\foo{2}", "", "1,2", "#", "52_8"]) {
    assert.throws(() => parseExpression(normalizeMathAnswer(text)), ParseError, text);
  }
  // Deep nesting is refused before it nears the stack limit.
  assert.throws(() => parseExpression(`${"(".repeat(5000)}1${")".repeat(5000)}`), ParseError);
});

test("shapes: sets, tuples, intervals, unions, relations, matrices, ±", () => {
  assert.equal(shapeOf("\\{1,2\\}").kind, "set");
  assert.equal(shapeOf("1,2").kind, "set");
  assert.equal(shapeOf("(1,2)").kind, "tuple");
  assert.equal(shapeOf("(1,2)\\cup(3,4)").kind, "union");
  assert.deepEqual(shapeOf("1<x\\le2"), {
    kind: "relation",
    ops: ["<", "\\le"],
    sides: ["1", "x", "2"],
  });
  assert.equal(shapeOf("\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}").kind, "matrix");
  assert.deepEqual(shapeOf("1\\pm\\sqrt{5}"), {
    kind: "set",
    braced: false,
    items: [
      { kind: "scalar", text: "1+\\sqrt{5}" },
      { kind: "scalar", text: "1-\\sqrt{5}" },
    ],
  });
  // `\le` inside a command name is not a relation; `(1)(2)` is a product, not a tuple.
  assert.equal(shapeOf("\\left(x\\right)").kind, "scalar");
  assert.equal(shapeOf("(1)(2)").kind, "scalar");
});
