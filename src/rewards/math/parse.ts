/**
 * LaTeX (or plain-text) math expression → expression tree, for the math grader's comparisons.
 *
 * Reads the text normalize.ts produced (one spelling per command, spaces gone except after a
 * command name). Covers what final answers use: numbers (decimal literals are marked `float`, as
 * Math-Verify keeps sympy Floats apart from Rationals), `+ - * / ^`, `\cdot \times \div`, implicit
 * products (`2x`, `3\sqrt{2}`, `xy`, `(x+1)(x-1)`), ratios (`7:32` is 7/32), mixed numbers (`2\frac{1}{2}` is 5/2),
 * `\frac \sqrt \binom`, `\sin^2x`, `\log_2 8`, `|x|`, `n!`, `X\%` (a percent node), variables
 * (letters, Greek commands, subscripts `x_1`), and the constants `\pi`, `e`, `i`, `\infty`.
 *
 * Anything else (`\pm`, words, an unknown command, unbalanced brackets) is a ParseError: the caller
 * then compares text, which can only cost a match, never invent one. Nesting deeper than
 * MAX_NESTING is refused so recursion stays far from the stack limit.
 */
import { Rational } from "../rational.js";

export type BinaryOp = "+" | "-" | "*" | "/" | "^";

export type Node =
  | { k: "num"; value: Rational; float: boolean }
  | { k: "var"; name: string }
  | { k: "const"; name: "pi" | "e" | "i" | "inf" }
  | { k: "op"; op: BinaryOp; a: Node; b: Node }
  | { k: "neg"; a: Node }
  | { k: "pct"; a: Node }
  | { k: "fn"; name: string; args: Node[] };

export class ParseError extends Error {}

/** Functions written as commands, applied to the argument that follows (`\sin x`, `\ln(2)`). */
const FUNCTIONS = new Set([
  "sin",
  "cos",
  "tan",
  "sec",
  "csc",
  "cot",
  "arcsin",
  "arccos",
  "arctan",
  "sinh",
  "cosh",
  "tanh",
  "ln",
  "log",
  "exp",
]);

const GREEK = new Set(
  "alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi rho sigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Sigma Upsilon Phi Psi Omega".split(
    " ",
  ),
);

/** Commands that start a value, so `2\sqrt{3}` and `3\pi` are products. */
const ATOM_COMMANDS = new Set([
  "pi",
  "infty",
  "imath",
  "frac",
  "binom",
  "sqrt",
  "left",
  "lfloor",
  "lceil",
]);

const MAX_NESTING = 120;

type Token =
  | { t: "num"; text: string }
  | { t: "cmd"; name: string }
  | { t: "letter"; text: string }
  | { t: "sym"; text: string };

/** `1.5e3` is scientific notation only with digits on both sides of the `e`. */
const NUMBER = /^(?:\d+(?:\.\d+)?(?:[eE][+-]?\d+(?![\d.]))?|\.\d+)/;

function tokenize(s: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < s.length) {
    const rest = s.slice(i, i + 64);
    const num = NUMBER.exec(rest);
    if (num) {
      tokens.push({ t: "num", text: num[0] });
      i += num[0].length;
      continue;
    }
    const c = s[i]!;
    if (c === "\\") {
      const cmd = /^\\([a-zA-Z]+) ?/.exec(rest);
      if (cmd) {
        tokens.push({ t: "cmd", name: cmd[1]! });
        i += cmd[0].length;
      } else if (s[i + 1] === "%" || s[i + 1] === "{" || s[i + 1] === "}" || s[i + 1] === "|") {
        tokens.push({ t: "sym", text: s[i + 1] === "%" ? "%" : `\\${s[i + 1]}` });
        i += 2;
      } else throw new ParseError(`unsupported escape ${s.slice(i, i + 2)}`);
      continue;
    }
    if (/[a-zA-Z]/.test(c)) tokens.push({ t: "letter", text: c });
    else if ("+-*/^()[]{}|!_%':".includes(c)) tokens.push({ t: "sym", text: c });
    else if (c !== " ") throw new ParseError(`unsupported character ${c}`);
    i++;
  }
  return tokens;
}

const num = (value: Rational, float = false): Node => ({ k: "num", value, float });
const op = (o: BinaryOp, a: Node, b: Node): Node => ({ k: "op", op: o, a, b });
const ONE = num(Rational.fromInt(1));

class Parser {
  private pos = 0;
  private depth = 0;

  constructor(private readonly tokens: Token[]) {}

  parseAll(): Node {
    const node = this.expr();
    if (this.pos !== this.tokens.length) throw new ParseError("trailing input");
    return node;
  }

  private peek(offset = 0): Token | undefined {
    return this.tokens[this.pos + offset];
  }

  private isSym(text: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t?.t === "sym" && t.text === text;
  }

  private isCmd(...names: string[]): boolean {
    const t = this.peek();
    return t?.t === "cmd" && names.includes(t.name);
  }

  private expect(text: string): void {
    if (!this.isSym(text)) throw new ParseError(`expected ${text}`);
    this.pos++;
  }

