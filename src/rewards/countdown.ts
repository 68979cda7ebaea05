/**
 * The `countdown` grader (the TinyZero / Countdown numbers game): reach `task.data.target` with an
 * arithmetic equation over `task.data.numbers`, each number used at most once, written as
 * `<answer>(25 - 1) * 3</answer>`.
 *
 * The equation is read by a recursive-descent parser in this file and evaluated in exact rational
 * arithmetic (bigint fractions), never with `eval` or `Function`: model output is untrusted, and
 * `6 / (1 - 3/4)` must be exactly 24, not 23.999999999999996.
 */
import type { Task } from "../types/index.js";
import { lastTagContent } from "./extract.js";
import { Rational } from "./rational.js";
import type { Grader } from "./types.js";

/** A parsed equation. `position` is the character offset (from 0) in the equation text. */
export type CountdownExpr =
  | { kind: "number"; value: Rational; text: string; position: number }
  | { kind: "negate"; operand: CountdownExpr }
  | { kind: "binary"; op: "+" | "-" | "*" | "/"; left: CountdownExpr; right: CountdownExpr };

export type CountdownParse =
  | { ok: true; expr: CountdownExpr }
  | { ok: false; position: number; message: string };

/** Operator spellings models use besides ASCII: × ÷ and the Unicode minus sign. */
const OPERATOR_ALIASES: Record<string, "+" | "-" | "*" | "/"> = {
  "+": "+",
  "-": "-",
  "\u2212": "-",
  "*": "*",
  "\u00d7": "*",
  "/": "/",
  "\u00f7": "/",
};

class ParseError extends Error {
  constructor(
    readonly position: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Bounds that no real countdown equation comes near (they use a handful of numbers); they keep
 * the recursive parser and evaluator far from the stack limit on adversarial input.
 */
const MAX_NESTING = 100;
const MAX_NUMBERS = 100;

/**
 * Grammar (unary minus binds tighter than * and /, as in most calculators):
 *   equation := expr ("=" number?)? end     -- a trailing "= 24" restating the target is allowed
 *   expr     := term (("+" | "-") term)*
 *   term     := unary (("*" | "/") unary)*
 *   unary    := "-" unary | primary
 *   primary  := number | "(" expr ")"
 */
class EquationParser {
  private pos = 0;
  /** Open parentheses and unary minus signs around the current point; bounded, see MAX_NESTING. */
  private depth = 0;
  private numbers = 0;

  constructor(private readonly text: string) {}

  parse(): CountdownExpr {
    this.skipSpace();
    if (this.pos >= this.text.length) throw new ParseError(0, "empty equation");
    const expr = this.expr();
    this.skipSpace();
    if (this.text[this.pos] === "=") {
      this.pos++;
      this.skipSpace();
      const rest = /^\d+(?:\.\d+)?/.exec(this.text.slice(this.pos));
      if (rest) this.pos += rest[0].length;
      this.skipSpace();
    }
    if (this.pos < this.text.length) {
      const what =
        this.text[this.pos] === ")" ? "unmatched ')'" : `unexpected '${this.text[this.pos]}'`;
      throw new ParseError(this.pos, what);
    }
    return expr;
  }

  private skipSpace(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos]!)) this.pos++;
  }

  private operator(allowed: string): "+" | "-" | "*" | "/" | undefined {
    this.skipSpace();
    const op = OPERATOR_ALIASES[this.text[this.pos] ?? ""];
    if (op && allowed.includes(op)) {
      this.pos++;
      return op;
    }
    return undefined;
  }

  private expr(): CountdownExpr {
    let left = this.term();
    for (let op = this.operator("+-"); op; op = this.operator("+-")) {
      left = { kind: "binary", op, left, right: this.term() };
    }
    return left;
  }

  private term(): CountdownExpr {
    let left = this.unary();
    for (let op = this.operator("*/"); op; op = this.operator("*/")) {
      left = { kind: "binary", op, left, right: this.unary() };
    }
    return left;
  }

  private unary(): CountdownExpr {
    const at = this.pos;
    if (this.operator("-")) {
      this.enter(at);
      const operand = this.unary();
      this.depth--;
      return { kind: "negate", operand };
    }
    return this.primary();
  }

  private enter(at: number): void {
    if (++this.depth > MAX_NESTING) {
      throw new ParseError(at, `nested more than ${MAX_NESTING} deep`);
    }
  }

  private primary(): CountdownExpr {
    this.skipSpace();
    const start = this.pos;
    const c = this.text[start];
    if (c === "(") {
      this.pos++;
      this.enter(start);
      const inner = this.expr();
      this.depth--;
      this.skipSpace();
      if (this.text[this.pos] !== ")") {
        const found = this.pos < this.text.length ? `'${this.text[this.pos]}'` : "the end";
        throw new ParseError(
          this.pos,
          `expected ')' to close the '(' at position ${start}, found ${found}`,
        );
      }
      this.pos++;
      return inner;
    }
    const num = /^\d+(?:\.\d+)?/.exec(this.text.slice(start));
    if (num) {
      if (++this.numbers > MAX_NUMBERS) {
        throw new ParseError(start, `more than ${MAX_NUMBERS} numbers`);
      }
      this.pos += num[0].length;
      return {
        kind: "number",
        value: Rational.parseDecimal(num[0])!,
        text: num[0],
        position: start,
      };
    }
    if (c === undefined)
      throw new ParseError(start, "unexpected end of equation, expected a number or '('");
    throw new ParseError(start, `expected a number or '(', found '${c}'`);
  }
}

