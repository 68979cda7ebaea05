/**
 * Rewriting rules for symbolic answers: polynomials with integer coefficients (`6r^2-4r-24`,
 * `p - q`, `6+9i`), equations (`y = 2x + 3`, `5x - 7y + 11z + 4 = 0`), roots (`3\sqrt{13}`,
 * `\frac{\sqrt{3}}{3}`), multiples of π, `a \pm b`, base-b numerals, text and choice answers.
 * Why each is (non-)equivalent by construction:
 *   - reordering the terms of a sum, factoring out the coefficients' gcd, writing `\cdot` or `*`
 *     for juxtaposition, swapping an equation's sides or moving a term across with its sign
 *     changed, `c\sqrt{r}` = `\sqrt{c^2 r}`, `\frac{a}{b}\pi` = `\frac{a\pi}{b}`: identities, the
 *     same expression;
 *   - changing the constant term, a coefficient's sign or an exponent, dropping a term, doubling
 *     (not a whole `... = 0` equation, which stays the same), renaming a variable of the
 *     expression, `\sqrt{r+1}`, `\sqrt{cr}` for `c\sqrt{r}` (c > 1), dropping π, another base:
 *     another expression (another value at almost every point);
 *   - `a \pm b` is the two answers `a + b, a - b`; one of them alone is not the answer.
 */
import type { Rewrite, RuleFamily } from "./rules.js";

const same = (rule: string, pred: string): Rewrite => ({ rule, equivalent: true, pred });
const differs = (rule: string, pred: string): Rewrite => ({ rule, equivalent: false, pred });

interface Term {
  coef: bigint;
  /** The variable with its power, `r^2`, or "" for the constant term. */
  monomial: string;
}

/** A sum of terms `c`, `c x`, `c x^k` with integer c and single-letter variables, or undefined. */
export function parsePolynomial(s: string): Term[] | undefined {
  const text = s.replace(/\s+/g, "");
  if (text === "" || /[^0-9a-zA-Z^{}+-]/.test(text)) return undefined;
  const term = /([+-]?)(\d*)([a-zA-Z](?:\^\{?\d+\}?)?)?/y;
  const terms: Term[] = [];
  let i = 0;
  while (i < text.length) {
    term.lastIndex = i;
    const m = term.exec(text);
    if (!m || m[0] === "" || (m[2] === "" && m[3] === undefined)) return undefined;
    if (i > 0 && m[1] === "") return undefined; // `2x3`: not a sum of our terms
    const coef = BigInt(m[2] || "1") * (m[1] === "-" ? -1n : 1n);
    terms.push({ coef, monomial: (m[3] ?? "").replace(/\^\{?(\d+)\}?/, "^{$1}") });
    i += m[0].length;
  }
  const monomials = terms.map((t) => t.monomial);
  if (new Set(monomials).size !== monomials.length) return undefined; // `x + x`: not canonical
  return terms;
}

/** Terms back to text: `6r^{2} - 4r - 24`, with `times` between coefficient and variable. */
function renderPolynomial(terms: Term[], times = ""): string {
  return terms
    .map((t, k) => {
      const abs = t.coef < 0n ? -t.coef : t.coef;
      const body =
        t.monomial === "" ? `${abs}` : abs === 1n ? t.monomial : `${abs}${times}${t.monomial}`;
      if (k === 0) return t.coef < 0n ? `-${body}` : body;
      return t.coef < 0n ? ` - ${body}` : ` + ${body}`;
    })
    .join("");
}

function gcd(a: bigint, b: bigint): bigint {
  let [x, y] = [a < 0n ? -a : a, b < 0n ? -b : b];
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
}

