/**
 * Rewriting rules for numeric answers and for any answer's presentation. Each family takes a
 * reference answer and returns every rewriting it can make, each marked equivalent or not BY
 * CONSTRUCTION: numeric ones by exact arithmetic on the parsed value (numbers.ts), presentation
 * ones because they change only what surrounds the answer or a LaTeX spelling with one meaning
 * (`\dfrac` and `\frac`, `\left(` and `(`). A family returns [] for answers it does not cover.
 */
import { Rational } from "../../src/rewards/rational.js";
import {
  decorate,
  exactDecimal,
  groupThousands,
  inNotation,
  latexFraction,
  type NumericAnswer,
  parseNumeric,
  roundedDecimal,
  scientific,
} from "./numbers.js";
import type { Dataset } from "./references.js";

export interface Gold {
  answer: string;
  dataset: Dataset;
  problem: string;
}

export interface Rewrite {
  rule: string;
  equivalent: boolean;
  /** The answer as the prediction writes it. */
  pred: string;
  /** The whole response, where the rule is about the response; else the standard one. */
  response?: string;
}

export type RuleFamily = (gold: Gold) => Rewrite[];

const same = (rule: string, pred: string): Rewrite => ({ rule, equivalent: true, pred });
const differs = (rule: string, pred: string): Rewrite => ({ rule, equivalent: false, pred });

function lastSentence(text: string): string {
  return (
    text
      .trim()
      .split(/(?<=[.!?])\s+/)
      .at(-1) ?? ""
  );
}

