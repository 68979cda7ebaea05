/**
 * The value of a constant LaTeX expression (`2\sqrt{5}`, `\frac{3\pi}{4}`, `1\frac{4}{5}`, `2^{10}`),
 * so that the math grader can tell `\sqrt{20}` equals `2\sqrt{5}` without a computer algebra system.
 *
 * A small recursive-descent parser over already-normalised text (see math-equal.ts), never `eval`.
 * It refuses anything with a variable, a unit or an unknown command: the caller then falls back to
 * comparing strings, which is the safe direction (a refusal can only cost a match, never invent one).
 */
import { Rational } from "./rational.js";

/**
 * `exact` is present while every step stayed rational; `approx` always holds the double. An
 * irrational value (`\sqrt{2}`, `\pi`) has only `approx`.
 */
export interface LatexValue {
  exact?: Rational;
  approx: number;
}

/**
 * Largest result, in bits, that `^` computes exactly; beyond it (`9^{9^{9}}`) bigint arithmetic
 * would take seconds, so the double takes over and usually overflows to a refusal.
 */
const MAX_EXACT_POWER_BITS = 1_000_000n;

function withinExactBudget(base: Rational, exponent: bigint): boolean {
  const magnitude = exponent < 0n ? -exponent : exponent;
  const bits = BigInt(Math.max(base.num.toString(16).length, base.den.toString(16).length) * 4);
  return magnitude * bits <= MAX_EXACT_POWER_BITS;
}

class Refuse extends Error {}

type Token =
  | { kind: "num"; text: string }
  | { kind: "cmd"; name: string }
  | { kind: "sym"; text: string };

function tokenize(s: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < s.length) {
    const rest = s.slice(i);
    const num = /^(?:\d+(?:\.\d*)?|\.\d+)/.exec(rest);
    if (num) {
      tokens.push({ kind: "num", text: num[0] });
      i += num[0].length;
      continue;
    }
    const cmd = /^\\([a-zA-Z]+)/.exec(rest);
    if (cmd) {
      tokens.push({ kind: "cmd", name: cmd[1]! });
      i += cmd[0].length;
      continue;
    }
    const c = s[i]!;
    if ("+-*/^(){}[]".includes(c)) {
      tokens.push({ kind: "sym", text: c });
      i++;
      continue;
    }
    if (c === " ") {
      i++;
      continue;
    }
    throw new Refuse(`unsupported character ${c}`); // letters (variables), commas, `=`, `_`...
  }
  return tokens;
}

function value(exact: Rational): LatexValue {
  return { exact, approx: exact.toNumber() };
}

function approx(x: number): LatexValue {
  if (!Number.isFinite(x)) throw new Refuse("not a finite real number");
  return { approx: x };
}

function add(a: LatexValue, b: LatexValue): LatexValue {
  return a.exact && b.exact ? value(a.exact.add(b.exact)) : approx(a.approx + b.approx);
}

function sub(a: LatexValue, b: LatexValue): LatexValue {
  return a.exact && b.exact ? value(a.exact.sub(b.exact)) : approx(a.approx - b.approx);
}

function mul(a: LatexValue, b: LatexValue): LatexValue {
  return a.exact && b.exact ? value(a.exact.mul(b.exact)) : approx(a.approx * b.approx);
}

function div(a: LatexValue, b: LatexValue): LatexValue {
  if (b.exact ? b.exact.num === 0n : b.approx === 0) throw new Refuse("division by zero");
  if (a.exact && b.exact) return value(a.exact.div(b.exact)!);
  return approx(a.approx / b.approx);
}

function neg(a: LatexValue): LatexValue {
  return a.exact ? value(a.exact.neg()) : approx(-a.approx);
}

/** Exact k-th root of a non-negative bigint, or undefined when it is not a perfect power. */
function exactRoot(n: bigint, k: bigint): bigint | undefined {
  if (n < 0n) return undefined;
  if (n < 2n) return n;
  if (!Number.isFinite(Number(n))) return undefined;
  // A float guess, then a correction of a step or two either way: exact for every size we accept.
  let r = BigInt(Math.round(Number(n) ** (1 / Number(k))));
  for (let step = 0; step < 4 && r ** k > n; step++) r--;
  for (let step = 0; step < 4 && (r + 1n) ** k <= n; step++) r++;
  return r ** k === n ? r : undefined;
}

