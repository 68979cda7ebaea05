/**
 * LiveCodeBench code generation (livecodebench/code_generation_lite), graded by `code` the way
 * lcb_runner grades it (LiveCodeBench/LiveCodeBench, lcb_runner/benchmarks/code_generation.py and
 * lcb_runner/evaluation/testing_util.py):
 * - A row's tests are its public_test_cases and then its private_test_cases, each a list of
 *   {input, output, testtype}. public_test_cases is a JSON string; private_test_cases is one too,
 *   or — when json.loads fails on it — base64 of zlib-compressed pickled JSON text:
 *   `json.loads(pickle.loads(zlib.decompress(base64.b64decode(s))))`.
 * - A row whose metadata (a JSON string) names a `func_name` is call-based: the program's
 *   `Solution().<func_name>` (or a top-level function when it defines no class Solution) is called
 *   with each input's lines as JSON arguments, and must return the output (JSON) by Python's `==`,
 *   a top-level tuple counting as a list. Otherwise every test is stdin/stdout, compared by lcb's
 *   rule (`lines` in rewards/code-compare.ts).
 * - lcb runs every program after its import block (`import_string`), so models may use `List`,
 *   `deque`, `sqrt`... unimported; the block is the tasks' prelude here.
 *
 * Splits: the Hub repo holds one JSONL file per release window — test.jsonl (release_v1, May 2023 -
 * Mar 2024, 400 problems), test2.jsonl ... test6.jsonl (each a later window); lcb's release_vN is
 * v1 + ... + vN. Our splits are the windows, v1 ... v6; the default is v6, the newest.
 *
 * The pickle reader decodes exactly what `pickle.dumps(str)` writes at protocols 2-5 (PROTO,
 * FRAME, SHORT_BINUNICODE / BINUNICODE / BINUNICODE8, MEMOIZE / BINPUT / LONG_BINPUT, STOP) and
 * refuses every other opcode by name: nothing else is ever executed or built.
 */
import { inflateSync } from "node:zlib";
import { parsePyJson } from "../rewards/code-compare.js";
import type { Task } from "../types/index.js";
import { CODE_BLOCK_INSTRUCTION } from "./code.js";
import type { BenchmarkEntry } from "./entry.js";
import { BenchmarkRowError, type RowContext, requireString } from "./fields.js";

/** lcb_runner/evaluation/testing_util.py `import_string`, verbatim. */
export const LCB_IMPORTS =
  "from string import *\nfrom re import *\nfrom datetime import *\nfrom collections import *\nfrom heapq import *\nfrom bisect import *\nfrom copy import *\nfrom math import *\nfrom random import *\nfrom statistics import *\nfrom itertools import *\nfrom functools import *\nfrom operator import *\nfrom io import *\nfrom sys import *\nfrom json import *\nfrom builtins import *\nfrom typing import *\nimport string\nimport re\nimport datetime\nimport collections\nimport heapq\nimport bisect\nimport copy\nimport math\nimport random\nimport statistics\nimport itertools\nimport functools\nimport operator\nimport io\nimport sys\nimport json\nsys.setrecursionlimit(50000)\n";

export class PickleError extends Error {
  override name = "PickleError";
}

const OPCODE_NAMES: Record<number, string> = {
  40: "MARK",
  41: "EMPTY_TUPLE",
  75: "BININT1",
  74: "BININT",
  85: "SHORT_BINSTRING",
  86: "UNICODE (protocol 0)",
  93: "EMPTY_LIST",
  99: "GLOBAL",
  125: "EMPTY_DICT",
  129: "NEWOBJ",
  133: "TUPLE1",
  147: "STACK_GLOBAL",
  82: "REDUCE",
};