/** The question's last sentence asks for a percentage ("What percent of ...?"). */
function asksPercent(problem: string): boolean {
  const percent = /\bwhat(?:'s| is)?(?: the)? percent(?:age)?\b|expressed as a percentage/i;
  return percent.test(lastSentence(problem));
}

/**
 * The question asks for an amount of money in dollars, so `\$18` and `18 dollars` say the same:
 * its text has `$`, its last sentence is about money and asks neither "how many" nor for cents.
 */
function asksMoney(problem: string): boolean {
  const last = lastSentence(problem);
  const money =
    /\b(?:dollars?|money|costs?|spen[dt]|pa(?:y|id)|earn(?:s|ed)?|make|makes|made|profit|save[sd]?|price|worth|revenue|income|budget|sales|sell|charge[sd]?|owes?|tip)\b|\$/i;
  return problem.includes("$") && money.test(last) && !/\bhow many\b|\bcents?\b/i.test(last);
}

/** Another unit of the same kind: the same number of it is another quantity. */
const OTHER_UNIT: Record<string, string> = {
  cents: "dollars",
  inches: "feet",
  cm: "m",
  degrees: "radians",
};

/** Rewritings of a number: other spellings of its value, and other values. */
export const numericRules: RuleFamily = (gold) => {
  const n = parseNumeric(gold.answer);
  return n ? [...sameValue(gold, n), ...otherValue(gold, n)] : [];
};

/** Other spellings of the reference's value. */
function sameValue(gold: Gold, n: NumericAnswer): Rewrite[] {
  const q = n.value;
  const d = n.decoration;
  const out: Rewrite[] = [];
  const plain = inNotation(q, n.notation === "mixed" ? "fraction" : n.notation);
  const decorated = d.currency || d.degrees || d.percent || d.unit !== "";

  // The same value.
  if (decorated && !d.percent) out.push(same("drop-decoration", plain));
  if (n.grouped || n.padded) out.push(same("plain-digits", decorate(plain, d)));
  if (q.isInteger()) {
    const abs = q.num < 0n ? -q.num : q.num;
    if (abs >= 1000n && !n.grouped) {
      out.push(same("thousands-comma", decorate(groupThousands(q.num), d)));
      out.push(same("thousands-thin-space", decorate(groupThousands(q.num, "\\,"), d)));
    }
    if (!decorated) out.push(same("text-wrapped", `\\text{${plain}}`));
    out.push(same("trailing-zero-decimal", decorate(`${q.num}.${d.currency ? "00" : "0"}`, d)));
    if (abs >= 1000n && abs % 1000n === 0n) out.push(same("scientific", scientific(q)!));
    if (d.degrees) {
      out.push(same("degree-sign", `${plain}°`));
      out.push(same("degree-braced", `${plain}^{\\circ}`));
    }
    if (gold.dataset.startsWith("aime") && !n.padded && abs < 100n)
      out.push(same("zero-padded", q.num.toString().padStart(3, "0")));
    if (gold.dataset === "gsm8k" && asksMoney(gold.problem) && !d.currency) {
      out.push(same("currency-sign", decorate(plain, { ...d, currency: true })));
      out.push(same("unit-words", `${plain} \\text{ dollars}`));
      if (abs >= 1000n) out.push(same("currency-grouped", `\\$${groupThousands(q.num)}`));
    }
    // GSM8K's "What percentage of ...?" is answered by the number of percent: 25 is 25%.
    if (gold.dataset === "gsm8k" && asksPercent(gold.problem))
      out.push(same("percent-sign", `${plain}\\%`));
  } else {
    const decimal = exactDecimal(q);
    if (n.notation !== "decimal") {
      out.push(same("slash-fraction", decorate(`${q.num}/${q.den}`, d)));
      out.push(same("dfrac", decorate(latexFraction(q, "\\dfrac"), d)));
      out.push(same("unreduced-fraction", decorate(`\\frac{${2n * q.num}}{${2n * q.den}}`, d)));
      if (q.num < 0n) out.push(same("signed-numerator", decorate(`\\frac{${q.num}}{${q.den}}`, d)));
      if (decimal !== undefined) out.push(same("fraction-as-decimal", decorate(decimal, d)));
      // MATH's mixed numbers: `3\frac{1}{2}` and `3 1/2` are 7/2.
      const whole = q.num / q.den;
      if (q.num > q.den && n.notation === "fraction") {
        const rest = q.sub(Rational.of(whole));
        out.push(same("as-mixed-number", decorate(`${whole}\\frac{${rest.num}}{${rest.den}}`, d)));
        out.push(
          same("as-mixed-number-plain-text", decorate(`${whole} ${rest.num}/${rest.den}`, d)),
        );
      }
      if (n.notation === "mixed") {
        out.push(same("mixed-as-improper", decorate(plain, d)));
        const fraction = q.sub(Rational.of(q.num / q.den));
        out.push(differs("mixed-whole-dropped", decorate(latexFraction(fraction), d)));
      }
    } else {
      out.push(same("decimal-as-fraction", decorate(latexFraction(q), d)));
      out.push(same("trailing-zero-decimal", decorate(`${decimal}0`, d)));
      if (/^-?\./.test(gold.answer.trim()))
        out.push(same("leading-zero", decorate(decimal!.replace(/^(-?)\./, "$10."), d)));
      const sci = scientific(q);
      if (sci && (q.toNumber() < 0.01 || q.toNumber() > 1000)) out.push(same("scientific", sci));
    }
  }
  if (!decorated) out.push(same("variable-prefix", `x = ${gold.answer}`));
  return out;
}

/** Other values (and the same number of another unit), in the reference's notation. */
function otherValue(gold: Gold, n: NumericAnswer): Rewrite[] {
  const q = n.value;
  const d = n.decoration;
  const out: Rewrite[] = [];
  const unitWord = /\{\s*([a-z]+)/.exec(d.unit)?.[1];
  const otherUnit = unitWord === undefined ? undefined : OTHER_UNIT[unitWord];
  if (otherUnit)
    out.push(
      differs("unit-changed", gold.answer.replace(new RegExp(`\\b${unitWord}\\b`), otherUnit)),
    );

  const render = (v: Rational) => decorate(inNotation(v, n.notation), d);
  out.push(differs("off-by-one", render(q.add(Rational.fromInt(1)))));
  if (q.num !== 0n) {
    out.push(differs("wrong-sign", render(q.neg())));
    out.push(differs("scale-x2", render(q.mul(Rational.fromInt(2)))));
  }
  if (!q.isInteger()) {
    out.push(differs("reciprocal", decorate(latexFraction(Rational.of(q.den, q.num)), d)));
    out.push(
      differs("other-denominator", decorate(latexFraction(Rational.of(q.num, q.den + 1n)), d)),
    );
    const rounded = roundedDecimal(q, 2);
    if (exactDecimal(q) === undefined && Number(rounded) !== 0)
      out.push(differs("rounded-decimal", rounded));
  } else if (q.num >= 10n || q.num <= -10n) {
    out.push(differs("dropped-digit", decorate((q.num / 10n).toString(), d)));
  }
  if (q.isInteger() && (q.num >= 1000n || q.num <= -1000n)) {
    // `2,125` read with a decimal comma is 2.125: a different number from 2125.
    const grouped = groupThousands(q.num);
    const firstComma = grouped.indexOf(",");
    const asDecimal =
      grouped.slice(0, firstComma) + "." + grouped.slice(firstComma + 1).replace(/,/g, "");
    out.push(differs("separator-as-decimal-point", asDecimal));
  }
  return out;
}

/** The standard response around a prediction: the answer boxed at the end of a sentence. */
export const wrapResponse = (pred: string) => `The final answer is $\\boxed{${pred}}$.`;

/**
 * The same answer presented as models present it, and spelled with LaTeX synonyms. The last
 * "non-equivalent" one boxes the reference early and a different answer last: the final box counts.
 */
export const presentationRules: RuleFamily = (gold) => {
  const a = gold.answer;
  const out: Rewrite[] = [
    {
      rule: "response-with-working",
      equivalent: true,
      pred: a,
      response:
        "We set up the problem and simplify step by step; the intermediate results are $3$ and " +
        `$\\frac{1}{2}$.\n\nTherefore, the answer is $\\boxed{${a}}$.`,
    },
    {
      rule: "display-math-box",
      equivalent: true,
      pred: a,
      response: `So\n\\[\n\\boxed{${a}}\n\\]`,
    },
    { rule: "answer-is-inline", equivalent: true, pred: a, response: `The answer is $${a}$.` },
    {
      rule: "minerva-final-answer",
      equivalent: true,
      pred: a,
      response: `Final Answer: The final answer is $${a}$. I hope it is correct.`,
    },
  ];
  if (gold.dataset === "gsm8k")
    out.push({
      rule: "gsm8k-hashes",
      equivalent: true,
      pred: a,
      response: `3 + 4 = 7 apples.\n#### ${a}`,
    });
  if (/\\frac(?![a-zA-Z])/.test(a))
    out.push(same("frac-to-dfrac", a.replace(/\\frac(?![a-zA-Z])/g, "\\dfrac")));
  if (/\\dfrac(?![a-zA-Z])/.test(a))
    out.push(same("dfrac-to-frac", a.replace(/\\dfrac(?![a-zA-Z])/g, "\\frac")));
  if (/\\left|\\right/.test(a))
    out.push(same("drop-left-right", a.replace(/\\left|\\right/g, "").replace(/\s+/g, " ")));
  if (gold.dataset === "math500") out.push(same("displaystyle", `\\displaystyle ${a}`));
  return out.filter((r) => r.response !== undefined || r.pred !== a);
};

/** A response that boxes the reference while working and a wrong value as its final answer. */
export function revisedResponse(gold: string, wrong: string): Rewrite {
  return {
    rule: "reference-then-revised",
    equivalent: false,
    pred: wrong,
    response: `At first this looks like $\\boxed{${gold}}$, but that misses a case.\n\nThe final answer is $\\boxed{${wrong}}$.`,
  };
}