function polynomialRules(expr: string, wrap: (e: string) => string): Rewrite[] {
  const terms = parsePolynomial(expr);
  if (!terms || terms.every((t) => t.monomial === "")) return [];
  const complex = terms.some((t) => t.monomial === "i");
  const out: Rewrite[] = [];
  if (terms.length > 1) {
    out.push(same("terms-reordered", wrap(renderPolynomial([...terms].reverse()))));
    out.push(differs("term-dropped", wrap(renderPolynomial(terms.slice(0, -1)))));
  }
  if (!complex) {
    out.push(same("explicit-cdot", wrap(renderPolynomial(terms, " \\cdot "))));
    out.push(same("plain-star", wrap(renderPolynomial(terms, "*").replace(/\^\{(\d+)\}/g, "^$1"))));
  }
  const g = terms.reduce((acc, t) => gcd(acc, t.coef), 0n);
  if (g > 1n && terms.length > 1) {
    const inner = renderPolynomial(terms.map((t) => ({ ...t, coef: t.coef / g })));
    out.push(same("gcd-factored", wrap(`${g}(${inner})`)));
  }
  const constant = terms.findIndex((t) => t.monomial === "");
  const shifted =
    constant >= 0
      ? terms
          .map((t, k) => (k === constant ? { ...t, coef: t.coef + 1n } : t))
          .filter((t) => t.coef !== 0n)
      : [...terms, { coef: 1n, monomial: "" }];
  out.push(differs("constant-changed", wrap(renderPolynomial(shifted))));
  const firstVar = terms.findIndex((t) => t.monomial !== "");
  out.push(
    differs(
      "term-sign-flipped",
      wrap(renderPolynomial(terms.map((t, k) => (k === firstVar ? { ...t, coef: -t.coef } : t)))),
    ),
  );
  out.push(
    differs("scale-x2", wrap(renderPolynomial(terms.map((t) => ({ ...t, coef: 2n * t.coef }))))),
  );
  const top = terms.findIndex((t) => t.monomial.includes("^"));
  if (top >= 0) {
    // `x^{5}` → `x^{6}`: unless x^{6} is already a term (then the sum would not be canonical).
    const raised = terms[top]!.monomial.replace(/\^\{(\d+)\}/, (_m, k) => `^{${Number(k) + 1}}`);
    if (!terms.some((t) => t.monomial === raised))
      out.push(
        differs(
          "exponent-changed",
          wrap(renderPolynomial(terms.map((t, k) => (k === top ? { ...t, monomial: raised } : t)))),
        ),
      );
  }
  if (!complex) {
    const letters = new Set(expr.match(/[a-zA-Z]/g));
    const from = terms[firstVar]!.monomial[0]!;
    const to = ["t", "u", "w", "s", "m"].find((l) => !letters.has(l))!;
    const renamed = terms.map((t) => ({ ...t, monomial: t.monomial.replaceAll(from, to) }));
    out.push(differs("other-variable", wrap(renderPolynomial(renamed))));
  }
  return out;
}

/** `y = 2x + 3`, `5x - 7y + 11z + 4 = 0`: sides swapped, and the polynomial side rewritten. */
function equationRules(answer: string): Rewrite[] {
  const sides = answer.split("=");
  if (sides.length !== 2) return [];
  const [lhs, rhs] = sides.map((x) => x.trim()) as [string, string];
  const out: Rewrite[] = [];
  if (/^[a-zA-Z]$/.test(lhs) && rhs !== "") {
    out.push(same("sides-swapped", `${rhs} = ${lhs}`));
    if (/^-?\d+$/.test(rhs)) out.push(same("assignment-dropped", rhs));
    out.push(...polynomialRules(rhs, (e) => `${lhs} = ${e}`));
    // `y = 2x + 3` → `y - 2x = 3`: a term moved across, its sign changed.
    const terms = parsePolynomial(rhs);
    const moved = terms?.findIndex((t) => t.monomial !== "") ?? -1;
    if (terms && moved >= 0) {
      const term = renderPolynomial([{ ...terms[moved]!, coef: -terms[moved]!.coef }]);
      const rest = terms.filter((_, k) => k !== moved);
      const left = `${lhs} ${term.startsWith("-") ? `- ${term.slice(1)}` : `+ ${term}`}`;
      out.push(
        same("term-moved-across", `${left} = ${rest.length ? renderPolynomial(rest) : "0"}`),
      );
    }
  } else if (rhs === "0") {
    out.push(same("sides-swapped", `0 = ${lhs}`));
    // `5x - 7y + 11z + 4 = 0` → `5x - 7y + 11z = -4`.
    const terms = parsePolynomial(lhs);
    const constant = terms?.findIndex((t) => t.monomial === "") ?? -1;
    if (terms && constant >= 0 && terms.length > 1) {
      const rest = renderPolynomial(terms.filter((_, k) => k !== constant));
      out.push(same("term-moved-across", `${rest} = ${-terms[constant]!.coef}`));
    }
    // `10x - 14y + 22z + 8 = 0` is the same plane as `5x - 7y + 11z + 4 = 0`: not a wrong answer.
    out.push(...polynomialRules(lhs, (e) => `${e} = 0`).filter((r) => r.rule !== "scale-x2"));
  }
  return out;
}