function root(a: LatexValue, k: LatexValue): LatexValue {
  if (k.exact?.isInteger() && k.exact.num >= 2n && k.exact.num <= 64n && a.exact) {
    const n = exactRoot(a.exact.num, k.exact.num);
    const d = exactRoot(a.exact.den, k.exact.num);
    if (n !== undefined && d !== undefined) return value(Rational.of(n, d));
  }
  if (a.approx < 0) throw new Refuse("root of a negative number");
  return approx(a.approx ** (1 / k.approx));
}

function pow(base: LatexValue, exp: LatexValue): LatexValue {
  const e = exp.exact;
  if (base.exact && e?.isInteger() && withinExactBudget(base.exact, e.num)) {
    const magnitude = e.num < 0n ? -e.num : e.num;
    const raised = Rational.of(base.exact.num ** magnitude, base.exact.den ** magnitude);
    if (e.num >= 0n) return value(raised);
    if (raised.num === 0n) throw new Refuse("division by zero");
    return value(Rational.fromInt(1).div(raised)!);
  }
  // `8^{1/3}` is exactly 2: try the rational root before giving up on exactness.
  if (base.exact && e && e.den <= 64n && e.num > 0n) {
    const rooted = root(base, value(Rational.of(e.den)));
    return pow(rooted, value(Rational.of(e.num)));
  }
  return approx(base.approx ** exp.approx);
}

/** Deeper nesting than any real answer; refusing it keeps recursion far from the stack limit. */
const MAX_NESTING = 100;

class Parser {
  private pos = 0;
  private depth = 0;

  constructor(private readonly tokens: Token[]) {}

  parse(): LatexValue {
    const v = this.expr();
    if (this.pos !== this.tokens.length) throw new Refuse("trailing input");
    return v;
  }

  private peek(offset = 0): Token | undefined {
    return this.tokens[this.pos + offset];
  }

  private isSym(t: Token | undefined, text: string): boolean {
    return t?.kind === "sym" && t.text === text;
  }

  private isCmd(t: Token | undefined, ...names: string[]): boolean {
    return t?.kind === "cmd" && names.includes(t.name);
  }

  private expect(text: string): void {
    if (!this.isSym(this.peek(), text)) throw new Refuse(`expected ${text}`);
    this.pos++;
  }

  // expr := term (("+" | "-") term)*
  private expr(): LatexValue {
    if (++this.depth > MAX_NESTING) throw new Refuse("nested too deeply");
    let v = this.term();
    for (;;) {
      const t = this.peek();
      if (this.isSym(t, "+")) {
        this.pos++;
        v = add(v, this.term());
      } else if (this.isSym(t, "-")) {
        this.pos++;
        v = sub(v, this.term());
      } else {
        this.depth--;
        return v;
      }
    }
  }

  // term := factor ((("*" | \cdot | \times | "/" | \div) factor) | implicit-product factor)*
  private term(): LatexValue {
    let v = this.factor();
    for (;;) {
      const t = this.peek();
      if (this.isSym(t, "*") || this.isCmd(t, "cdot", "times")) {
        this.pos++;
        v = mul(v, this.factor());
      } else if (this.isSym(t, "/") || this.isCmd(t, "div")) {
        this.pos++;
        v = div(v, this.factor());
      } else if (this.startsAtom(t)) {
        v = mul(v, this.factor()); // `2\sqrt{3}`, `3\pi`, `(1+2)(3)`
      } else return v;
    }
  }

  private startsAtom(t: Token | undefined): boolean {
    if (!t) return false;
    if (t.kind === "num") return true;
    if (t.kind === "cmd") return ["frac", "sqrt", "pi"].includes(t.name);
    return t.text === "(" || t.text === "{";
  }

