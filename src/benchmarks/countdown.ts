/**
 * Countdown: given a few numbers and a target, write an arithmetic expression that hits the
 * target using each number at most once. Tasks are generated, so they are seeded and built to be
 * solvable: the target is the value of a random expression tree over a random subset of the drawn
 * numbers, and that expression is kept as the reference solution.
 *
 * Everything here is integer maths on a 32-bit PRNG, so a seed gives the same tasks on every
 * machine and Node version (Math.random and floating-point shortcuts would not).
 */

import { mulberry32 } from "../random.js";
import type { Task } from "../types/index.js";

export type CountdownOp = "+" | "-" | "*" | "/";
export type CountdownDifficulty = "easy" | "medium" | "hard";

export const COUNTDOWN_OPS: readonly CountdownOp[] = ["+", "-", "*", "/"];

/** The shape of a countdown problem space. */
export interface CountdownConfig {
  /** How many numbers a task shows (fixed, or an inclusive [min, max]) and their inclusive range. */
  numbers: { count: number | [number, number]; range: [number, number] };
  /** Allowed operations; the reference solution uses only these. Default: all four. */
  ops?: CountdownOp[];
  /** Inclusive range the target must fall in. Default [1, 999]. */
  target?: [number, number];
}

/**
 * Difficulty presets. Targets stay small for few, small numbers (so they are not all products),
 * and "hard" uses the TV game's three-digit targets.
 */
export const COUNTDOWN_PRESETS: Readonly<Record<CountdownDifficulty, Required<CountdownConfig>>> = {
  easy: { numbers: { count: 3, range: [1, 20] }, ops: ["+", "-", "*"], target: [1, 100] },
  medium: { numbers: { count: 4, range: [1, 50] }, ops: ["+", "-", "*", "/"], target: [1, 300] },
  hard: {
    numbers: { count: [5, 6], range: [1, 100] },
    ops: ["+", "-", "*", "/"],
    target: [100, 999],
  },
};

export interface CountdownOptions extends Partial<CountdownConfig> {
  seed: number;
  /** How many tasks to generate. */
  count: number;
  /** Used in task ids (`countdown/<split>/<i>`). Default "train". */
  split?: string;
  /** A preset; `numbers`, `ops` and `target` given alongside override its fields. */
  difficulty?: CountdownDifficulty;
  /** Keep only problems this accepts (used to hold out a test split by construction). */
  accept?: (numbers: readonly number[], target: number) => boolean;
  /** `dataSource` and id prefix. Default "countdown". */
  name?: string;
}

/** What a countdown task carries in `task.data`. */
export interface CountdownData {
  numbers: number[];
  target: number;
  /** A reference expression over a subset of `numbers` that equals `target`. */
  solution: string;
  [key: string]: unknown;
}

/** The generator's PRNG (mulberry32; see src/random.ts). */
export const createRng = mulberry32;

function randInt(rng: () => number, lo: number, hi: number): number {
  return lo + Math.floor(rng() * (hi - lo + 1));
}

/** The identity of a problem, independent of the order the numbers are shown in. */
export function countdownKey(numbers: readonly number[], target: number): string {
  return `${[...numbers].sort((a, b) => a - b).join(",")}=${target}`;
}

/** FNV-1a over the key: a stable hash to partition the problem space between splits. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/**
 * Whether a problem belongs to the held-out (test) part of the space: one problem in ten, by a hash
 * of its key. Train keeps the others, so the splits cannot share a problem whatever their seeds.
 */
export function isCountdownHeldOut(numbers: readonly number[], target: number): boolean {
  return countdownBucket(numbers, target) === 0;
}

/** Which tenth of the problem space a problem is in (0–9, by a hash of its key; 0 is held out). */
export function countdownBucket(numbers: readonly number[], target: number): number {
  return fnv1a(countdownKey(numbers, target)) % 10;
}

interface Node {
  value: number;
  text: string;
  /** Operator precedence of the node's top operator: 1 for + -, 2 for * /, 3 for a literal. */
  precedence: number;
}

const PRECEDENCE: Record<CountdownOp, number> = { "+": 1, "-": 1, "*": 2, "/": 2 };

/**
 * Positive integer results only: the rule of the game, and what makes the answer checkable. Times
 * or divided by 1 is refused because it only pads the reference solution.
 */
function applies(op: CountdownOp, a: number, b: number): boolean {
  if (op === "-") return a > b;
  if (op === "/") return b > 1 && a % b === 0;
  if (op === "*") return a > 1 && b > 1;
  return true;
}

function combine(op: CountdownOp, a: Node, b: Node): Node {
  const value =
    op === "+"
      ? a.value + b.value
      : op === "-"
        ? a.value - b.value
        : op === "*"
          ? a.value * b.value
          : a.value / b.value;
  const precedence = PRECEDENCE[op];
  // Parentheses only where needed: a lower-precedence operand, or an equal-precedence right
  // operand of a non-associative operator (a - (b + c), a / (b * c)).
  const left = a.precedence < precedence ? `(${a.text})` : a.text;
  const rightNeeds =
    b.precedence < precedence || (b.precedence === precedence && (op === "-" || op === "/"));
  const right = rightNeeds ? `(${b.text})` : b.text;
  return { value, text: `${left} ${op} ${right}`, precedence };
}