/** `c\sqrt{r}`, `\sqrt{r}`, `-\sqrt{3}`, `11\sqrt2`. */
function rootRules(answer: string): Rewrite[] {
  const m = /^(-?)(\d*)\s*\\sqrt\s*(?:\{(\d+)\}|(\d))$/.exec(answer.trim());
  if (!m) return [];
  const sign = m[1]!;
  const c = BigInt(m[2] || "1");
  const r = BigInt(m[3] ?? m[4]!);
  const coef = c === 1n ? "" : `${c}`;
  const out = [
    same("root-plain-text", `${sign}${coef ? `${coef}*` : ""}sqrt(${r})`),
    same("root-braced-cdot", `${sign}${coef ? `${coef} \\cdot ` : ""}\\sqrt{${r}}`),
    differs("radicand-changed", `${sign}${coef}\\sqrt{${r + 1n}}`),
    differs("root-coefficient-changed", `${sign}${c + 1n}\\sqrt{${r}}`),
  ];
  if (c > 1n) {
    out.push(same("root-merged", `${sign}\\sqrt{${c * c * r}}`));
    out.push(same("root-merged-plain-text", `${sign}sqrt(${c * c * r})`));
    out.push(differs("coefficient-inside-root", `${sign}\\sqrt{${c * r}}`));
  }
  if (sign === "") out.push(differs("wrong-sign", `-${coef}\\sqrt{${r}}`));
  const value = (sign ? -1 : 1) * Number(c) * Math.sqrt(Number(r));
  out.push(differs("root-approximated", approximate(value)));
  return out;
}

/**
 * An irrational value rounded to 2 decimals: close, but another number. (A root or a multiple of
 * π is irrational, so no 2-decimal number equals it.)
 */
function approximate(value: number): string {
  return value.toFixed(2);
}

/** `\frac{c\sqrt{r}}{d}`. */
function rootFractionRules(answer: string): Rewrite[] {
  const m = /^\\[dt]?frac\{(\d*)\s*\\sqrt\{(\d+)\}\}\{(\d+)\}$/.exec(answer.trim());
  if (!m) return [];
  const c = BigInt(m[1] || "1");
  const r = BigInt(m[2]!);
  const d = BigInt(m[3]!);
  const coef = c === 1n ? "" : `${c}`;
  // c√r/d = cr/(d√r)
  const g = gcd(c * r, d);
  const den = d / g === 1n ? "" : `${d / g}`;
  return [
    same("root-fraction-split", `\\frac{${c}}{${d}}\\sqrt{${r}}`),
    same("root-over-slash", `${coef}\\sqrt{${r}}/${d}`),
    same("root-rationalised-inverse", `\\frac{${(c * r) / g}}{${den}\\sqrt{${r}}}`),
    differs("other-denominator", `\\frac{${coef}\\sqrt{${r}}}{${d + 1n}}`),
    differs("radicand-changed", `\\frac{${coef}\\sqrt{${r + 1n}}}{${d}}`),
  ];
}

/** `\pi`, `12\pi`, `-\frac{\pi}{6}`, `\frac{5\pi}{4}`. */
function piRules(answer: string): Rewrite[] {
  const s = answer.trim();
  const whole = /^(-?)(\d*)\s*\\pi$/.exec(s);
  const frac = /^(-?)\\[dt]?frac\{(\d*)\s*\\pi\}\{(\d+)\}$/.exec(s);
  if (whole) {
    const [, sign, c = ""] = whole;
    const k = BigInt(c || "1");
    return [
      same("pi-cdot", `${sign}${c ? `${c} \\cdot ` : ""}\\pi`),
      differs("pi-dropped", `${sign}${k}`),
      differs("pi-coefficient-changed", `${sign}${k + 1n}\\pi`),
      differs("pi-approximated", approximate((sign ? -1 : 1) * Number(k) * Math.PI)),
    ];
  }
  if (frac) {
    const [, sign, c = "", d = ""] = frac;
    const k = BigInt(c || "1");
    return [
      same("pi-fraction-split", `${sign}\\frac{${k}}{${d}}\\pi`),
      same("pi-over-slash", `${sign}${c}\\pi/${d}`),
      differs("pi-dropped", `${sign}\\frac{${k}}{${d}}`),
      differs("other-denominator", `${sign}\\frac{${c}\\pi}{${BigInt(d) + 1n}}`),
      differs("wrong-sign", `${sign === "-" ? "" : "-"}\\frac{${c}\\pi}{${d}}`),
      differs("pi-approximated", approximate(((sign ? -1 : 1) * Number(k) * Math.PI) / Number(d))),
    ];
  }
  return [];
}

/** `3 \pm 2 \sqrt{2}`: both answers listed is the same; one of them is not. */
function plusMinusRules(answer: string): Rewrite[] {
  const m = /^([^\\]+?)\s*\\pm\s*(.+)$/.exec(answer.trim());
  if (!m) return [];
  const [, a, b] = m;
  return [same("pm-expanded", `${a} + ${b}, ${a} - ${b}`), differs("pm-one-root", `${a} + ${b}`)];
}

