import assert from "node:assert/strict";
import { test } from "node:test";
import { outputMismatch, outputsMatch, PyJsonError, parsePyJson, pyEqual } from "./code-compare.js";

test("exact output comparison: byte for byte, and the mismatch names where", () => {
  assert.ok(outputsMatch("3\n", "3\n", "exact"));
  assert.ok(!outputsMatch("3", "3\n", "exact"));
  assert.ok(!outputsMatch("3 \n", "3\n", "exact"));
  assert.match(
    outputMismatch("1 2 4\n", "1 2 3\n", "exact")!,
    /character 4: expected "1 2 3\\n", got "1 2 4\\n"/,
  );
  assert.match(outputMismatch("", "3\n", "exact")!, /expected "3\\n", got nothing/);
});

test("whitespace-tolerant comparison: the same tokens, however spaced", () => {
  assert.ok(outputsMatch("1 2\n3", "1\n2 3\n\n", "whitespace"));
  assert.ok(outputsMatch("  yes\r\n", "yes", "whitespace"));
  assert.ok(!outputsMatch("12", "1 2", "whitespace"));
  assert.ok(!outputsMatch("1.0", "1", "whitespace"));
  assert.match(
    outputMismatch("1 2", "1 2 3", "whitespace")!,
    /token 3 differs: expected "3", got nothing/,
  );
});

test("lines comparison follows LiveCodeBench: stripped lines, then Decimal values", () => {
  assert.ok(outputsMatch("  a b \n c\n\n", "a b\nc", "lines"));
  assert.ok(outputsMatch("0.50 1e3\n", "0.5 1000", "lines"));
  assert.ok(outputsMatch("-0 1_000 +2.\n", "0 1000 2", "lines"));
  assert.ok(outputsMatch("Infinity\n", "inf", "lines"));
  assert.ok(!outputsMatch("nan", "NaN", "lines")); // Decimal NaN equals nothing
  assert.ok(outputsMatch("nan", "nan", "lines")); // but the same text is the same line
  assert.ok(!outputsMatch("1 2", "1 2 3", "lines"));
  assert.ok(!outputsMatch("a b", "a  b", "lines")); // not decimals, and not the same text
  assert.ok(!outputsMatch("1\n2", "1 2", "lines"));
  assert.match(outputMismatch("1\n2", "1", "lines")!, /expected 1 line\(s\) of output, got 2/);
  assert.match(outputMismatch("1\n3", "1\n2", "lines")!, /line 2 differs: expected "2", got "3"/);
  // lcb splits on "\n" only: a blank line inside the output counts.
  assert.ok(!outputsMatch("1\n\n2", "1\n2", "lines"));
});

test("parsePyJson keeps ints exact and reads Python's NaN and Infinity", () => {
  assert.deepEqual(parsePyJson("12345678901234567891"), { int: 12345678901234567891n });
  assert.deepEqual(parsePyJson("1.0"), { float: 1 });
  assert.deepEqual(parsePyJson("1e2"), { float: 100 });
  assert.deepEqual(parsePyJson(' [true, null, "a\\nb"] '), [true, null, "a\nb"]);
  assert.ok(Number.isNaN((parsePyJson("NaN") as { float: number }).float));
  assert.deepEqual(parsePyJson("-Infinity"), { float: Number.NEGATIVE_INFINITY });
  const dict = parsePyJson('{"a": 1, "b": [2]}') as { dict: Map<string, unknown> };
  assert.deepEqual([...dict.dict.keys()], ["a", "b"]);
  for (const bad of ["", "[1,]", "01", "{1: 2}", "[1] 2", "'a'", "tru"]) {
    assert.throws(() => parsePyJson(bad), PyJsonError, bad);
  }
});

test("pyEqual is Python's == on JSON values", () => {
  const eq = (a: string, b: string) => pyEqual(parsePyJson(a), parsePyJson(b));
  assert.ok(eq("2", "2.0"));
  assert.ok(eq("true", "1"));
  assert.ok(eq("false", "0.0"));
  assert.ok(eq("[1, [2, 3]]", "[1.0, [2, 3]]"));
  assert.ok(eq('{"a": 1, "b": 2}', '{"b": 2, "a": 1}'));
  assert.ok(!eq("12345678901234567891", "12345678901234567890"));
  assert.ok(!eq("9007199254740993", "9007199254740992.0")); // int vs float compares exactly
  assert.ok(!eq("NaN", "NaN"));
  assert.ok(!eq('"1"', "1"));
  assert.ok(!eq("null", "0"));
  assert.ok(!eq("[1, 2]", "[1, 2, 3]"));
  assert.ok(!eq('{"a": 1}', '{"a": 1, "b": 2}'));
  assert.ok(!eq('{"a": 1}', '{"b": 1}'));
  assert.ok(!eq("[]", "{}"));
  assert.ok(!eq("0.1", "0.10000000000000002"));
});
