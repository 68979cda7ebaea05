/**
 * Numeric reference answers, read exactly: `18`, `2,125`, `025`, `-\frac{24}{25}`, `\frac9{19}`,
 * `1.25`, `.0000672`, `1\frac{4}{5}` (a mixed number, MATH's convention: 9/5), with what decorates
 * them: `\$`, `^\circ`, `\%`, a trailing `\text{ cents}` / `\mbox{ inches}^2`. The value is a
 * Rational (src/rewards/rational.ts), so every rewriting below is equal or unequal by arithmetic,
 * never by a float: that is what makes "equivalent by construction" true.
 *
 * Decided once: a unit, `\$` or `^\circ` on the reference carries no value (dropping it is an
 * equivalent rewriting, as MATH's graders and Math-Verify both treat it); a rewritten wrong value
 * keeps the reference's decoration, so only the value differs.
 */
import { Rational } from "../../src/rewards/rational.js";

type Notation = "integer" | "decimal" | "fraction" | "mixed";

interface Decoration {
  currency: boolean;
  degrees: boolean;
  percent: boolean;
  /** The reference's own unit suffix as written (`\mbox{ inches}^2`), or "". */
  unit: string;
}

export interface NumericAnswer {
  value: Rational;
  notation: Notation;
  decoration: Decoration;
  /** Written with thousands separators (`2,125`, `10,\!080`). */
  grouped: boolean;
  /** AIME's zero padding (`025`). */
  padded: boolean;
}

const UNIT = /\s*\\(?:text|mbox)\{\s*[^{}]*\}(?:\^\d)?$/;
const ARG = String.raw`(?:\{(\d+)\}|\s*(\d))`;
const FRACTION = new RegExp(String.raw`^(-?)\\[dt]?frac${ARG}${ARG}$`);

/** The reference as a number, or undefined when it is not one (an expression, a tuple, text). */
export function parseNumeric(answer: string): NumericAnswer | undefined {
  let s = answer.trim();
  const decoration: Decoration = { currency: false, degrees: false, percent: false, unit: "" };
  const unit = UNIT.exec(s);
  if (unit && unit.index > 0) {
    decoration.unit = unit[0];
    s = s.slice(0, unit.index).trim();
  }
  if (s.startsWith("\\$")) {
    decoration.currency = true;
    s = s.slice(2).trim();
  }
  if (/\^\s*\{?\\circ\}?$/.test(s)) {
    decoration.degrees = true;
    s = s.replace(/\^\s*\{?\\circ\}?$/, "").trim();
  }
  if (s.endsWith("\\%")) {
    decoration.percent = true;
    s = s.slice(0, -2).trim();
  }
  const grouped = /^-?\d{1,3}(?:(?:,\\!\s*|,|\{,\})\d{3})+(?:\.\d+)?$/.test(s);
  if (grouped) s = s.replace(/,\\!\s*|\{,\}|,/g, "");
  const padded = /^0\d/.test(s);

  let value: Rational | undefined;
  let notation: Notation;
  const fraction = FRACTION.exec(s);
  const mixed = /^(\d+)\s*\\frac\{(\d+)\}\{(\d+)\}$/.exec(s);
  const slash = /^(-?\d+)\/(\d+)$/.exec(s);
  if (/^-?\d+$/.test(s)) {
    value = Rational.parseDecimal(s);
    notation = "integer";
  } else if (/^-?\d*\.\d+$/.test(s)) {
    value = Rational.parseDecimal(s);
    notation = "decimal";
  } else if (fraction) {
    const [, sign, n1, n2, d1, d2] = fraction;
    const den = BigInt(d1 ?? d2!);
    if (den === 0n) return undefined;
    value = Rational.of(BigInt(n1 ?? n2!) * (sign === "-" ? -1n : 1n), den);
    notation = "fraction";
  } else if (slash) {
    if (BigInt(slash[2]!) === 0n) return undefined;
    value = Rational.of(BigInt(slash[1]!), BigInt(slash[2]!));
    notation = "fraction";
  } else if (mixed) {
    const [, whole, num, den] = mixed;
    if (BigInt(den!) === 0n || BigInt(num!) >= BigInt(den!)) return undefined;
    value = Rational.of(BigInt(whole!) * BigInt(den!) + BigInt(num!), BigInt(den!));
    notation = "mixed";
  } else {
    return undefined;
  }
  if (!value) return undefined;
  return { value, notation, decoration, grouped, padded };
}

