import assert from "node:assert/strict";
import { test } from "node:test";
import { TaskSchema } from "../types/index.js";
import { getBenchmark } from "./catalog.js";
import {
  COUNTDOWN_PRESETS,
  type CountdownDifficulty,
  countdownKey,
  createRng,
  generateCountdown,
  isCountdownHeldOut,
} from "./countdown.js";
import { loadBenchmark } from "./load.js";

/**
 * A tiny evaluator written independently of the generator: a recursive-descent parser over
 * + - * / and parentheses, on exact rationals, so a wrong reference solution cannot hide behind
 * the generator's own arithmetic. Returns the value and the literals used.
 */
function evaluate(expression: string): { value: number; literals: number[] } {
  const tokens = expression.match(/\d+|[-+*/()]/g) ?? [];
  assert.equal(
    tokens.join(""),
    expression.replace(/\s+/g, ""),
    `unexpected characters in ${expression}`,
  );
  let at = 0;
  const literals: number[] = [];
  type Q = [bigint, bigint];
  const norm = ([n, d]: Q): Q => (d < 0n ? [-n, -d] : [n, d]);
  const ops: Record<string, (a: Q, b: Q) => Q> = {
    "+": (a, b) => [a[0] * b[1] + b[0] * a[1], a[1] * b[1]],
    "-": (a, b) => [a[0] * b[1] - b[0] * a[1], a[1] * b[1]],
    "*": (a, b) => [a[0] * b[0], a[1] * b[1]],
    "/": (a, b) => {
      assert.notEqual(b[0], 0n, "division by zero");
      return norm([a[0] * b[1], a[1] * b[0]]);
    },
  };
  const primary = (): Q => {
    const token = tokens[at++];
    if (token === "(") {
      const value = sum();
      assert.equal(tokens[at++], ")");
      return value;
    }
    assert.ok(
      token !== undefined && /^\d+$/.test(token),
      `expected a number at ${at} in ${expression}`,
    );
    literals.push(Number(token));
    return [BigInt(token), 1n];
  };
  const level =
    (next: () => Q, symbols: string): (() => Q) =>
    () => {
      let value = next();
      while (at < tokens.length && symbols.includes(tokens[at]!)) {
        const op = tokens[at++]!;
        value = ops[op]!(value, next());
      }
      return value;
    };
  const product = level(primary, "*/");
  const sum = level(product, "+-");
  const [n, d] = sum();
  assert.equal(at, tokens.length, `trailing tokens in ${expression}`);
  assert.equal(n % d, 0n, `${expression} is not an integer`);
  return { value: Number(n / d), literals };
}

/** Whether `used` is a sub-multiset of `available`. */
function usesEachAtMostOnce(used: number[], available: number[]): boolean {
  const left = [...available];
  for (const n of used) {
    const i = left.indexOf(n);
    if (i < 0) return false;
    left.splice(i, 1);
  }
  return true;
}

test("the evaluator used below is itself right", () => {
  assert.deepEqual(evaluate("(25 - 5) * 3"), { value: 60, literals: [25, 5, 3] });
  assert.equal(evaluate("100 - 4 * 20 / 5").value, 84);
  assert.equal(evaluate("12 / (3 * 2)").value, 2);
  assert.equal(evaluate("12 - (3 + 2)").value, 7);
  assert.throws(() => evaluate("7 / 2"));
});

test("the PRNG is mulberry32: fixed outputs for a fixed seed", () => {
  const rng = createRng(42);
  const first = Array.from({ length: 3 }, () => Math.floor(rng() * 2 ** 32));
  // Reference values of mulberry32(42); pinned so a change to the generator's randomness shows.
  assert.deepEqual(first, [2581720956, 1925393290, 3661312704]);
});

test("the same seed gives the same tasks; another seed gives others", () => {
  const options = { seed: 7, count: 200, difficulty: "medium" as const, split: "train" };
  const a = generateCountdown(options);
  const b = generateCountdown(options);
  assert.deepEqual(a, b);
  const c = generateCountdown({ ...options, seed: 8 });
  assert.notDeepEqual(
    a.map((t) => t.data),
    c.map((t) => t.data),
  );
  // A shorter run is a prefix of a longer one, so maxExamples never changes which tasks you get.
  assert.deepEqual(generateCountdown({ ...options, count: 50 }), a.slice(0, 50));
});

const PINNED_EASY_SEED_1 = [
  { numbers: [1, 11, 20], target: 10, solution: "1 + 20 - 11" },
  { numbers: [4, 10, 2], target: 12, solution: "2 + 10" },
  { numbers: [7, 9, 5], target: 12, solution: "5 + 7" },
];

test("pinned first tasks: generation is the same on every machine", () => {
  const tasks = generateCountdown({ seed: 1, count: 3, difficulty: "easy", split: "test" });
  assert.deepEqual(
    tasks.map((t) => t.id),
    ["countdown/test/0", "countdown/test/1", "countdown/test/2"],
  );
  // Any change to the PRNG, the presets or the tree builder changes these: a new task set.
  assert.deepEqual(
    tasks.map((t) => t.data),
    PINNED_EASY_SEED_1,
  );
});

