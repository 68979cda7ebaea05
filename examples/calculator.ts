/**
 * The tool every framework example gives its agent: a calculator for arithmetic expressions,
 * parsed here (never `eval`), and the instructions that tell the model to use it.
 *
 * Grammar: numbers (`12`, `3.5`, `.5`), `+ - * /`, unary `+`/`-`, parentheses, spaces.
 * Precedence as in school: unary, then `* /`, then `+ -`, each left to right. Anything else — a
 * letter, `**`, an empty expression, an unclosed parenthesis, division by zero, a result that is
 * not finite — is an error naming what is wrong and where. Results are rounded to 12 significant
 * digits, so `0.1 + 0.2` is `0.3` and `10 / 4` is `2.5`.
 *
 * `calculator(expression)` is what the tools run: the result, or `error: …` as text, so that every
 * framework hands the model the same answer (frameworks differ in how they report a throwing tool).
 */

export const CALCULATOR_DESCRIPTION =
  "Evaluate an arithmetic expression with + - * / and parentheses, e.g. (48 / 2) + 48. Returns the number.";

export const INSTRUCTIONS =
  "You solve math word problems. Do every arithmetic step with the calculator tool, then give the " +
  "final answer, and nothing else, inside \\boxed{}, e.g. \\boxed{42}.";

/** The tool's body: the value of `expression`, or `error: <why>`. */
export function calculator(expression: string): string {
  try {
    return String(evaluateArithmetic(expression));
  } catch (err) {
    return `error: ${(err as Error).message}`;
  }
}

/** The value of an arithmetic expression (see the header); throws on anything else. */
export function evaluateArithmetic(expression: string): number {
  const parser = new Parser(expression);
  const value = parser.expression();
  parser.end();
  if (!Number.isFinite(value)) throw new Error(`"${expression}" has no finite value`);
  return Number(value.toPrecision(12));
}

class Parser {
  private pos = 0;
  constructor(private readonly text: string) {}

  /** sum := product (("+" | "-") product)* */
  expression(): number {
    let value = this.product();
    for (let op = this.peek(); op === "+" || op === "-"; op = this.peek()) {
      this.pos++;
      const right = this.product();
      value = op === "+" ? value + right : value - right;
    }
    return value;
  }

  /** product := unary (("*" | "/") unary)* */
  private product(): number {
    let value = this.unary();
    for (let op = this.peek(); op === "*" || op === "/"; op = this.peek()) {
      const at = this.pos++;
      const right = this.unary();
      if (op === "/" && right === 0) {
        throw new Error(`division by zero (the "/" at ${at}) in "${this.text}"`);
      }
      value = op === "*" ? value * right : value / right;
    }
    return value;
  }

  /** unary := ("+" | "-") unary | "(" sum ")" | number */
  private unary(): number {
    const c = this.peek();
    if (c === "+" || c === "-") {
      this.pos++;
      const value = this.unary();
      return c === "-" ? -value : value;
    }
    if (c === "(") {
      this.pos++;
      const value = this.expression();
      if (this.peek() !== ")") throw this.error("expected )");
      this.pos++;
      return value;
    }
    const match = /^(\d+(\.\d*)?|\.\d+)/.exec(this.text.slice(this.pos));
    if (!match) throw this.error("expected a number or (");
    this.pos += match[0].length;
    return Number(match[0]);
  }

  end(): void {
    if (this.peek() !== undefined) throw this.error("unexpected");
  }

  /** The next character that is not a space (undefined at the end); skips the spaces. */
  private peek(): string | undefined {
    while (this.text[this.pos] === " ") this.pos++;
    return this.text[this.pos];
  }

  private error(what: string): Error {
    const found = this.text[this.pos];
    return new Error(
      found === undefined
        ? `${what} at the end of "${this.text}"`
        : `${what} at ${this.pos} ("${found}") in "${this.text}"`,
    );
  }
}