/** Parses a countdown equation; a syntax error comes back with its position, never thrown. */
export function parseCountdownEquation(text: string): CountdownParse {
  try {
    return { ok: true, expr: new EquationParser(text).parse() };
  } catch (e) {
    if (e instanceof ParseError) return { ok: false, position: e.position, message: e.message };
    throw e;
  }
}

/** The number literals of an equation, in reading order. */
function literals(expr: CountdownExpr): Extract<CountdownExpr, { kind: "number" }>[] {
  if (expr.kind === "number") return [expr];
  if (expr.kind === "negate") return literals(expr.operand);
  return [...literals(expr.left), ...literals(expr.right)];
}

/** The exact value, or undefined on a division by zero anywhere in the tree. */
function evaluate(expr: CountdownExpr): Rational | undefined {
  if (expr.kind === "number") return expr.value;
  if (expr.kind === "negate") return evaluate(expr.operand)?.neg();
  const a = evaluate(expr.left);
  const b = evaluate(expr.right);
  if (!a || !b) return undefined;
  switch (expr.op) {
    case "+":
      return a.add(b);
    case "-":
      return a.sub(b);
    case "*":
      return a.mul(b);
    case "/":
      return a.div(b);
  }
}

function times(n: number): string {
  return n === 1 ? "once" : n === 2 ? "twice" : `${n} times`;
}

function toRational(n: number): Rational {
  // Through the decimal string, so 0.1 is 1/10 and not the binary double nearest to it.
  const r = Rational.parseDecimal(String(n));
  if (!r) throw new Error(`countdown: ${n} is not a plain decimal number`);
  return r;
}

/** Why the literals break the multiset rule, or undefined when they keep it. */
function numberUsageProblem(
  used: Extract<CountdownExpr, { kind: "number" }>[],
  given: number[],
  requireAll: boolean,
): string | undefined {
  const pool = given.map(toRational);
  const taken = new Array<boolean>(pool.length).fill(false);
  for (const lit of used) {
    const k = pool.findIndex((g, i) => !taken[i] && g.equals(lit.value));
    if (k >= 0) {
      taken[k] = true;
      continue;
    }
    const givenCount = pool.filter((g) => g.equals(lit.value)).length;
    if (givenCount === 0) return `uses ${lit.text} which is not among the numbers`;
    const usedCount = used.filter((u) => u.value.equals(lit.value)).length;
    return `uses ${lit.text} ${times(usedCount)} but it is given ${times(givenCount)}`;
  }
  if (requireAll) {
    const unused = given.filter((_, i) => !taken[i]);
    if (unused.length > 0) return `does not use ${unused.join(", ")}; every number must be used`;
  }
  return undefined;
}

