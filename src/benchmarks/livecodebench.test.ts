/**
 * LiveCodeBench rows (fixtures/data/livecodebench/v6.jsonl: problems written in the dataset's row
 * format, private tests encoded as the real dataset does) through the catalog and the code grader.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { deflateSync } from "node:zlib";
import { codeGrader } from "../rewards/code.js";
import { readCodeTask } from "../rewards/code-task.js";
import { SandboxPool } from "../sandbox/pool.js";
import { createSandboxBackend, SandboxConfigSchema } from "../sandbox/registry.js";
import type { Task } from "../types/index.js";
import { benchmarkMessages, getBenchmark } from "./catalog.js";
import { decodePrivateTests, LCB_IMPORTS, PickleError, unpickleString } from "./livecodebench.js";
import { loadBenchmark } from "./load.js";

const dataDir = fileURLToPath(new URL("./fixtures/data/", import.meta.url));
const backend = await createSandboxBackend(SandboxConfigSchema.parse({}));
const pool = new SandboxPool(backend, { size: 1 });
const grade = codeGrader(pool);
after(async () => {
  await pool.close();
  await backend.close();
});

const b64 = (s: string) => new Uint8Array(Buffer.from(s, "base64"));

test("unpickleString reads what pickle.dumps(str) writes at protocols 2-5", () => {
  // Vectors from CPython 3.11: base64.b64encode(pickle.dumps(s, protocol=p)).
  assert.equal(unpickleString(b64("gAJYCgAAAGjDqWxsbyDinJNxAC4=")), "héllo ✓"); // 2: BINUNICODE, BINPUT
  assert.equal(unpickleString(b64("gANYAAAAAHEALg==")), ""); // 3
  assert.equal(unpickleString(b64("gASVDgAAAAAAAACMCmjDqWxsbyDinJOULg==")), "héllo ✓"); // 4: FRAME, SHORT_BINUNICODE, MEMOIZE
  assert.equal(unpickleString(b64("gAWVBAAAAAAAAACMAJQu")), ""); // 5
  const long = Buffer.concat([
    Buffer.from([0x80, 0x04, 0x8d]),
    Buffer.from([3, 0, 0, 0, 0, 0, 0, 0]),
    Buffer.from("abc"),
    Buffer.from([0x94, 0x2e]),
  ]);
  assert.equal(unpickleString(long), "abc"); // BINUNICODE8
});

test("unpickleString refuses every other pickle by its opcode", () => {
  // pickle.dumps(["a"], protocol=4): a list is not a string
  assert.throws(
    () => unpickleString(b64("gASVCAAAAAAAAABdlIwBYZRhLg==")),
    /pickle opcode 0x5d \(EMPTY_LIST\) at byte 11 is not one a pickled str uses/,
  );
  // protocol 0 ("Va\np0\n.")
  assert.throws(
    () => unpickleString(b64("VmEKcDAKLg==")),
    /opcode 0x56 \(UNICODE \(protocol 0\)\)/,
  );
  // os.system via GLOBAL/REDUCE never runs: refused at the first opcode
  assert.throws(() => unpickleString(Buffer.from("cos\nsystem\n(S'true'\ntR.")), /0x63 \(GLOBAL\)/);
  assert.throws(() => unpickleString(b64("gASVDgAAAAAAAACMCmjDqWxs")), /pickle truncated/);
  assert.throws(() => unpickleString(Buffer.from([0x80, 0x04, 0x2e])), /holds no string/);
  assert.throws(
    () => unpickleString(Buffer.from([0x80, 4, 0x8c, 1, 0x61, 0x8c, 1, 0x62, 0x2e])),
    /more than one value/,
  );
  assert.throws(() => unpickleString(Buffer.from([0x80, 4, 0x8c, 1, 0x61, 0x2e, 0])), /after STOP/);
  assert.throws(() => unpickleString(Buffer.from([0x80, 4, 0x8c, 1, 0x61, 0x2e, 0])), PickleError);
});

test("private tests: JSON text, or base64 of zlib of a pickled JSON string", () => {
  const ctx = { benchmark: "livecodebench", split: "v6", index: 0 };
  const tests = [{ input: "1\n", output: "1\n", testtype: "stdin" }];
  assert.deepEqual(decodePrivateTests(JSON.stringify(tests), ctx), tests);
  const text = JSON.stringify(tests);
  const pickled = Buffer.concat([
    Buffer.from([0x80, 0x04, 0x95]),
    Buffer.from(new BigUint64Array([BigInt(text.length + 6)]).buffer),
    Buffer.from([0x58]),
    Buffer.from(new Uint32Array([text.length]).buffer),
    Buffer.from(text),
    Buffer.from([0x94, 0x2e]),
  ]);
  assert.deepEqual(decodePrivateTests(deflateSync(pickled).toString("base64"), ctx), tests);
  assert.throws(
    () => decodePrivateTests("not base64 of anything", ctx),
    /field "private_test_cases" is neither JSON nor base64 of zlib-compressed pickled JSON/,
  );
  assert.throws(
    () => decodePrivateTests('[{"input": "1"}]', ctx),
    /field "private_test_cases\[0\]" must be \{input: string, output: string, testtype/,
  );
});

async function fixtureTasks(): Promise<Task[]> {
  return loadBenchmark("livecodebench", { split: "v6", dataDir });
}

test("the fixture rows load as stdin (lines) and call-based tasks, private tests decoded", async () => {
  const entry = getBenchmark("livecodebench");
  assert.equal(entry.source.defaultSplit, "v6");
  assert.equal(entry.source.files?.v1, "test.jsonl");
  assert.equal(entry.source.files?.v6, "test6.jsonl");
  const tasks = await fixtureTasks();
  assert.deepEqual(
    tasks.map((t) => t.id),
    ["rllm_sum_a", "rllm-3001", "rllm_avg_b", "rllm-3002"].map((id) => `livecodebench/${id}`),
  );
  const [sum, even, avg, pairs] = tasks.map(readCodeTask) as ReturnType<typeof readCodeTask>[];
  assert.deepEqual(sum!.tests, {
    kind: "stdio",
    compare: "lines",
    cases: [
      { input: "3 5\n", output: "8\n" },
      { input: "0 0\n", output: "0\n" },
      { input: "1000000000 1000000000\n", output: "2000000000\n" },
    ],
  });
  assert.equal(sum!.prelude, LCB_IMPORTS);
  assert.equal(even!.tests.kind, "call");
  assert.equal((even!.tests as { fnName: string }).fnName, "countEven");
  assert.equal((even!.tests as { cases: unknown[] }).cases.length, 3);
  // over 64 KiB of pickled JSON: written outside a pickle frame
  assert.ok((avg!.tests as { cases: { input: string }[] }).cases[1]!.input.length > 65_536);
  assert.equal((pairs!.tests as { cases: unknown[] }).cases.length, 3); // plain-JSON private tests
  assert.equal(tasks[1]!.data.publicTests, 1);

  const [system, user] = benchmarkMessages(entry, tasks[1]!);
  assert.match(system!.content as string, /^You are an expert Python programmer\./);
  assert.match(user!.content as string, /^### Question:\nYou are given a 0-indexed/);
  assert.match(user!.content as string, /use the following starter code[\s\S]*def countEven/);
  assert.match(benchmarkMessages(entry, tasks[0]!)[1]!.content as string, /# YOUR CODE HERE/);
});

const block = (code: string) => `\`\`\`python\n${code}\n\`\`\``;

test("fixture tasks grade as LiveCodeBench does: stdin by lines and decimals, calls by ==", async () => {
  const [sum, even, avg, pairs] = await fixtureTasks();
  const reward = async (task: Task, code: string) => {
    const out = await grade(task, block(code));
    return [out.reward, out.metadata?.reason];
  };
  assert.deepEqual(await reward(sum!, "a, b = map(int, input().split())\nprint(a + b)"), [
    1,
    "all 3 test(s) passed",
  ]);
  assert.equal((await reward(sum!, "a, b = map(int, input().split())\nprint(a * b)"))[0], 0);
  // Decimal equality: 2.5 and 2.50 are the same line; the prelude's imports (mean) are there.
  const mean = "n = int(input())\nxs = list(map(int, input().split()))\nprint(sum(xs) / n)";
  assert.equal((await reward(avg!, mean))[0], 1);
  assert.equal((await reward(avg!, "input()\nprint(fmean(map(int, input().split())))"))[0], 1);
  const rounded = await reward(avg!, "input()\nprint(round(fmean(map(int, input().split()))))");
  assert.equal(rounded[0], 0);
  assert.match(
    String(rounded[1]),
    /test 1 of 3: fail \(wrong output: line 1 differs: expected "2\.50", got "2"\)/,
  );

  const counting =
    "class Solution:\n    def countEven(self, nums: List[int]) -> int:\n        return sum(1 for x in nums if x % 2 == 0)";
  assert.equal((await reward(even!, counting))[0], 1);
  const off = "class Solution:\n    def countEven(self, nums):\n        return len(nums)";
  assert.match(String((await reward(even!, off))[1]), /wrong answer: expected 2, got 3/);
  const tuples =
    "class Solution:\n    def pairSums(self, nums, k):\n        return [[i, j] for i in range(len(nums)) for j in range(i + 1, len(nums)) if nums[i] + nums[j] == k]";
  assert.equal((await reward(pairs!, tuples))[0], 1);
  const nested = tuples.replace("[[i, j]", "[(i, j)");
  assert.match(
    String((await reward(pairs!, nested))[1]),
    /returned a tuple, which no JSON output equals/,
  );
});

test("rows that do not fit LiveCodeBench's format fail naming the field", () => {
  const entry = getBenchmark("livecodebench");
  const row = {
    question_id: "x",
    question_content: "Q",
    starter_code: "",
    public_test_cases: JSON.stringify([{ input: "1", output: "1", testtype: "functional" }]),
    private_test_cases: "[]",
    metadata: "{}",
  };
  assert.throws(
    () => entry.toTask(row, 4, "v6"),
    /livecodebench: row 4 of split "v6": field "public_test_cases\/private_test_cases" test 0 is "functional" but metadata names no func_name/,
  );
  assert.throws(
    () =>
      entry.toTask(
        {
          ...row,
          metadata: '{"func_name": "f"}',
          public_test_cases: '[{"input": "[1", "output": "1", "testtype": "functional"}]',
        },
        4,
        "v6",
      ),
    /field "test 0" is not JSON/,
  );
  assert.throws(
    () => entry.toTask({ ...row, metadata: "[]" }, 4, "v6"),
    /field "metadata" is not a JSON object/,
  );
  assert.throws(
    () => entry.toTask({ ...row, public_test_cases: "[]" }, 4, "v6"),
    /field "private_test_cases" holds no tests/,
  );
});