for (const difficulty of ["easy", "medium", "hard"] as CountdownDifficulty[]) {
  test(`every ${difficulty} task is reachable: its solution evaluates to its target`, () => {
    const preset = COUNTDOWN_PRESETS[difficulty];
    const tasks = generateCountdown({ seed: 123, count: 300, difficulty });
    assert.equal(tasks.length, 300);
    const keys = new Set<string>();
    for (const task of tasks) {
      assert.deepEqual(TaskSchema.parse(task), task);
      const { numbers, target, solution } = task.data as {
        numbers: number[];
        target: number;
        solution: string;
      };
      const [minCount, maxCount] =
        typeof preset.numbers.count === "number"
          ? [preset.numbers.count, preset.numbers.count]
          : preset.numbers.count;
      assert.ok(numbers.length >= minCount && numbers.length <= maxCount, task.id);
      for (const n of numbers) {
        assert.ok(
          Number.isInteger(n) && n >= preset.numbers.range[0] && n <= preset.numbers.range[1],
        );
      }
      assert.ok(
        Number.isInteger(target) && target >= preset.target[0] && target <= preset.target[1],
        task.id,
      );
      const { value, literals } = evaluate(solution);
      assert.equal(value, target, `${task.id}: ${solution} != ${target}`);
      assert.ok(usesEachAtMostOnce(literals, numbers), `${task.id}: ${solution} over ${numbers}`);
      assert.ok(literals.length >= 2);
      for (const op of solution.match(/[-+*/]/g) ?? [])
        assert.ok(preset.ops.includes(op as "+"), op);
      keys.add(countdownKey(numbers, target));
    }
    assert.equal(keys.size, tasks.length, "no problem repeats within a split");
  });
}

test("custom configs: fixed or ranged counts, restricted ops, bad configs rejected", () => {
  const tasks = generateCountdown({
    seed: 5,
    count: 100,
    numbers: { count: [2, 3], range: [2, 9] },
    ops: ["+", "*"],
    target: [10, 60],
  });
  for (const task of tasks) {
    assert.doesNotMatch(task.data.solution as string, /[-/]/);
    assert.equal(evaluate(task.data.solution as string).value, task.data.target);
  }
  assert.throws(
    () => generateCountdown({ seed: 1, count: 1 }),
    /numbers: \{count, range\}.*difficulty/,
  );
  assert.throws(
    () => generateCountdown({ seed: 1, count: 1, numbers: { count: 1, range: [1, 9] } }),
    /numbers\.count must be .*>= 2/,
  );
  assert.throws(
    () => generateCountdown({ seed: 1, count: 1, numbers: { count: 3, range: [9, 1] } }),
    /numbers\.range/,
  );
  assert.throws(
    () => generateCountdown({ seed: 1, count: 1, difficulty: "easy", ops: ["^" as "+"] }),
    /ops must be a non-empty subset/,
  );
  // A space too small for the count asked must fail, not loop forever.
  assert.throws(
    () =>
      generateCountdown({ seed: 1, count: 50, numbers: { count: 2, range: [2, 3] }, ops: ["+"] }),
    /found only \d+ distinct problems of the 50/,
  );
});

test("the catalog's countdown train and test splits share no (numbers, target) problem", async () => {
  const train = await loadBenchmark("countdown", { split: "train" });
  const test_ = await loadBenchmark("countdown", { split: "test" });
  assert.equal(train.length, getBenchmark("countdown").generator!.counts.train);
  assert.equal(test_.length, getBenchmark("countdown").generator!.counts.test);
  const key = (t: { data: Record<string, unknown> }) =>
    countdownKey(t.data.numbers as number[], t.data.target as number);
  const trainKeys = new Set(train.map(key));
  const overlap = test_.filter((t) => trainKeys.has(key(t)));
  assert.equal(overlap.length, 0);
  for (const t of test_)
    assert.ok(isCountdownHeldOut(t.data.numbers as number[], t.data.target as number));
  for (const t of train.slice(0, 500)) {
    assert.ok(!isCountdownHeldOut(t.data.numbers as number[], t.data.target as number));
  }
  assert.equal(train[0]!.id, "countdown/train/0");
  assert.equal(test_[0]!.dataSource, "countdown");
  // maxExamples and taskIndices select from the same generated list.
  const some = await loadBenchmark("countdown", { split: "test", taskIndices: [5, 2] });
  assert.deepEqual(some, [test_[5], test_[2]]);
  assert.deepEqual(
    await loadBenchmark("countdown", { split: "test", maxExamples: 4 }),
    test_.slice(0, 4),
  );
  await assert.rejects(
    loadBenchmark("countdown", { split: "validation" }),
    /no split "validation".*train, test/,
  );
});