/** The reference's decoration around `core` (the value's new spelling). */
export function decorate(core: string, d: Decoration): string {
  let s = core;
  if (d.percent) s = `${s}\\%`;
  if (d.degrees) s = `${s}^\\circ`;
  if (d.currency) s = s.startsWith("-") ? `-\\$${s.slice(1)}` : `\\$${s}`;
  return s + d.unit;
}

/** `1234567` → `1,234,567` (or with another separator). */
export function groupThousands(n: bigint, separator = ","): string {
  const sign = n < 0n ? "-" : "";
  const digits = (n < 0n ? -n : n).toString();
  return sign + digits.replace(/\B(?=(\d{3})+(?!\d))/g, separator);
}

/** `\frac{a}{b}` with the sign in front; integers as integers. */
export function latexFraction(q: Rational, command = "\\frac"): string {
  if (q.isInteger()) return q.num.toString();
  const sign = q.num < 0n ? "-" : "";
  const num = q.num < 0n ? -q.num : q.num;
  return `${sign}${command}{${num}}{${q.den}}`;
}

/** The exact decimal of a value whose denominator has no prime factor but 2 and 5, else undefined. */
export function exactDecimal(q: Rational): string | undefined {
  let den = q.den;
  let twos = 0;
  let fives = 0;
  while (den % 2n === 0n) {
    den /= 2n;
    twos++;
  }
  while (den % 5n === 0n) {
    den /= 5n;
    fives++;
  }
  if (den !== 1n) return undefined;
  const places = Math.max(twos, fives);
  if (places === 0) return q.num.toString();
  const scaled = (q.num * 10n ** BigInt(places)) / q.den;
  const sign = scaled < 0n ? "-" : "";
  const digits = (scaled < 0n ? -scaled : scaled).toString().padStart(places + 1, "0");
  return `${sign}${digits.slice(0, -places)}.${digits.slice(-places)}`;
}

/** The value rounded half-up to `places` decimals (a different number unless it terminates there). */
export function roundedDecimal(q: Rational, places: number): string {
  const scale = 10n ** BigInt(places);
  const twice = (2n * q.num * scale) / q.den;
  const rounded = twice >= 0n ? (twice + 1n) / 2n : (twice - 1n) / 2n;
  return exactDecimal(Rational.of(rounded, scale)) ?? "";
}

/** `mantissa \times 10^{k}` with an exact mantissa, or undefined when the value has no such form. */
export function scientific(q: Rational): string | undefined {
  const decimal = exactDecimal(q);
  if (decimal === undefined || q.num === 0n) return undefined;
  const sign = decimal.startsWith("-") ? "-" : "";
  const [whole = "", frac = ""] = decimal.replace("-", "").split(".");
  const digits = (whole + frac).replace(/^0+/, "");
  const exponent = whole.replace(/^0+/, "").length - 1 - (whole === "0" ? frac.search(/[1-9]/) : 0);
  const significant = digits.replace(/0+$/, "");
  if (significant.length === 0) return undefined;
  const mantissa =
    significant.length === 1 ? significant : `${significant[0]}.${significant.slice(1)}`;
  return `${sign}${mantissa} \\times 10^{${exponent}}`;
}

/** The value in the reference's own notation (what a wrong value is rendered in). */
export function inNotation(q: Rational, notation: Notation): string {
  if (q.isInteger()) return q.num.toString();
  if (notation === "decimal") return exactDecimal(q) ?? latexFraction(q);
  return latexFraction(q);
}
