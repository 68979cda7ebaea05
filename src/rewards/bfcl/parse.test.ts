import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { bfclCallText, parseBfclCalls } from "./parse.js";
import { type PyVal, pyRepr } from "./value.js";

/** BFCL's own decoder on hand-written outputs (fixtures/make-bfcl.py, gorilla 6ea57973c7a6). */
const { decode } = JSON.parse(
  readFileSync(new URL("../fixtures/bfcl-reference.json", import.meta.url), "utf8"),
) as {
  decode: { text: string; calls?: { name: string; args: [string, unknown][] }[]; error?: string }[];
};

/** A value in the fixture's typed form: `{"int": "5"}`, `{"float": "5.0"}` (repr), `{"tuple": []}`. */
function tagged(v: PyVal): unknown {
  switch (v.t) {
    case "none":
      return { none: true };
    case "bool":
      return { bool: v.v };
    case "int":
      return { int: v.v.toString() };
    case "float":
      return { float: pyRepr(v) };
    case "str":
      return { str: v.v };
    case "list":
    case "tuple":
      return { [v.t]: v.v.map(tagged) };
    case "dict":
      return { dict: v.v.map(([k, x]) => [tagged(k), tagged(x)]) };
  }
}

/** Outputs BFCL decodes and we refuse on purpose (parse.ts's header says why), with our reason. */
const REFUSED: Record<string, RegExp> = {
  "[f(a=g(b=1))]": /function call is not accepted as an argument value/,
  "[f(a=g())]": /function call is not accepted as an argument value/,
  "[f(a=x[0])]": /subscript is not accepted/,
  "[f(a=+5)]": /unary "\+" is not accepted/,
  "[f(a=b'bytes')]": /bytes literals are not accepted/,
  "[f(a=1j)]": /complex numbers are not accepted/,
  "[f(**kw)]": /"\*\*" arguments are not accepted/,
  "[f(x=1)(y=2)]": /function name must be a \(dotted\) name/,
};

test("the decoder agrees with BFCL's on every fixture output, but for the documented refusals", () => {
  assert.ok(decode.length >= 60);
  for (const c of decode) {
    const ours = parseBfclCalls(c.text);
    const what = JSON.stringify(c.text);
    if (c.error !== undefined) {
      assert.equal(ours.ok, false, `${what}: BFCL fails (${c.error}), we parsed it`);
    } else if (REFUSED[c.text]) {
      assert.equal(ours.ok, false, `${what}: should be refused`);
      assert.match((ours as { error: string }).error, REFUSED[c.text]!, what);
    } else {
      assert.ok(ours.ok, `${what}: BFCL decodes it, we fail: ${!ours.ok && ours.error}`);
      const got = ours.calls.map((call) => ({
        name: call.name,
        args: call.args.map(([k, v]) => [k, tagged(v)]),
      }));
      assert.deepEqual(got, c.calls, what);
    }
  }
  for (const text of Object.keys(REFUSED)) {
    assert.ok(
      decode.some((c) => c.text === text && c.calls),
      `${text} is in the fixture and BFCL decodes it`,
    );
  }
});

test("bfclCallText: the last fenced block, ends stripped of backticks, newlines and spaces, brackets added", () => {
  assert.equal(bfclCallText("f(a=1)"), "[f(a=1)]");
  assert.equal(bfclCallText("  [f(a=1)]\n"), "[f(a=1)]");
  assert.equal(bfclCallText("f(a=1), g(b=2)"), "[f(a=1), g(b=2)]");
  assert.equal(bfclCallText("Sure:\n```python\n[f(a=1)]\n```\nDone."), "[f(a=1)]");
  assert.equal(bfclCallText("```\nold()\n```\n```python\nnew(x=1)\n```"), "[new(x=1)]");
  assert.equal(bfclCallText("[f(a=1)]\r\n"), "[f(a=1)]");
  assert.equal(bfclCallText(""), "[]");
});

