/**
 * The code grader in the real bwrap sandbox (the default backend): pass, each way of failing, the
 * forgeries a program can attempt, stdio comparison, JavaScript, TypeScript, and the budget.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { SandboxPool } from "../sandbox/pool.js";
import { createSandboxBackend, SandboxConfigSchema } from "../sandbox/registry.js";
import type { EvalOutput, Task } from "../types/index.js";
import { codeGrader, type SandboxSource } from "./code.js";
import { type CodeTestResult, extractProgram } from "./code-task.js";

const backend = await createSandboxBackend(SandboxConfigSchema.parse({}));
const pool = new SandboxPool(backend, { size: 1 });
after(async () => {
  await pool.close();
  await backend.close();
});

/** A source that counts what it hands out, to check that every sandbox goes back. */
function counting(inner: SandboxSource) {
  let out = 0;
  const source: SandboxSource = {
    async acquire(spec) {
      const s = await inner.acquire(spec);
      out++;
      return s;
    },
    async release(s) {
      out--;
      await inner.release(s);
    },
  };
  return { source, outstanding: () => out };
}
const counted = counting(pool);
const grade = codeGrader(counted.source, { testTimeoutS: 2 });

const py = "```python\n";
const end = "\n```";
const ADD_ASSERTS: Task = {
  id: "add",
  data: { tests: { kind: "asserts", asserts: ["assert add(1, 2) == 3", "assert add(2, 2) == 4"] } },
};
const ADD = `${py}def add(a, b):\n    return a + b${end}`;

function tests(out: EvalOutput): CodeTestResult[] {
  return out.metadata?.tests as unknown as CodeTestResult[];
}
function reason(out: EvalOutput): string {
  return String(out.metadata?.reason);
}

test("extractProgram takes the last fenced block (any tag, ~~~ too, unclosed runs to the end), else the text", () => {
  assert.deepEqual(extractProgram("a\n```py\nx = 1\n```\nb\n```\ny = 2\n```\nc"), {
    code: "y = 2",
    fence: "",
  });
  assert.deepEqual(extractProgram("~~~javascript title\nf()\n~~~"), {
    code: "f()",
    fence: "javascript",
  });
  assert.deepEqual(extractProgram("```python\n```\nnot code\n```\ninner\n```"), {
    code: "inner",
    fence: "",
  });
  assert.deepEqual(extractProgram("```python\nprint(1)\nprint(2)"), {
    code: "print(1)\nprint(2)",
    fence: "python",
  });
  // A longer opening fence holds shorter runs of backticks.
  assert.deepEqual(extractProgram("````md\n```\nx\n```\n````"), {
    code: "```\nx\n```",
    fence: "md",
  });
  assert.deepEqual(extractProgram("  ```\n  a\n    b\n  ```"), { code: "a\n  b", fence: "" });
  assert.deepEqual(extractProgram("print(1)\r\n"), { code: "print(1)\r\n" });
});

test("a correct program scores 1; a wrong one 0 with the failing assert, the rest skipped", async () => {
  const right = await grade(ADD_ASSERTS, `Here:\n${ADD}\nDone.`);
  assert.equal(right.reward, 1);
  assert.equal(right.isCorrect, true);
  assert.deepEqual(tests(right), [{ outcome: "pass" }, { outcome: "pass" }]);
  assert.equal(right.metadata?.programFrom, "the last fenced code block");

  const wrong = await grade(ADD_ASSERTS, `${py}def add(a, b):\n    return a * b${end}`);
  assert.equal(wrong.reward, 0);
  assert.equal(wrong.isCorrect, false);
  const [first, second] = tests(wrong);
  assert.equal(first!.outcome, "fail");
  assert.match(first!.reason!, /AssertionError \(at test_0\.py:1: assert add\(1, 2\) == 3\)/);
  assert.deepEqual(second, { outcome: "skipped", reason: "an earlier test did not pass" });
  assert.match(reason(wrong), /^test 1 of 2: fail/);
});

test("stopOnFailure false runs every test", async () => {
  const all = codeGrader(pool, { stopOnFailure: false });
  const out = await all(ADD_ASSERTS, `${py}def add(a, b):\n    return 4${end}`);
  assert.deepEqual(
    tests(out).map((t) => t.outcome),
    ["fail", "pass"],
  );
});