function checkRange(name: string, range: unknown, min: number): [number, number] {
  if (
    !Array.isArray(range) ||
    range.length !== 2 ||
    !range.every((n) => Number.isSafeInteger(n)) ||
    range[0] > range[1] ||
    range[0] < min
  ) {
    throw new Error(
      `countdown: ${name} must be an inclusive [min, max] of integers >= ${min} with min <= max, got ${JSON.stringify(range)}`,
    );
  }
  return [range[0], range[1]];
}

function resolveConfig(options: CountdownOptions): Required<CountdownConfig> {
  const preset = options.difficulty ? COUNTDOWN_PRESETS[options.difficulty] : undefined;
  if (options.difficulty && !preset) {
    throw new Error(
      `countdown: unknown difficulty "${options.difficulty}"; use one of ${Object.keys(COUNTDOWN_PRESETS).join(", ")}`,
    );
  }
  const numbers = options.numbers ?? preset?.numbers;
  if (!numbers) {
    throw new Error("countdown: pass `numbers: {count, range}` or a `difficulty` preset");
  }
  const count = typeof numbers.count === "number" ? [numbers.count, numbers.count] : numbers.count;
  const [minCount, maxCount] = checkRange("numbers.count", count, 2);
  const range = checkRange("numbers.range", numbers.range, 1);
  const ops = options.ops ?? preset?.ops ?? [...COUNTDOWN_OPS];
  if (ops.length === 0 || ops.some((op) => !COUNTDOWN_OPS.includes(op))) {
    throw new Error(
      `countdown: ops must be a non-empty subset of ${COUNTDOWN_OPS.join(" ")}, got ${JSON.stringify(ops)}`,
    );
  }
  const target = checkRange("target", options.target ?? preset?.target ?? [1, 999], 1);
  return { numbers: { count: [minCount, maxCount], range }, ops: [...new Set(ops)], target };
}

/** One attempt at a problem; undefined when the random tree missed the target range. */
function attempt(
  rng: () => number,
  config: Required<CountdownConfig>,
): { numbers: number[]; target: number; solution: string } | undefined {
  const [minCount, maxCount] = config.numbers.count as [number, number];
  const [lo, hi] = config.numbers.range;
  const size = randInt(rng, minCount, maxCount);
  const numbers = Array.from({ length: size }, () => randInt(rng, lo, hi));

  // A random subset of all or all but one of the numbers (smaller subsets make trivial puzzles such
  // as "a + b"), in random order by a partial Fisher-Yates shuffle.
  const order = numbers.map((_, i) => i);
  const used = randInt(rng, Math.max(2, size - 1), size);
  for (let i = 0; i < used; i++) {
    const j = randInt(rng, i, size - 1);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const pool: Node[] = order.slice(0, used).map((i) => ({
    value: numbers[i]!,
    text: String(numbers[i]),
    precedence: 3,
  }));

  // Join two random nodes with a random allowed operator until one tree is left.
  while (pool.length > 1) {
    const i = randInt(rng, 0, pool.length - 1);
    let j = randInt(rng, 0, pool.length - 2);
    if (j >= i) j++;
    const a = pool[i]!;
    const b = pool[j]!;
    const ops = config.ops.filter((op) => applies(op, a.value, b.value));
    if (ops.length === 0) return undefined;
    const node = combine(ops[randInt(rng, 0, ops.length - 1)]!, a, b);
    pool.splice(Math.max(i, j), 1);
    pool.splice(Math.min(i, j), 1);
    pool.push(node);
  }
  const root = pool[0]!;
  const [minTarget, maxTarget] = config.target;
  if (root.value < minTarget || root.value > maxTarget) return undefined;
  // A target that is one of the numbers is solved by copying it: no puzzle.
  if (numbers.includes(root.value)) return undefined;
  return { numbers, target: root.value, solution: root.text };
}

/**
 * Generates `count` distinct, solvable countdown tasks. Deterministic in its options: the same seed
 * and config give the same tasks, and a shorter run is a prefix of a longer one (so `maxExamples`
 * does not change which tasks you get).
 */
export function generateCountdown(options: CountdownOptions): Task[] {
  const { seed, count } = options;
  if (!Number.isSafeInteger(seed))
    throw new Error(`countdown: seed must be an integer, got ${seed}`);
  if (!Number.isSafeInteger(count) || count < 0) {
    throw new Error(`countdown: count must be a non-negative integer, got ${count}`);
  }
  const config = resolveConfig(options);
  const name = options.name ?? "countdown";
  const split = options.split ?? "train";
  const rng = createRng(seed);
  const seen = new Set<string>();
  const tasks: Task[] = [];
  // Generous, but finite: a config whose space holds fewer than `count` problems must fail loudly.
  const maxAttempts = 1000 * count + 100_000;
  for (let attempts = 0; tasks.length < count; attempts++) {
    if (attempts >= maxAttempts) {
      throw new Error(
        `countdown: found only ${tasks.length} distinct problems of the ${count} asked for after ${attempts} attempts; widen numbers.range or target, or ask for fewer`,
      );
    }
    const problem = attempt(rng, config);
    if (!problem) continue;
    if (options.accept && !options.accept(problem.numbers, problem.target)) continue;
    const key = countdownKey(problem.numbers, problem.target);
    if (seen.has(key)) continue;
    seen.add(key);
    const index = tasks.length;
    const data: CountdownData = { ...problem };
    tasks.push({
      id: `${name}/${split}/${index}`,
      dataSource: name,
      index,
      data,
      metadata: { ops: [...config.ops], seed },
    });
  }
  return tasks;
}