  // factor := ("-" | "+") factor | power    (so -2^2 is -(2^2), as in mathematics)
  private factor(): LatexValue {
    const t = this.peek();
    if (this.isSym(t, "-") || this.isSym(t, "+")) {
      this.pos++;
      if (++this.depth > MAX_NESTING) throw new Refuse("nested too deeply");
      const operand = this.factor();
      this.depth--;
      return this.isSym(t, "-") ? neg(operand) : operand;
    }
    return this.power();
  }

  // power := atom ("^" (group | atom | "-" atom))?
  private power(): LatexValue {
    const base = this.atom();
    if (!this.isSym(this.peek(), "^")) return base;
    this.pos++;
    let negative = false;
    if (this.isSym(this.peek(), "-")) {
      negative = true;
      this.pos++;
    }
    const exp = this.atom();
    return pow(base, negative ? neg(exp) : exp);
  }

  private group(): LatexValue {
    this.expect("{");
    const v = this.expr();
    this.expect("}");
    return v;
  }

  private atom(): LatexValue {
    const t = this.peek();
    if (!t) throw new Refuse("unexpected end");
    if (t.kind === "num") {
      this.pos++;
      const n = value(Rational.parseDecimal(t.text)!);
      const mixed = this.mixedFraction(t.text);
      return mixed ? add(n, mixed) : n;
    }
    if (t.kind === "sym" && (t.text === "(" || t.text === "{")) {
      this.pos++;
      const v = this.expr();
      this.expect(t.text === "(" ? ")" : "}");
      return v;
    }
    if (t.kind === "cmd") {
      this.pos++;
      if (t.name === "pi") return approx(Math.PI);
      if (t.name === "frac") {
        const num = this.group();
        return div(num, this.group());
      }
      if (t.name === "sqrt") {
        let k = value(Rational.fromInt(2));
        if (this.isSym(this.peek(), "[")) {
          this.pos++;
          k = this.expr();
          this.expect("]");
        }
        return root(this.group(), k);
      }
    }
    throw new Refuse("unsupported token");
  }

  /**
   * MATH writes mixed numbers as `1\frac{4}{5}` (= 9/5, not 4/5). Read that way only when an
   * integer literal is directly followed by a fraction of two integer literals; `2\frac{\pi}{3}`
   * stays a product.
   */
  private mixedFraction(whole: string): LatexValue | undefined {
    if (!/^\d+$/.test(whole) || !this.isCmd(this.peek(), "frac")) return undefined;
    const [, o1, a, c1, o2, b, c2] = this.tokens.slice(this.pos, this.pos + 7);
    const isInt = (x: Token | undefined) => x?.kind === "num" && /^\d+$/.test(x.text);
    if (!(this.isSym(o1, "{") && isInt(a) && this.isSym(c1, "}"))) return undefined;
    if (!(this.isSym(o2, "{") && isInt(b) && this.isSym(c2, "}"))) return undefined;
    this.pos++;
    const num = this.group();
    return div(num, this.group());
  }
}

/** The value of `text`, or undefined when it is not a constant expression this parser reads. */
export function evaluateLatex(text: string): LatexValue | undefined {
  try {
    const tokens = tokenize(text);
    if (tokens.length === 0) return undefined;
    return new Parser(tokens).parse();
  } catch (e) {
    if (e instanceof Refuse) return undefined;
    throw e;
  }
}

/**
 * Equality of two values: exact when both are rational; within a relative 1e-9 when both are
 * irrational (float noise of `\sqrt` and `\pi`); never between a rational and an irrational, so a
 * decimal approximation of `\sqrt{2}` is not accepted as `\sqrt{2}`.
 */
export function latexValuesEqual(a: LatexValue, b: LatexValue): boolean {
  if (a.exact && b.exact) return a.exact.equals(b.exact);
  if (a.exact || b.exact) return false;
  const scale = Math.max(Math.abs(a.approx), Math.abs(b.approx));
  return Math.abs(a.approx - b.approx) <= 1e-9 * Math.max(scale, 1e-12);
}