/** Options of {@link countdownGrader}. */
export interface CountdownGraderOptions {
  /**
   * Reward for an equation that parses but is wrong (wrong value, a number misused, a division
   * by zero): TinyZero's `format_score`, which rewards learning the output format early.
   * No `<answer>` tag or a syntax error earns 0. Default 0.
   */
  formatScore?: number;
  /**
   * A dense signal toward the target for training: an equation that uses the numbers correctly
   * but misses the target earns `closenessScore · (1 − min(1, |value − target| / |target|))` on top
   * of formatScore, so a miss by 1 scores more than a miss by 50. Default 0. (`isCorrect` stays
   * exact, so pass rates do not change.)
   */
  closenessScore?: number;
  /** Require every given number to be used exactly once (TinyZero's rule). Default false. */
  requireAllNumbers?: boolean;
}

function countdownData(task: Task): { numbers: number[]; target: number } {
  // `nums` is TinyZero's field name for the same list.
  const numbers = task.data["numbers"] ?? task.data["nums"];
  const target = task.data["target"];
  const isNumber = (x: unknown): x is number => typeof x === "number" && Number.isFinite(x);
  if (!Array.isArray(numbers) || !numbers.every(isNumber) || !isNumber(target)) {
    throw new Error(
      `countdown grader: task ${task.id} needs data.numbers (an array of numbers) and data.target ` +
        `(a number); fields present: ${Object.keys(task.data).join(", ") || "none"}.`,
    );
  }
  return { numbers, target };
}

/**
 * A countdown grader. `countdownGrader()` scores 1 or 0; `countdownGrader({ formatScore: 0.1 })`
 * gives 0.1 to well-formed wrong equations. Reasons land in `metadata.reason`.
 */
export function countdownGrader(options: CountdownGraderOptions = {}): Grader {
  const formatScore = options.formatScore ?? 0;
  const closenessScore = options.closenessScore ?? 0;
  if (
    !(formatScore >= 0 && formatScore < 1) ||
    !(closenessScore >= 0 && formatScore + closenessScore < 1)
  )
    throw new Error(
      `countdown grader: formatScore (${formatScore}) and closenessScore (${closenessScore}) must be ≥ 0 and add up to less than 1, the reward of a correct answer`,
    );
  const requireAll = options.requireAllNumbers ?? false;
  return (task, response) => {
    const { numbers, target } = countdownData(task);
    const base = { numbers, target };
    const equation = lastTagContent(response, "answer");
    if (equation === undefined) {
      return { reward: 0, isCorrect: false, metadata: { ...base, reason: "no <answer> tag" } };
    }
    const wrong = (reason: string, extra: Record<string, unknown> = {}) => ({
      reward: formatScore,
      isCorrect: false,
      metadata: { ...base, equation, reason, ...extra },
    });
    const parsed = parseCountdownEquation(equation);
    if (!parsed.ok) {
      return {
        reward: 0,
        isCorrect: false,
        metadata: {
          ...base,
          equation,
          reason: `parse error at position ${parsed.position}: ${parsed.message}`,
        },
      };
    }
    const usage = numberUsageProblem(literals(parsed.expr), numbers, requireAll);
    if (usage) return wrong(usage);
    const value = evaluate(parsed.expr);
    if (!value) return wrong("division by zero");
    if (!value.equals(toRational(target))) {
      const miss = wrong(`evaluates to ${value}, not ${target}`, { value: value.toString() });
      if (closenessScore > 0) {
        const off = Math.abs(value.toNumber() - target) / Math.max(1e-9, Math.abs(target));
        miss.reward = formatScore + closenessScore * (1 - Math.min(1, off));
      }
      return miss;
    }
    return { reward: 1, isCorrect: true, metadata: { ...base, equation, value: value.toString() } };
  };
}