  private enter(): void {
    if (++this.depth > MAX_NESTING) throw new ParseError("nested too deeply");
  }

  // expr := term (("+" | "-") term)*
  private expr(): Node {
    this.enter();
    let node = this.term();
    while (this.isSym("+") || this.isSym("-")) {
      const o = (this.tokens[this.pos++] as { text: BinaryOp }).text;
      node = op(o, node, this.term());
    }
    this.depth--;
    return node;
  }

  // term := unary (("*" | \cdot | \times | "/" | \div) unary | implicit-product unary)*
  private term(): Node {
    let node = this.unary();
    for (;;) {
      if (this.isSym("*") || this.isCmd("cdot", "times", "ast")) {
        this.pos++;
        node = op("*", node, this.unary());
      } else if (this.isSym("/") || this.isSym(":") || this.isCmd("div")) {
        this.pos++;
        node = op("/", node, this.unary());
      } else if (this.startsAtom()) node = op("*", node, this.postfix());
      else return node;
    }
  }

  private startsAtom(): boolean {
    const t = this.peek();
    if (!t) return false;
    if (t.t === "num" || t.t === "letter") return true;
    if (t.t === "cmd")
      return ATOM_COMMANDS.has(t.name) || GREEK.has(t.name) || FUNCTIONS.has(t.name);
    // Not `|`: in `2|x|` the second bar would start another product.
    return t.text === "(" || t.text === "{";
  }

  // unary := ("-" | "+") unary | postfix      (-2^2 is -(2^2))
  private unary(): Node {
    if (this.isSym("-") || this.isSym("+")) {
      const minus = this.isSym("-");
      this.pos++;
      this.enter();
      const operand = this.unary();
      this.depth--;
      return minus ? { k: "neg", a: operand } : operand;
    }
    return this.postfix();
  }

  // postfix := power ("!" | "%")*
  private postfix(): Node {
    let node = this.power();
    for (;;) {
      if (this.isSym("!")) {
        this.pos++;
        node = { k: "fn", name: "factorial", args: [node] };
      } else if (this.isSym("%")) {
        this.pos++;
        node = { k: "pct", a: node };
      } else return node;
    }
  }

  // power := atom ("^" exponent)?   exponent := "-"? atom | group
  private power(): Node {
    const base = this.atom();
    if (!this.isSym("^")) return base;
    this.pos++;
    return op("^", base, this.exponent());
  }

  private exponent(): Node {
    if (this.isSym("-") || this.isSym("+")) {
      const minus = this.isSym("-");
      this.pos++;
      const e = this.exponent();
      return minus ? { k: "neg", a: e } : e;
    }
    this.enter();
    const e = this.atom();
    this.depth--;
    return e;
  }

  /** TeX's `\log_28` is base 2 of 8: an unbraced subscript is one character. */
  private splitDigit(): void {
    const t = this.peek();
    if (t?.t === "num" && /^\d{2,}$/.test(t.text)) {
      this.tokens.splice(
        this.pos,
        1,
        { t: "num", text: t.text[0]! },
        { t: "num", text: t.text.slice(1) },
      );
    }
  }

  private group(): Node {
    this.expect("{");
    const node = this.expr();
    this.expect("}");
    return node;
  }

  private atom(): Node {
    const t = this.peek();
    if (!t) throw new ParseError("unexpected end");
    this.pos++;
    if (t.t === "num") return this.number(t.text);
    if (t.t === "letter") return this.letter(t.text);
    if (t.t === "cmd") return this.command(t.name);
    if (t.text === "(" || t.text === "{") {
      const node = this.expr();
      this.expect(t.text === "(" ? ")" : "}");
      return node;
    }
    if (t.text === "|") {
      const node = this.expr();
      this.expect("|");
      return { k: "fn", name: "abs", args: [node] };
    }
    throw new ParseError(`unexpected ${t.text}`);
  }

  private number(text: string): Node {
    const scientific = /^([\d.]+)[eE]([+-]?\d+)$/.exec(text);
    if (scientific) {
      const exponent = Number(scientific[2]);
      if (Math.abs(exponent) > 400) throw new ParseError("exponent out of range");
      const scale = Rational.of(10n ** BigInt(Math.abs(exponent)));
      const mantissa = Rational.parseDecimal(scientific[1]!)!;
      return num(exponent >= 0 ? mantissa.mul(scale) : mantissa.div(scale)!, true);
    }
    const n = num(Rational.parseDecimal(text)!, text.includes("."));
    // MATH writes mixed numbers as `2\frac{1}{2}` (= 5/2): an integer directly followed by a
    // fraction of two integer literals. `2\frac{\pi}{3}` stays a product.
    if (/^\d+$/.test(text) && this.isCmd("frac")) {
      const [, o1, a, c1, o2, b, c2] = this.tokens.slice(this.pos, this.pos + 7);
      const isInt = (x: Token | undefined) => x?.t === "num" && /^\d+$/.test(x.text);
      const isSym = (x: Token | undefined, s: string) => x?.t === "sym" && x.text === s;
      if (isSym(o1, "{") && isInt(a) && isSym(c1, "}") && isSym(o2, "{") && isInt(b)) {
        if (isSym(c2, "}")) {
          this.pos++;
          const fraction = op("/", this.group(), this.group());
          return op("+", n, fraction);
        }
      }
    }
    return n;
  }