test("parse errors name what is wrong and where; the parser never throws on model output", () => {
  const error = (text: string) => {
    const r = parseBfclCalls(text);
    assert.equal(r.ok, false, text);
    return (r as { error: string }).error;
  };
  assert.match(error("[f(a=1) g(b=2)]"), /expected "," or "\]".*at character 8/);
  assert.match(error("[f(a='x)]"), /unterminated string literal \(at character 5\)/);
  assert.match(error("[f(a=1), 2]"), /expected a function call/);
  assert.match(error("[f(a=1, 2)]"), /positional argument follows a keyword argument/);
  assert.match(error("[f(a=math.pi)]"), /attribute/);
  assert.match(error("[f(a={1, 2})]"), /sets are not accepted/);
  assert.match(error("[f(a=1/0)]"), /division by zero/);
  assert.match(error("[f(a=-x)]"), /only accepted before a number/);
  assert.match(error("[f(a=2**10**10)]"), /too large/);
  assert.match(error(`[f(a=${"[".repeat(500)}${"]".repeat(500)})]`), /nesting too deep/);
  assert.match(error("[f(a='x' * 10**9)]"), /too long/);
  assert.match(error('[f(a="\\N{DASH}")]'), /\\N\{\.\.\.\} escapes/);
  assert.match(error("I think the answer is 42."), /at character/);
  assert.match(error(`[f(a=${"1+".repeat(200_000)}1)]`), /cannot read the calls/);
  assert.match(error(`[${"a.".repeat(200_000)}f()]`), /cannot read the calls/);
  for (const junk of ["(((", "[f(", "'''", "\\", "f(a=1)]]", "#", "[f(a=1e)]", "[f(a=0x)]", "🙂"]) {
    assert.equal(parseBfclCalls(junk).ok, false, junk);
  }
});

test("values built by * and + are bounded in total, not per operation: no blow-up from a short output", () => {
  const refused = (text: string) => {
    const started = performance.now();
    const r = parseBfclCalls(text);
    assert.equal(r.ok, false, text.slice(0, 80));
    assert.match((r as { error: string }).error, /too long/);
    assert.ok(
      performance.now() - started < 500,
      `took ${Math.round(performance.now() - started)} ms`,
    );
  };
  // Nested repetition shares references: 100 ** 3 items from 31 characters (at 100 ** 5 the
  // grader's metadata and checks ran out of memory and killed the process).
  refused("[f(l=[[[1]*100]*100]*100)]");
  // Each repetition within its own limit, many of them in one list.
  refused(`[f(l=[${Array(30).fill("[1]*99999").join(", ")}])]`);
  // A chain of concatenations copies the growing list at every "+".
  refused(`[f(l=[1]*99999${" + [1]".repeat(3000)})]`);
  refused(`[f(s='x'*99999${" + 'y'".repeat(3000)})]`);
  refused("[f(l=[]*10**9)]");
  // Realistic uses stay accepted.
  const ok = parseBfclCalls("[f(l=[0]*10 + [1, 2], s='ab'*3 + 'c', m=[[0]*3]*3)]");
  assert.ok(ok.ok);
  assert.equal(pyRepr(ok.calls[0]!.args[2]![1]), "[[0, 0, 0], [0, 0, 0], [0, 0, 0]]");
});

test("values keep Python's types: int vs float vs bool, tuple vs list, exact big ints", () => {
  const r = parseBfclCalls(
    "[f(a=1, b=1.0, c=True, d=(1,), e=[1], f=123456789012345678901234567890)]",
  );
  assert.ok(r.ok);
  const args = Object.fromEntries(r.calls[0]!.args);
  assert.deepEqual(args["a"], { t: "int", v: 1n });
  assert.deepEqual(args["b"], { t: "float", v: 1 });
  assert.deepEqual(args["c"], { t: "bool", v: true });
  assert.equal(args["d"]!.t, "tuple");
  assert.equal(args["e"]!.t, "list");
  assert.deepEqual(args["f"], { t: "int", v: 123456789012345678901234567890n });
});