/** The str a `pickle.dumps(str)` holds (protocols 2-5); any other pickle is refused. */
export function unpickleString(bytes: Uint8Array): string {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const decoder = new TextDecoder("utf-8");
  let at = 0;
  let value: string | undefined;
  const need = (n: number) => {
    if (at + n > bytes.length) throw new PickleError(`pickle truncated at byte ${at}`);
  };
  const text = (length: number) => {
    need(length);
    if (value !== undefined) throw new PickleError(`pickle holds more than one value (byte ${at})`);
    value = decoder.decode(bytes.subarray(at, at + length));
    at += length;
  };
  const u64 = () => {
    need(8);
    const n = view.getBigUint64(at, true);
    at += 8;
    if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw new PickleError("pickle length too large");
    return Number(n);
  };
  for (;;) {
    need(1);
    const op = bytes[at++]!;
    switch (op) {
      case 0x80: // PROTO
        need(1);
        if (bytes[at]! < 2) throw new PickleError(`pickle protocol ${bytes[at]} is not supported`);
        at++;
        break;
      case 0x95: // FRAME: its length only; the opcodes follow in line
        u64();
        break;
      case 0x8c: // SHORT_BINUNICODE
        need(1);
        text(bytes[at++]!);
        break;
      case 0x58: // BINUNICODE
        need(4);
        at += 4;
        text(view.getUint32(at - 4, true));
        break;
      case 0x8d: // BINUNICODE8
        text(u64());
        break;
      case 0x94: // MEMOIZE
        break;
      case 0x71: // BINPUT
        need(1);
        at++;
        break;
      case 0x72: // LONG_BINPUT
        need(4);
        at += 4;
        break;
      case 0x2e: // STOP
        if (value === undefined) throw new PickleError("pickle holds no string");
        if (at !== bytes.length) throw new PickleError(`pickle has bytes after STOP (byte ${at})`);
        return value;
      default: {
        const name = OPCODE_NAMES[op] ? ` (${OPCODE_NAMES[op]})` : "";
        throw new PickleError(
          `pickle opcode 0x${op.toString(16).padStart(2, "0")}${name} at byte ${at - 1} is not one a pickled str uses; only pickled strings are read`,
        );
      }
    }
  }
}

export interface LcbTest {
  input: string;
  output: string;
  testtype: "stdin" | "functional";
}

function parseTests(text: string, ctx: RowContext, field: string): LcbTest[] {
  let list: unknown;
  try {
    list = JSON.parse(text);
  } catch (error) {
    throw new BenchmarkRowError(ctx, field, `is not JSON (${(error as Error).message})`);
  }
  if (!Array.isArray(list)) throw new BenchmarkRowError(ctx, field, "must be a JSON list of tests");
  return list.map((test, i) => {
    const t = test as Partial<LcbTest> | null;
    if (
      t === null ||
      typeof t !== "object" ||
      typeof t.input !== "string" ||
      typeof t.output !== "string" ||
      (t.testtype !== "stdin" && t.testtype !== "functional")
    ) {
      throw new BenchmarkRowError(
        ctx,
        `${field}[${i}]`,
        'must be {input: string, output: string, testtype: "stdin" | "functional"}',
      );
    }
    return { input: t.input, output: t.output, testtype: t.testtype };
  });
}

/** private_test_cases as lcb_runner reads it: JSON text, else base64(zlib(pickle(JSON text))). */
export function decodePrivateTests(text: string, ctx: RowContext): LcbTest[] {
  const field = "private_test_cases";
  try {
    JSON.parse(text);
    return parseTests(text, ctx, field);
  } catch (error) {
    if (error instanceof BenchmarkRowError) throw error;
  }
  let json: string;
  try {
    json = unpickleString(inflateSync(Buffer.from(text, "base64")));
  } catch (error) {
    throw new BenchmarkRowError(
      ctx,
      field,
      `is neither JSON nor base64 of zlib-compressed pickled JSON (${(error as Error).message})`,
    );
  }
  return parseTests(json, ctx, field);
}

function funcName(row: Record<string, unknown>, ctx: RowContext): string | undefined {
  const text = requireString(row, "metadata", ctx);
  let metadata: unknown;
  try {
    metadata = JSON.parse(text);
  } catch {
    throw new BenchmarkRowError(ctx, "metadata", "is not a JSON object");
  }
  if (metadata === null || typeof metadata !== "object" || Array.isArray(metadata)) {
    throw new BenchmarkRowError(ctx, "metadata", "is not a JSON object");
  }
  const name = (metadata as { func_name?: unknown }).func_name;
  if (name === undefined || name === null) return undefined;
  if (typeof name !== "string" || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    throw new BenchmarkRowError(ctx, "metadata.func_name", "must be a Python identifier");
  }
  return name;
}

