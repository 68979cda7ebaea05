/**
 * Exact rational numbers over bigint. Graders compare numbers with these instead of floats so that
 * `0.1 + 0.2` equals `3/10`, `\frac{1}{3}` is not "close to" `0.3333`, and countdown's `6/(1-3/4)`
 * is exactly 24: float rounding must never decide whether an answer is right.
 */
export class Rational {
  /** Always in lowest terms with a positive denominator, so structural equality is value equality. */
  readonly num: bigint;
  readonly den: bigint;

  private constructor(num: bigint, den: bigint) {
    this.num = num;
    this.den = den;
  }

  static of(num: bigint, den: bigint = 1n): Rational {
    if (den === 0n) throw new RangeError("Rational with a zero denominator");
    const sign = den < 0n ? -1n : 1n;
    const g = gcd(abs(num), abs(den));
    return new Rational((sign * num) / g, (sign * den) / g);
  }

  static fromInt(n: number | bigint): Rational {
    return Rational.of(BigInt(n));
  }

  /**
   * Parses a plain decimal literal: `42`, `-3.50`, `.5`, `007`. Returns undefined for anything else
   * (no exponents, no separators): callers normalise text before they get here.
   */
  static parseDecimal(text: string): Rational | undefined {
    const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text);
    if (!m) return undefined;
    const [, sign = "", whole = "", frac = ""] = m;
    if (whole === "" && frac === "") return undefined;
    const digits = BigInt((whole || "0") + frac);
    const value = Rational.of(digits, 10n ** BigInt(frac.length));
    return sign === "-" ? value.neg() : value;
  }

  add(o: Rational): Rational {
    return Rational.of(this.num * o.den + o.num * this.den, this.den * o.den);
  }

  sub(o: Rational): Rational {
    return Rational.of(this.num * o.den - o.num * this.den, this.den * o.den);
  }

  mul(o: Rational): Rational {
    return Rational.of(this.num * o.num, this.den * o.den);
  }

  /** Returns undefined on division by zero so callers can report it rather than catch it. */
  div(o: Rational): Rational | undefined {
    if (o.num === 0n) return undefined;
    return Rational.of(this.num * o.den, this.den * o.num);
  }

  neg(): Rational {
    return Rational.of(-this.num, this.den);
  }

  equals(o: Rational): boolean {
    return this.num === o.num && this.den === o.den;
  }

  isInteger(): boolean {
    return this.den === 1n;
  }

  toNumber(): number {
    // Divide in bigint first where exact, so large integers keep every digit that a double can hold.
    if (this.den === 1n) return Number(this.num);
    return Number(this.num) / Number(this.den);
  }

  /** `24`, `-47/2`: how reasons in metadata show a value. */
  toString(): string {
    return this.den === 1n ? this.num.toString() : `${this.num}/${this.den}`;
  }
}

function abs(n: bigint): bigint {
  return n < 0n ? -n : n;
}

function gcd(a: bigint, b: bigint): bigint {
  let x = a;
  let y = b;
  while (y !== 0n) {
    [x, y] = [y, x % y];
  }
  return x === 0n ? 1n : x;
}