test("broken programs score 0 with the reason: syntax, exception, missing function, no code", async () => {
  const syntax = await grade(ADD_ASSERTS, `${py}def add(a, b)\n    return a + b${end}`);
  assert.equal(syntax.reward, 0);
  assert.match(tests(syntax)[0]!.reason!, /^the program did not load: SyntaxError/);
  assert.equal(tests(syntax).length, 2);

  const raises = await grade(ADD_ASSERTS, `${py}def add(a, b):\n    return a / 0${end}`);
  assert.equal(tests(raises)[0]!.outcome, "error");
  assert.match(
    tests(raises)[0]!.reason!,
    /ZeroDivisionError: division by zero \(at solution\.py:2/,
  );

  const missing = await grade(ADD_ASSERTS, `${py}def plus(a, b):\n    return a + b${end}`);
  assert.match(tests(missing)[0]!.reason!, /NameError: name 'add' is not defined/);

  const prose = await grade(ADD_ASSERTS, "I would add the two numbers together.");
  assert.equal(prose.reward, 0);
  assert.equal(prose.metadata?.programFrom, "the whole response (no fenced code block)");
  assert.match(tests(prose)[0]!.reason!, /SyntaxError/);

  const empty = await grade(ADD_ASSERTS, "```python\n\n```");
  assert.equal(empty.reward, 0);
  assert.match(reason(empty), /^no program: the last fenced code block is empty/);
  assert.equal(counted.outstanding(), 0);
});

test("an infinite loop times out, in the program's load and in a test", async () => {
  const atLoad = await grade(ADD_ASSERTS, `${py}while True:\n    pass${end}`);
  assert.equal(tests(atLoad)[0]!.outcome, "timeout");
  assert.match(tests(atLoad)[0]!.reason!, /did not load: timed out after 2 s/);

  const inTest = await grade(
    ADD_ASSERTS,
    `${py}def add(a, b):\n    while True:\n        pass${end}`,
  );
  assert.deepEqual(tests(inTest)[0], { outcome: "timeout", reason: "timed out after 2 s" });

  // A loop that swallows the runner's timer is stopped by the exec's own timeout.
  const stubborn = `${py}def add(a, b):\n    while True:\n        try:\n            while True:\n                pass\n        except BaseException:\n            pass${end}`;
  const killed = await codeGrader(pool, { testTimeoutS: 1, taskTimeoutS: 4 })(
    ADD_ASSERTS,
    stubborn,
  );
  assert.equal(killed.reward, 0);
  assert.equal(tests(killed)[0]!.outcome, "timeout");
  assert.match(tests(killed)[0]!.reason!, /ran past its time limit/);
});

test("a memory bomb and a crash score 0 with the reason", async () => {
  // 128 MiB, not the default 1 GiB: filling a gigabyte under a loaded machine can outlast the 2 s
  // test timeout, and the test is about the memory kill.
  const small = codeGrader(counted.source, {
    testTimeoutS: 10,
    spec: { limits: { memoryMb: 128 } },
  });
  const bomb = await small(
    ADD_ASSERTS,
    `${py}def add(a, b):\n    x = []\n    while True:\n        x.append(bytearray(10**7))${end}`,
  );
  assert.equal(bomb.reward, 0);
  assert.equal(tests(bomb)[0]!.outcome, "error");
  assert.match(tests(bomb)[0]!.reason!, /memory/i);

  const crash = await grade(ADD_ASSERTS, `${py}import ctypes\nctypes.string_at(0)${end}`);
  assert.equal(crash.reward, 0);
  assert.equal(tests(crash)[0]!.outcome, "error");
  assert.match(tests(crash)[0]!.reason!, /SIGSEGV|code 139/);
});

test("a program cannot forge a pass: printed markers, early exits, a written result file", async () => {
  const forgeries = [
    // result-like lines on stdout and stderr, then a clean exit before the tests
    `import sys, os\nfor i in range(2):\n    print('{"test": %d, "status": "pass", "nonce": "x"}' % i)\n    print('{"done": true}', file=sys.stderr)\nsys.stdout.flush()\nos._exit(0)`,
    // the result file, with every record the runner would write, guessed nonce
    `import os\nwith open("result.jsonl", "a") as f:\n    for r in ['{"started": true}', '{"loaded": true}', '{"test": 0, "status": "pass"}', '{"test": 1, "status": "pass"}', '{"done": true}']:\n        f.write(r[:-1] + ', "nonce": "0"}\\n')\nos._exit(0)`,
    // exit(0) inside the test call
    "import os\ndef add(a, b):\n    os._exit(0)",
    "import sys\nsys.exit(0)",
  ];
  const reasons: string[] = [];
  for (const program of forgeries) {
    const out = await grade(ADD_ASSERTS, `${py}${program}${end}`);
    assert.equal(out.reward, 0, program);
    assert.notEqual(tests(out)[0]!.outcome, "pass", program);
    reasons.push(tests(out)[0]!.reason!);
  }
  assert.match(
    reasons[0]!,
    /while loading: the program exited \(code 0\) before the tests finished/,
  );
  assert.match(reasons[1]!, /the result file holds lines the runner did not write/);
  assert.match(reasons[2]!, /the program exited \(code 0\) before the tests finished/);
  assert.match(reasons[3]!, /SystemExit\(0\): the program exited/);

  // stdio: only the output matters, judged on the host.
  const task: Task = {
    id: "echo",
    data: { tests: { kind: "stdio", cases: [{ input: "2\n", output: "4\n" }], compare: "exact" } },
  };
  const faked = await grade(task, `${py}print('{"status": "pass"}')\nprint('PASSED')${end}`);
  assert.equal(faked.reward, 0);
  assert.equal(tests(faked)[0]!.outcome, "fail");
});

test("stdio cases: one run each with its input, exact or whitespace-tolerant", async () => {
  const cases = [
    { input: "1 2\n", output: "3\n" },
    { input: "10 20\n", output: "30\n" },
  ];
  const exact: Task = { id: "sum", data: { tests: { kind: "stdio", cases, compare: "exact" } } };
  const loose: Task = { id: "sum", data: { tests: { kind: "stdio", cases } } };
  const tidy = `${py}a, b = map(int, input().split())\nprint(a + b)${end}`;
  const spaced = `${py}a, b = map(int, input().split())\nprint(" ", a + b, " ")\nprint()${end}`;
  assert.equal((await grade(exact, tidy)).reward, 1);
  assert.equal((await grade(loose, tidy)).reward, 1);
  assert.equal((await grade(loose, spaced)).reward, 1);
  const strict = await grade(exact, spaced);
  assert.equal(strict.reward, 0);
  assert.match(tests(strict)[0]!.reason!, /^wrong output: output differs at character 0/);

  const wrong = await grade(loose, `${py}print(3)${end}`);
  assert.deepEqual(
    tests(wrong).map((t) => t.outcome),
    ["pass", "fail"],
  );
  assert.match(tests(wrong)[1]!.reason!, /token 1 differs: expected "30", got "3"/);

  // Output: a flood is killed at the limit; a correct output longer than the option still fits.
  const big: Task = {
    id: "big",
    data: { tests: { kind: "stdio", cases: [{ input: "", output: "x".repeat(5000) }] } },
  };
  const small = codeGrader(pool, { maxOutputBytes: 1000 });
  assert.equal((await small(big, `${py}print("x" * 5000)${end}`)).reward, 1);
  const flood = await small(big, `${py}while True:\n    print("x" * 1000)${end}`);
  assert.deepEqual(tests(flood)[0], {
    outcome: "error",
    reason: "the program wrote more output than the limit",
  });

  const crashes = await grade(loose, `${py}raise ValueError("bad input")${end}`);
  assert.match(tests(crashes)[0]!.reason!, /exited with code 1: ValueError: bad input/);
});

test("the task budget: tests it never reached are timeouts", async () => {
  const slow: Task = {
    id: "slow",
    data: {
      tests: {
        kind: "stdio",
        cases: [1, 2, 3].map((n) => ({ input: `${n}\n`, output: `${n}\n` })),
      },
    },
  };
  const grader = codeGrader(pool, { testTimeoutS: 1.5, taskTimeoutS: 2, stopOnFailure: false });
  const out = await grader(slow, `${py}import time\ntime.sleep(5)${end}`);
  const outcomes = tests(out);
  assert.equal(outcomes[0]!.outcome, "timeout");
  assert.deepEqual(outcomes[2], {
    outcome: "timeout",
    reason: "the task's time budget ran out before this test",
  });
});

test("call-based tests: a Solution method, Python's == on the returned value", async () => {
  const task: Task = {
    id: "two-sum",
    data: {
      tests: {
        kind: "call",
        fnName: "twoSum",
        cases: [
          { input: "[2, 7, 11, 15]\n9", output: "[0, 1]" },
          { input: "[3, 3]\n6", output: "[0, 1]" },
        ],
      },
    },
  };
  const solution = `${py}class Solution:\n    def twoSum(self, nums: List[int], target: int) -> List[int]:\n        seen = {}\n        for i, n in enumerate(nums):\n            if target - n in seen:\n                return (seen[target - n], i)\n            seen[n] = i${end}`;
  // List comes from the prelude, as LiveCodeBench's import block provides it.
  const withPrelude: Task = { ...task, data: { ...task.data, prelude: "from typing import *" } };
  const out = await grade(withPrelude, solution);
  assert.equal(out.reward, 1, reason(out));
  const noImport = await grade(task, solution);
  assert.match(tests(noImport)[0]!.reason!, /NameError: name 'List' is not defined/);

  const plain: Task = {
    id: "flags",
    data: { tests: { kind: "call", fnName: "f", cases: [{ input: "1", output: "[true, 2.0]" }] } },
  };
  assert.equal((await grade(plain, `${py}def f(x):\n    return [1, 2]${end}`)).reward, 1);
  const nested = await grade(plain, `${py}def f(x):\n    return [(1,), 2]${end}`);
  assert.match(tests(nested)[0]!.reason!, /returned a tuple, which no JSON output equals/);
  // Every call runs (the runner cannot tell a wrong value): each gets its own verdict.
  const two: Task = {
    id: "two",
    data: {
      tests: {
        kind: "call",
        fnName: "g",
        cases: [
          { input: "1", output: "2" },
          { input: "2", output: "4" },
        ],
      },
    },
  };
  const half = await grade(two, `${py}def g(x):\n    return 4${end}`);
  assert.deepEqual(
    tests(half).map((t) => t.outcome),
    ["fail", "pass"],
  );
  const wrong = await grade(plain, `${py}def f(x):\n    return [1, 3]${end}`);
  assert.match(tests(wrong)[0]!.reason!, /wrong answer: expected \[true, 2\.0\], got \[1, 3\]/);
});

test("JavaScript: check(candidate), asserts, stdio, call; exits and loops handled", async () => {
  const js = "```javascript\n";
  const check: Task = {
    id: "js-check",
    data: {
      language: "javascript",
      tests: {
        kind: "check",
        entryPoint: "add",
        test: "function check(candidate) {\n  assert.strictEqual(candidate(1, 2), 3);\n  assert.deepStrictEqual([candidate(0, 0)], [0]);\n}",
      },
    },
  };
  assert.equal((await grade(check, `${js}const add = (a, b) => a + b;${end}`)).reward, 1);
  const wrong = await grade(check, `${js}function add(a, b) { return a - b; }${end}`);
  assert.equal(tests(wrong)[0]!.outcome, "fail");
  assert.match(tests(wrong)[0]!.reason!, /AssertionError/);
  const loop = await grade(check, `${js}function add(a, b) { for (;;) {} }${end}`);
  assert.deepEqual(tests(loop)[0], { outcome: "timeout", reason: "timed out after 2 s" });
  const exits = await grade(check, `${js}process.exit(0)${end}`);
  assert.match(tests(exits)[0]!.reason!, /exited \(code 0\) before the tests finished/);
  const esm = await grade(check, `${js}export function add(a, b) { return a + b; }${end}`);
  assert.match(tests(esm)[0]!.reason!, /did not load: SyntaxError/);

  const asserts: Task = {
    id: "js-asserts",
    data: {
      language: "javascript",
      tests: { kind: "asserts", asserts: ["assert.equal(sq(3), 9)", "assert.equal(sq(-2), 4)"] },
    },
  };
  assert.equal((await grade(asserts, `${js}function sq(x) { return x * x; }${end}`)).reward, 1);

  const stdio: Task = {
    id: "js-stdio",
    data: {
      language: "javascript",
      tests: { kind: "stdio", cases: [{ input: "4 5\n", output: "9\n" }], compare: "exact" },
    },
  };
  const reader = `${js}const [a, b] = require("fs").readFileSync(0, "utf8").trim().split(" ").map(Number);\nconsole.log(a + b);${end}`;
  assert.equal((await grade(stdio, reader)).reward, 1);

  const call: Task = {
    id: "js-call",
    data: {
      language: "javascript",
      tests: { kind: "call", fnName: "maxOf", cases: [{ input: "[1, 5, 2]", output: "5" }] },
    },
  };
  const cls = `${js}class Solution { maxOf(xs) { return Math.max(...xs); } }${end}`;
  assert.equal((await grade(call, cls)).reward, 1);
  const fn = `${js}const maxOf = (xs) => Math.max(...xs);${end}`;
  assert.equal((await grade(call, fn)).reward, 1);
  const throwing = `${js}class Solution { constructor() { throw new RangeError("no"); } }${end}`;
  assert.match(tests(await grade(call, throwing))[0]!.reason!, /did not load: RangeError: no/);
});

test("TypeScript (interface, enum, generic, annotations) passes stdio, check, asserts and call tests", async () => {
  const ts = "```ts\n";
  const lib = [
    "interface Pair<T> { left: T; right: T }",
    "enum Op { Add = 1, Mul }",
    "namespace Util { export const sq = (x: number): number => x * x; }",
    "function apply<T extends number>(op: Op, p: Pair<T>): number {",
    "  return op === Op.Add ? p.left + p.right : p.left * p.right;",
    "}",
    "const add = (a: number, b: number): number => apply(Op.Add, { left: a, right: b });",
  ].join("\n");
  const check: Task = {
    id: "ts-check",
    data: {
      language: "typescript",
      tests: {
        kind: "check",
        entryPoint: "add",
        test: "function check(candidate: (a: number, b: number) => number): void {\n  const got: number = candidate(1, 2);\n  assert.strictEqual(got, 3);\n}",
      },
    },
  };
  const right = await grade(check, `${ts}${lib}${end}`);
  assert.equal(right.reward, 1, reason(right));
  assert.equal(right.metadata?.language, "typescript");

  const asserts: Task = {
    id: "ts-asserts",
    data: {
      language: "typescript",
      tests: {
        kind: "asserts",
        setup: "const pair: Pair<number> = { left: 3, right: 4 };",
        asserts: [
          "assert.equal(apply(Op.Mul, pair), 12)",
          "assert.equal(Op[2] as string, 'Mul')",
          "assert.equal(Util.sq(pair.left), 9)",
        ],
      },
    },
  };
  assert.equal((await grade(asserts, `${ts}${lib}${end}`)).reward, 1);

  const stdio: Task = {
    id: "ts-stdio",
    data: {
      language: "typescript",
      tests: { kind: "stdio", cases: [{ input: "4 5\n", output: "9\n" }], compare: "exact" },
    },
  };
  const reader = `${ts}${lib}\nconst [a, b]: number[] = require("fs").readFileSync(0, "utf8").trim().split(" ").map(Number);\nconsole.log(add(a!, b!));${end}`;
  assert.equal((await grade(stdio, reader)).reward, 1);

  const call: Task = {
    id: "ts-call",
    data: {
      language: "typescript",
      tests: { kind: "call", fnName: "maxOf", cases: [{ input: "[1, 5, 2]", output: "5" }] },
    },
  };
  const cls = `${ts}class Solution {\n  private seen: Map<number, boolean> = new Map();\n  maxOf<T extends number>(xs: T[]): T { return xs.reduce((m, x) => (x > m ? x : m)); }\n}${end}`;
  assert.equal((await grade(call, cls)).reward, 1);

  // A wrong answer fails as in JavaScript; a runtime error names the transpiled solution.js.
  const wrong = await grade(
    call,
    `${ts}const maxOf = (xs: number[]): number => Math.min(...xs);${end}`,
  );
  assert.match(tests(wrong)[0]!.reason!, /wrong answer: expected 5, got 1/);
  const minus = await grade(
    check,
    `${ts}function add(a: number, b: number): number { return a - b; }${end}`,
  );
  assert.equal(minus.reward, 0);
  assert.equal(tests(minus)[0]!.outcome, "fail");
  const throws = await grade(
    check,
    `${ts}function add(a: number): number {\n  throw new RangeError("no");\n}${end}`,
  );
  assert.match(tests(throws)[0]!.reason!, /RangeError: no \(at solution\.js:2\)/);
  // Scripts, as JavaScript: an export is a load error.
  const esm = await grade(
    check,
    `${ts}export function add(a: number, b: number) { return a + b; }${end}`,
  );
  assert.match(tests(esm)[0]!.reason!, /did not load: SyntaxError: Unexpected token 'export'/);
  assert.equal(counted.outstanding(), 0);
});

test("TypeScript: a syntax error is the program's load error (esbuild's message, no sandbox); a type error still runs", async () => {
  const task: Task = {
    id: "ts-twice",
    data: {
      language: "typescript",
      tests: {
        kind: "asserts",
        asserts: ["assert.equal(twice(4), 8)", "assert.equal(twice(0), 0)"],
      },
    },
  };
  // Transpiling happens on the host before a sandbox is acquired: a Node that is not there does
  // not matter to a program that does not parse.
  const noNode = codeGrader(pool, { node: ["node-none"] });
  const syntax = await noNode(
    task,
    "```ts\nfunction twice(x: number): number {\n  return 2 *;\n}\n```",
  );
  assert.equal(syntax.reward, 0);
  assert.deepEqual(tests(syntax), [
    {
      outcome: "error",
      reason: 'the program did not load: esbuild: Unexpected ";" (at solution.ts:2:13)',
    },
    {
      outcome: "error",
      reason: 'the program did not load: esbuild: Unexpected ";" (at solution.ts:2:13)',
    },
  ]);
  // The prelude is part of solution.ts: lines count from its first.
  const withPrelude: Task = { ...task, data: { ...task.data, prelude: "// prelude" } };
  const shifted = await noNode(withPrelude, "```ts\nconst = 1;\n```");
  assert.match(
    tests(shifted)[0]!.reason!,
    /esbuild: Expected identifier but found "=" \(at solution\.ts:2:7\)/,
  );

  // No type checking: a string in a number slot runs, and the string is what the program has.
  const mistyped = await grade(
    {
      ...task,
      data: {
        ...task.data,
        tests: {
          kind: "asserts",
          asserts: ["assert.equal(twice(4), 8)", "assert.equal(label, 'a')"],
        },
      },
    },
    '```ts\nconst label: number = "a";\nfunction twice(x: number): number { return 2 * x; }\n```',
  );
  assert.equal(mistyped.reward, 1, reason(mistyped));

  // A task whose own TypeScript does not parse is the task's error, not a 0.
  const broken: Task = {
    id: "ts-broken",
    data: {
      language: "typescript",
      tests: { kind: "asserts", asserts: ["assert.equal(twice(4), 8)", "let = ;"] },
    },
  };
  await assert.rejects(
    grade(broken, "```ts\nconst twice = (x: number) => 2 * x;\n```"),
    /^Error: task ts-broken: data\.tests\.asserts\[1\] is not valid TypeScript: Unexpected ";" \(at data\.tests\.asserts\[1\]:1:7\)$/,
  );
});

test("ground truth and options the grader cannot use are errors naming them", async () => {
  await assert.rejects(async () => grade({ id: "t9", data: {} }, ADD), /task t9: data\.tests/);
  await assert.rejects(
    grade({ id: "t9", data: { tests: { kind: "check", test: "x", entryPoint: "a b" } } }, ADD),
    /task t9: data\.tests\.entryPoint must be an identifier/,
  );
  await assert.rejects(
    grade({ id: "t9", data: { language: "rust", tests: ADD_ASSERTS.data.tests } }, ADD),
    /task t9: data\.language/,
  );
  const call = (input: string, output: string) => ({
    id: "t9",
    data: {
      tests: {
        kind: "call",
        fnName: "f",
        cases: [
          { input: "1", output: "1" },
          { input, output },
        ],
      },
    },
  });
  await assert.rejects(
    grade(call("1\n[2,", "1"), ADD),
    /task t9: data\.tests\.cases\[1\] input line 2 is not JSON/,
  );
  await assert.rejects(
    grade(call("1", "x"), ADD),
    /task t9: data\.tests\.cases\[1\] output is not JSON/,
  );
  assert.throws(() => codeGrader(pool, { timeout: 3 } as never), /code grader option/);
  assert.throws(() => codeGrader(pool, { testTimeoutS: 0 }), /testTimeoutS/);
  const noPython = codeGrader(pool, { python: ["python-none"] });
  await assert.rejects(
    noPython(ADD_ASSERTS, ADD),
    /cannot run python in the sandbox: "python-none"/,
  );
});