  private letter(text: string): Node {
    if (text === "e" && !this.isSym("_")) return { k: "const", name: "e" };
    if (text === "i" && !this.isSym("_")) return { k: "const", name: "i" };
    return this.variable(text);
  }

  /** A variable, with its subscript as part of its name: `x_1`, `a_{n+1}`, `x'`. */
  private variable(name: string): Node {
    let full = name;
    while (this.isSym("'")) {
      this.pos++;
      full += "'";
    }
    if (this.isSym("_")) {
      this.pos++;
      const start = this.pos;
      this.atom();
      const subscript = this.tokens.slice(start, this.pos);
      full += `_${subscript.map((t) => (t.t === "cmd" ? `\\${t.name}` : t.text)).join("")}`;
    }
    return { k: "var", name: full };
  }

  private command(name: string): Node {
    if (name === "pi") return { k: "const", name: "pi" };
    if (name === "infty" || name === "infin") return { k: "const", name: "inf" };
    if (name === "imath") return { k: "const", name: "i" };
    if (GREEK.has(name)) return this.variable(`\\${name}`);
    if (name === "frac") return op("/", this.group(), this.group());
    if (name === "binom") return { k: "fn", name: "binom", args: [this.group(), this.group()] };
    if (name === "sqrt") return this.sqrt();
    if (name === "left") return this.leftRight();
    if (name === "lfloor" || name === "lceil") {
      const node = this.expr();
      if (!this.isCmd(name === "lfloor" ? "rfloor" : "rceil")) throw new ParseError("unclosed");
      this.pos++;
      return { k: "fn", name: name === "lfloor" ? "floor" : "ceil", args: [node] };
    }
    if (FUNCTIONS.has(name)) return this.application(name);
    throw new ParseError(`unsupported command \\${name}`);
  }

  private sqrt(): Node {
    let index: Node | undefined;
    if (this.isSym("[")) {
      this.pos++;
      index = this.expr();
      this.expect("]");
    }
    const radicand = this.isSym("{") ? this.group() : this.atom();
    return index
      ? op("^", radicand, op("/", ONE, index))
      : { k: "fn", name: "sqrt", args: [radicand] };
  }

  /** `\left( ... \right)` and `\left| ... \right|` (normalize.ts usually removed these already). */
  private leftRight(): Node {
    const open = this.peek();
    if (open?.t !== "sym" || !["(", "|", "["].includes(open.text)) throw new ParseError("\\left");
    this.pos++;
    const node = this.expr();
    if (!this.isCmd("right")) throw new ParseError("unclosed \\left");
    this.pos++;
    this.pos++; // the closing delimiter
    return open.text === "|" ? { k: "fn", name: "abs", args: [node] } : node;
  }

  /**
   * `\sin x`, `\sin(2x)`, `\sin^2 x` (the power applies to the value), `\log_2 8`. Without
   * parentheses the argument is the implicit product that follows, up to the next operator or
   * function: `\sin 2x` is sin(2x), `\sin x\cos x` is sin(x)·cos(x).
   */
  private application(name: string): Node {
    let power: Node | undefined;
    let base: Node | undefined;
    for (let k = 0; k < 2; k++) {
      if (this.isSym("^") && !power) {
        this.pos++;
        power = this.exponent();
      } else if (this.isSym("_") && name === "log" && !base) {
        this.pos++;
        this.splitDigit();
        base = this.isSym("{") ? this.group() : this.atom();
      }
    }
    let arg: Node;
    if (this.isSym("(")) arg = this.atom();
    else {
      this.enter();
      arg = this.power();
      while (this.startsAtom() && !this.isCmd(...FUNCTIONS)) arg = op("*", arg, this.power());
      this.depth--;
    }
    let node: Node = { k: "fn", name, args: base ? [arg, base] : [arg] };
    // `\sin^{-1}x` is arcsin, as everywhere in school mathematics.
    if (power?.k === "neg" && power.a.k === "num" && power.a.value.equals(Rational.fromInt(1))) {
      if (["sin", "cos", "tan"].includes(name)) return { k: "fn", name: `arc${name}`, args: [arg] };
    }
    if (power) node = op("^", node, power);
    return node;
  }
}

/** The tree of `text`; throws ParseError when the text is not an expression this reads. */
export function parseExpression(text: string): Node {
  const tokens = tokenize(text);
  if (tokens.length === 0) throw new ParseError("empty");
  return new Parser(tokens).parseAll();
}

/** The variables of a tree, by name. */
export function variablesOf(node: Node, into = new Set<string>()): Set<string> {
  if (node.k === "var") into.add(node.name);
  else if (node.k === "op") {
    variablesOf(node.a, into);
    variablesOf(node.b, into);
  } else if (node.k === "neg" || node.k === "pct") variablesOf(node.a, into);
  else if (node.k === "fn") for (const a of node.args) variablesOf(a, into);
  return into;
}