/** The grader's tests for a row: call-based when metadata names a function, else stdin/stdout. */
function codeTests(tests: LcbTest[], fnName: string | undefined, ctx: RowContext) {
  const cases = tests.map(({ input, output }) => ({ input, output }));
  const wanted = fnName === undefined ? "stdin" : "functional";
  const odd = tests.findIndex((t) => t.testtype !== wanted);
  if (odd >= 0) {
    throw new BenchmarkRowError(
      ctx,
      "public_test_cases/private_test_cases",
      `test ${odd} is "${tests[odd]!.testtype}" but metadata ${fnName ? `names func_name ${fnName}` : "names no func_name"}`,
    );
  }
  if (fnName === undefined) return { kind: "stdio", compare: "lines", cases };
  for (const [i, c] of cases.entries()) {
    try {
      for (const line of c.input.split("\n")) parsePyJson(line);
      parsePyJson(c.output);
    } catch (error) {
      throw new BenchmarkRowError(ctx, `test ${i}`, `is not JSON (${(error as Error).message})`);
    }
  }
  return { kind: "call", fnName, cases };
}

const WINDOWS = ["v1", "v2", "v3", "v4", "v5", "v6"];

export const livecodebench: BenchmarkEntry = {
  name: "livecodebench",
  description:
    "LiveCodeBench code generation (lite): contest problems from LeetCode, AtCoder and Codeforces by release window (v1-v6), stdin/stdout or call-based tests.",
  source: {
    hfDataset: "livecodebench/code_generation_lite",
    splits: WINDOWS,
    defaultSplit: "v6",
    files: Object.fromEntries(
      WINDOWS.map((w, i) => [w, i === 0 ? "test.jsonl" : `test${i + 1}.jsonl`]),
    ),
  },
  toTask(row, index, split) {
    const ctx = { benchmark: "livecodebench", split, index };
    const questionId = requireString(row, "question_id", ctx);
    const question = requireString(row, "question_content", ctx);
    const starter = row.starter_code ?? "";
    if (typeof starter !== "string") {
      throw new BenchmarkRowError(ctx, "starter_code", "must be a string");
    }
    const publicTests = parseTests(
      requireString(row, "public_test_cases", ctx),
      ctx,
      "public_test_cases",
    );
    const privateTests = decodePrivateTests(requireString(row, "private_test_cases", ctx), ctx);
    const all = [...publicTests, ...privateTests];
    if (all.length === 0) throw new BenchmarkRowError(ctx, "private_test_cases", "holds no tests");
    const data: Record<string, unknown> = {
      question,
      language: "python",
      prelude: LCB_IMPORTS,
      tests: codeTests(all, funcName(row, ctx), ctx),
      starterCode: starter,
      publicTests: publicTests.length,
    };
    for (const [from, to] of [
      ["question_title", "title"],
      ["platform", "platform"],
      ["difficulty", "difficulty"],
      ["contest_id", "contestId"],
      ["contest_date", "contestDate"],
    ] as const) {
      if (typeof row[from] === "string") data[to] = row[from];
    }
    return { id: `livecodebench/${questionId}`, dataSource: "livecodebench", index, data };
  },
  grader: "code",
  // lcb_runner/prompts/code_generation.py: SYSTEM_MESSAGE_GENERIC and the generic question template.
  systemPrompt:
    "You are an expert Python programmer. You will be given a question (problem specification) and " +
    "will generate a correct Python program that matches the specification and passes all tests. " +
    CODE_BLOCK_INSTRUCTION,
  userPrompt(task: Task) {
    const question = task.data.question;
    const starter = task.data.starterCode;
    if (typeof question !== "string" || typeof starter !== "string") {
      throw new Error(
        `task ${task.id}: data.question and data.starterCode are needed for the prompt`,
      );
    }
    const format = starter
      ? "### Format: You will use the following starter code to write the solution to the problem and enclose your code within delimiters.\n" +
        `\`\`\`python\n${starter}\n\`\`\`\n\n`
      : "### Format: Read the inputs from stdin solve the problem and write the answer to stdout (do not directly test on the sample inputs). Enclose your code within delimiters as follows. Ensure that when the python program runs, it reads the inputs, runs the algorithm and writes output to STDOUT.\n" +
        "```python\n# YOUR CODE HERE\n```\n\n";
    return `### Question:\n${question}\n\n${format}### Answer: (use the provided format with backticks)\n\n`;
  },
  defaultAgent: "single-turn",
};