/** `2516_8`, `4210_{5}`: the subscript braced or not; the last digit changed. */
function baseRules(answer: string): Rewrite[] {
  const m = /^(\d+)_\{?(\d+)\}?$/.exec(answer.trim());
  if (!m) return [];
  const [, digits = "", base = ""] = m;
  const last = Number(digits.at(-1));
  const changed = last + 1 < Number(base) ? last + 1 : last - 1;
  const braced = answer.includes("{");
  return [
    same(
      braced ? "base-unbraced" : "base-braced",
      braced ? `${digits}_${base}` : `${digits}_{${base}}`,
    ),
    differs("base-digit-changed", `${digits.slice(0, -1)}${changed}_{${base}}`),
    differs("base-changed", `${digits}_{${Number(base) + 1}}`),
  ];
}

/** `\text{(C)}` and `\text{Navin}`. */
function textRules(answer: string): Rewrite[] {
  const m = /^\\text\{\s*([^{}]+?)\s*\}$/.exec(answer.trim());
  if (!m) return [];
  const word = m[1]!;
  const choice = /^\(([A-E])\)$/.exec(word);
  if (choice) {
    const other = choice[1] === "E" ? "D" : String.fromCharCode(choice[1]!.charCodeAt(0) + 1);
    return [
      same("choice-letter", choice[1]!),
      same("choice-parenthesised", `(${choice[1]})`),
      differs("other-choice", `\\text{(${other})}`),
    ];
  }
  const other = ["odd", "west", "Alice", "circle"].find(
    (w) => w.toLowerCase() !== word.toLowerCase(),
  )!;
  return [
    same("text-unwrapped", word),
    same("text-bold", `\\textbf{${word}}`),
    differs("other-word", `\\text{${other}}`),
  ];
}

/** The sum's terms at top level with their signs: `18+2\pi` → `18`, `+2\pi`. */
function signedTerms(s: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if ("([{".includes(c)) depth++;
    else if (")]}".includes(c)) depth--;
    else if (depth === 0 && (c === "+" || c === "-") && /[\w})\]]\s*$/.test(s.slice(0, i))) {
      terms.push(s.slice(start, i).trim());
      start = i;
    }
  }
  terms.push(s.slice(start).trim());
  return terms;
}

/** `18+2\pi`, `1+2\sqrt{3}`: the terms of a sum in reverse order (addition commutes). */
function sumRules(answer: string): Rewrite[] {
  if (/[=,&]|\\pm|\\cup|\\in(?![a-z])|\\text|\\begin|_/.test(answer) || parsePolynomial(answer))
    return [];
  const terms = signedTerms(answer.trim());
  if (terms.length < 2) return [];
  const reversed = [...terms].reverse().map((t) => (/^[+-]/.test(t) ? t : `+${t}`));
  const text = reversed
    .join(" ")
    .replace(/^\+/, "")
    .replace(/ ([+-])/g, " $1 ");
  return [same("terms-reordered", text.replace(/^- /, "-").trim())];
}

/** `(a+5)(b+2)`: the factors swapped, and the product expanded. */
function binomialProductRules(answer: string): Rewrite[] {
  const m = /^\(([a-z])\s*([+-])\s*(\d+)\)\s*\(([a-z])\s*([+-])\s*(\d+)\)$/.exec(answer.trim());
  if (!m) return [];
  const [, x, sx, a, y, sy, b] = m as unknown as string[];
  const p = BigInt(`${sx}${a}`);
  const q = BigInt(`${sy}${b}`);
  const term = (c: bigint, v: string) => (c < 0n ? ` - ${-c}${v}` : ` + ${c}${v}`);
  return [
    same("factors-swapped", `(${y}${sy}${b})(${x}${sx}${a})`),
    same("product-expanded", `${x}${y}${term(q, x!)}${term(p, y!)}${term(p * q, "")}`),
    differs("product-expanded-wrong", `${x}${y}${term(p, x!)}${term(q, y!)}${term(p * q, "")}`),
  ];
}

export const expressionRules: RuleFamily = (gold) => {
  const a = gold.answer;
  if (gold.dataset !== "math500") return [];
  return [
    ...sumRules(a),
    ...binomialProductRules(a),
    ...(a.includes("=") ? equationRules(a) : polynomialRules(a, (e) => e)),
    ...rootRules(a),
    ...rootFractionRules(a),
    ...piRules(a),
    ...plusMinusRules(a),
    ...baseRules(a),
    ...textRules(a),
  ];
};
