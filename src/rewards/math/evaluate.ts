/**
 * Values of expression trees (parse.ts): exactly, as a Rational, while every step stays rational
 * (`\frac{3}{4}+0.25`, `2^{-2}`, `\sqrt{\frac94}`, `50\%`); and numerically, as a complex double,
 * for everything else, with the variables bound to given values (compare.ts picks the points).
 *
 * Numeric conventions: principal branches (`\sqrt{-4}` is 2i, `\ln(-1)` is πi), `X\%` is X/100
 * (Math-Verify's reading), `\log x` is the natural logarithm as in sympy and `\log_b x` base b,
 * `n!` and `\binom{n}{k}` only for non-negative integers up to 170. A value that cannot be
 * computed (a pole, an unknown variable, overflow) is NaN; callers skip or refuse such points.
 */
import { Rational } from "../rational.js";
import type { Node } from "./parse.js";

export interface Complex {
  re: number;
  im: number;
}

const NAN: Complex = { re: Number.NaN, im: Number.NaN };
const c = (re: number, im = 0): Complex => ({ re, im });

function cmul(a: Complex, b: Complex): Complex {
  return c(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}

function cdiv(a: Complex, b: Complex): Complex {
  const d = b.re * b.re + b.im * b.im;
  if (d === 0) return NAN;
  return c((a.re * b.re + a.im * b.im) / d, (a.im * b.re - a.re * b.im) / d);
}

function cexp(a: Complex): Complex {
  const m = Math.exp(a.re);
  return a.im === 0 ? c(m) : c(m * Math.cos(a.im), m * Math.sin(a.im));
}

function clog(a: Complex): Complex {
  if (a.re === 0 && a.im === 0) return NAN;
  return c(Math.log(Math.hypot(a.re, a.im)), Math.atan2(a.im, a.re));
}

function cpow(a: Complex, b: Complex): Complex {
  if (b.im === 0 && Number.isInteger(b.re) && Math.abs(b.re) <= 64) {
    // Repeated squaring keeps `(-2)^3` real and exact-ish, where exp(3 ln(-2)) gains an im part.
    let result = c(1);
    let base = b.re < 0 ? cdiv(c(1), a) : a;
    for (let e = Math.abs(b.re); e > 0; e >>= 1) {
      if (e & 1) result = cmul(result, base);
      base = cmul(base, base);
    }
    return result;
  }
  if (a.im === 0 && b.im === 0 && a.re >= 0) return c(a.re ** b.re);
  if (a.re === 0 && a.im === 0) return b.re > 0 ? c(0) : NAN;
  return cexp(cmul(b, clog(a)));
}

function csqrt(a: Complex): Complex {
  if (a.im === 0) return a.re >= 0 ? c(Math.sqrt(a.re)) : c(0, Math.sqrt(-a.re));
  return cpow(a, c(0.5));
}

function csin(a: Complex): Complex {
  return c(Math.sin(a.re) * Math.cosh(a.im), Math.cos(a.re) * Math.sinh(a.im));
}

function ccos(a: Complex): Complex {
  return c(Math.cos(a.re) * Math.cosh(a.im), -Math.sin(a.re) * Math.sinh(a.im));
}

/** A real-only function: NaN off the real line (no answer needs arcsin of a complex number). */
function real(f: (x: number) => number): (a: Complex) => Complex {
  return (a) => (a.im === 0 ? c(f(a.re)) : NAN);
}

function factorial(n: number): number {
  if (!Number.isInteger(n) || n < 0 || n > 170) return Number.NaN;
  let r = 1;
  for (let k = 2; k <= n; k++) r *= k;
  return r;
}

const UNARY: Record<string, (a: Complex) => Complex> = {
  sin: csin,
  cos: ccos,
  tan: (a) => cdiv(csin(a), ccos(a)),
  sec: (a) => cdiv(c(1), ccos(a)),
  csc: (a) => cdiv(c(1), csin(a)),
  cot: (a) => cdiv(ccos(a), csin(a)),
  arcsin: real(Math.asin),
  arccos: real(Math.acos),
  arctan: real(Math.atan),
  sinh: real(Math.sinh),
  cosh: real(Math.cosh),
  tanh: real(Math.tanh),
  ln: clog,
  exp: cexp,
  sqrt: csqrt,
  abs: (a) => c(Math.hypot(a.re, a.im)),
  floor: real(Math.floor),
  ceil: real(Math.ceil),
  factorial: real(factorial),
};

/** The numeric value of `node` with `env` binding its variables. */
export function evaluateNumeric(node: Node, env: ReadonlyMap<string, Complex>): Complex {
  switch (node.k) {
    case "num":
      return c(node.value.toNumber());
    case "var":
      return env.get(node.name) ?? NAN;
    case "const":
      if (node.name === "pi") return c(Math.PI);
      if (node.name === "e") return c(Math.E);
      if (node.name === "i") return c(0, 1);
      return c(Number.POSITIVE_INFINITY);
    case "neg": {
      const a = evaluateNumeric(node.a, env);
      return c(-a.re, -a.im);
    }
    case "pct": {
      const a = evaluateNumeric(node.a, env);
      return c(a.re / 100, a.im / 100);
    }
    case "op": {
      const a = evaluateNumeric(node.a, env);
      const b = evaluateNumeric(node.b, env);
      if (node.op === "+") return c(a.re + b.re, a.im + b.im);
      if (node.op === "-") return c(a.re - b.re, a.im - b.im);
      if (node.op === "*") return cmul(a, b);
      if (node.op === "/") return cdiv(a, b);
      return cpow(a, b);
    }
    case "fn": {
      const args = node.args.map((x) => evaluateNumeric(x, env));
      if (node.name === "log") {
        return args[1] ? cdiv(clog(args[0]!), clog(args[1])) : clog(args[0]!);
      }
      if (node.name === "binom") {
        const [n, k] = args as [Complex, Complex];
        if (n.im !== 0 || k.im !== 0) return NAN;
        return c(factorial(n.re) / (factorial(k.re) * factorial(n.re - k.re)));
      }
      return UNARY[node.name]?.(args[0]!) ?? NAN;
    }
  }
}

/**
 * Largest numerator or denominator, in bits, kept exact; past it (`9^{9^{9}}`, a product of huge
 * powers) the double takes over, so no bigint step (gcd above all) can take long. Real answers
 * stay far below: AIME's and MATH's largest are under 100 bits.
 */
const MAX_EXACT_BITS = 20_000n;

function bits(r: Rational): bigint {
  return BigInt(Math.max(r.num.toString(16).length, r.den.toString(16).length) * 4);
}

/** Exact k-th root of a non-negative bigint, or undefined when it is not a perfect power. */
function exactRoot(n: bigint, k: bigint): bigint | undefined {
  if (n < 0n) return undefined;
  if (n < 2n) return n;
  if (!Number.isFinite(Number(n))) return undefined;
  let r = BigInt(Math.round(Number(n) ** (1 / Number(k))));
  for (let step = 0; step < 4 && r ** k > n; step++) r--;
  for (let step = 0; step < 4 && (r + 1n) ** k <= n; step++) r++;
  return r ** k === n ? r : undefined;
}

function exactPower(base: Rational, e: Rational): Rational | undefined {
  if (e.den !== 1n) {
    // `8^{1/3}` and `\sqrt{\frac94}`: a rational root, when it is exact.
    if (e.den > 64n || base.num < 0n) return undefined;
    const n = exactRoot(base.num, e.den);
    const d = exactRoot(base.den, e.den);
    if (n === undefined || d === undefined) return undefined;
    return exactPower(Rational.of(n, d), Rational.of(e.num));
  }
  const magnitude = e.num < 0n ? -e.num : e.num;
  if (magnitude * bits(base) > MAX_EXACT_BITS) return undefined;
  const raised = Rational.of(base.num ** magnitude, base.den ** magnitude);
  if (e.num >= 0n) return raised;
  return Rational.fromInt(1).div(raised);
}

/** The exact value of `node`, or undefined when some step is not rational (or not constant). */
export function evaluateExact(node: Node): Rational | undefined {
  switch (node.k) {
    case "num":
      return node.value;
    case "neg":
      return evaluateExact(node.a)?.neg();
    case "pct":
      return evaluateExact(node.a)?.div(Rational.fromInt(100));
    case "op": {
      const a = evaluateExact(node.a);
      const b = a && evaluateExact(node.b);
      if (!a || !b) return undefined;
      if (node.op === "^") return exactPower(a, b);
      if (bits(a) + bits(b) > MAX_EXACT_BITS) return undefined;
      if (node.op === "+") return a.add(b);
      if (node.op === "-") return a.sub(b);
      if (node.op === "*") return a.mul(b);
      return a.div(b);
    }
    case "fn": {
      if (node.name !== "sqrt") return undefined;
      const a = evaluateExact(node.args[0]!);
      return a && exactPower(a, Rational.of(1n, 2n));
    }
    default:
      return undefined;
  }
}
