/**
 * Reading a prompt-mode model's function calls, `[f(a=1, b='x'), pkg.g(c=[1, 2.5])]`, as BFCL does
 * (gorilla: berkeley-function-call-leaderboard/bfcl_eval/model_handler/utils.py,
 * `default_decode_ast_prompting`, `ast_parse`, `resolve_ast_call`, `resolve_ast_by_type`), with a
 * tokenizer (tokenize.ts) and a recursive-descent parser for the Python expressions involved;
 * nothing is evaluated by an interpreter.
 *
 * The text decoded:
 * 1. the content of the response's last fenced code block when it has one (a step of ours: BFCL's
 *    prompt handlers that see fences strip them first), else the whole response, CRLF read as LF;
 * 2. backticks, newlines and spaces stripped from both ends, then `[` prepended and `]` appended
 *    where missing (so a bare `f(a=1)` or `f(a=1), g(b=2)` is a list of calls);
 * 3. parsed as one Python expression, which must be a list of calls (or one call). A call's
 *    callee is a dotted name (`math.factorial`); its keyword arguments are its parameters;
 *    positional arguments are parsed and dropped, as BFCL drops them (`f(5)` then misses its
 *    required parameter).
 *
 * Argument values, as BFCL resolves them: literals (str with r/u prefixes, escapes and adjacent
 * concatenation; int in any base; float; True/False/None; `...` as the string "..."), lists,
 * tuples, dicts, a bare name as its own string (`unit=meters` is "meters"), unary minus on a
 * number literal (BFCL negates the literal: `-x` and `-(1 + 2)` fail there too), and the
 * arithmetic BFCL hands to `eval`: + - * / // % ** on numbers, `+` joining two strs, lists or
 * tuples, `*` repeating one. A repeated keyword or dict key keeps its last value.
 * Refused, each with a reason naming what and where: a call as a value (BFCL turns `g()` into the
 * string "g()" and `g(x=1)` into a dict; a value that is itself a call is not an answer here),
 * attributes (`math.pi`, which BFCL fails on too), subscripts (BFCL: their source text), sets,
 * comprehensions, lambdas, conditionals, comparisons and boolean operators, unary plus and `~`
 * (BFCL reads `+5` as -5), bytes and complex literals, f-strings, `**kwargs`, and any other syntax
 * error. Nesting deeper than 100 levels is refused rather than overflowing the stack.
 */
import { extractProgram } from "../code-task.js";
import { BfclSyntaxError, type Token, tokenize } from "./tokenize.js";
import { type PyVal, pyEq, pyList, pyNone, pyStr, pyType } from "./value.js";

/** One decoded call: BFCL's `{name: {param: value}}`, arguments in the order written. */
export interface BfclCall {
  name: string;
  args: [string, PyVal][];
}

type BfclParse =
  | { ok: true; calls: BfclCall[]; text: string }
  | { ok: false; error: string; text: string };

/** Steps 1 and 2 of the header: the text that is parsed. */
export function bfclCallText(response: string): string {
  const fenced = extractProgram(response);
  let text = fenced.fence !== undefined ? fenced.code : response.replace(/\r\n/g, "\n");
  text = text.replace(/^[`\n ]+|[`\n ]+$/g, "");
  if (!text.startsWith("[")) text = `[${text}`;
  if (!text.endsWith("]")) text = `${text}]`;
  return text;
}

/** The calls in a model's response, or why there are none. Never throws. */
export function parseBfclCalls(response: string): BfclParse {
  const text = bfclCallText(response);
  try {
    const parser = new Parser(tokenize(text), text.length);
    const top = parser.expression();
    parser.expectEnd();
    return { ok: true, calls: topLevelCalls(top), text };
  } catch (e) {
    if (e instanceof BfclSyntaxError) return { ok: false, error: e.message, text };
    // A chain of 100,000 operators or dots overflows the recursion that reads it, and a BigInt
    // can outgrow its limit: neither is an answer, and neither may escape a grader.
    if (e instanceof RangeError)
      return { ok: false, error: `cannot read the calls: ${e.message}`, text };
    throw e;
  }
}

/** Python keywords: none of them starts a value we accept. */
const PY_KEYWORDS = new Set(
  "and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield".split(
    " ",
  ),
);

// ── Syntax tree ────────────────────────────────────────────────────────────────────────────

type Node =
  | { k: "const"; v: PyVal; at: number }
  | { k: "name"; id: string; at: number }
  | { k: "list" | "tuple"; items: Node[]; at: number }
  | { k: "dict"; entries: [Node, Node][]; at: number }
  | { k: "unary"; op: string; operand: Node; at: number }
  | { k: "binop"; op: string; left: Node; right: Node; at: number }
  | { k: "attr"; value: Node; attr: string; at: number }
  | { k: "call"; func: Node; keywords: [string, Node][]; at: number }
  | { k: "refused"; what: string; at: number };

const MAX_DEPTH = 100;

class Parser {
  private i = 0;
  private depth = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly length: number,
  ) {}

  private peek(): Token {
    return this.tokens[this.i]!;
  }

  private isOp(v: string): boolean {
    const t = this.peek();
    return t.k === "op" && t.v === v;
  }

  private take(v: string): boolean {
    if (!this.isOp(v)) return false;
    this.i++;
    return true;
  }

  private expect(v: string): void {
    if (!this.take(v)) this.fail(`expected "${v}"`);
  }

  private fail(what: string): never {
    const t = this.peek();
    const found = t.k === "end" ? "the end of the text" : `${JSON.stringify(String(t.v))}`;
    throw new BfclSyntaxError(`${what}, found ${found}`, t.at);
  }

  expectEnd(): void {
    if (this.peek().k !== "end") this.fail("expected the end of the calls");
  }

  /** expression := term (("+" | "-") term)*, and the operators Python has but we refuse. */
  expression(): Node {
    if (++this.depth > MAX_DEPTH) throw new BfclSyntaxError("nesting too deep", this.peek().at);
    let node = this.term();
    for (;;) {
      const t = this.peek();
      if (t.k === "op" && (t.v === "+" || t.v === "-")) {
        this.i++;
        node = { k: "binop", op: t.v, left: node, right: this.term(), at: t.at };
      } else break;
    }
    const t = this.peek();
    if (t.k === "op" && ["==", "!=", "<", ">", "<=", ">=", "|", "&", "^", ":="].includes(t.v)) {
      throw new BfclSyntaxError(`the operator "${t.v}" is not accepted in a value`, t.at);
    }
    if (t.k === "name" && PY_KEYWORDS.has(t.v)) {
      throw new BfclSyntaxError(`"${t.v}" expressions are not accepted in a value`, t.at);
    }
    this.depth--;
    return node;
  }

  private term(): Node {
    let node = this.factor();
    for (;;) {
      const t = this.peek();
      if (t.k === "op" && ["*", "/", "//", "%"].includes(t.v)) {
        this.i++;
        node = { k: "binop", op: t.v, left: node, right: this.factor(), at: t.at };
      } else if (t.k === "op" && t.v === "@") {
        throw new BfclSyntaxError(`the operator "@" is not accepted in a value`, t.at);
      } else return node;
    }
  }

  private factor(): Node {
    const t = this.peek();
    if (t.k === "op" && (t.v === "-" || t.v === "+" || t.v === "~")) {
      this.i++;
      if (++this.depth > MAX_DEPTH) throw new BfclSyntaxError("nesting too deep", t.at);
      const operand = this.factor();
      this.depth--;
      return { k: "unary", op: t.v, operand, at: t.at };
    }
    if (t.k === "name" && (t.v === "not" || t.v === "lambda" || t.v === "await")) {
      throw new BfclSyntaxError(`"${t.v}" expressions are not accepted in a value`, t.at);
    }
    const base = this.primary();
    const pow = this.peek();
    if (pow.k === "op" && pow.v === "**") {
      this.i++;
      return { k: "binop", op: "**", left: base, right: this.factor(), at: pow.at };
    }
    return base;
  }

  /** primary := atom ("." NAME | "(" arguments ")" | "[" ... "]")* */
  private primary(): Node {
    let node = this.atom();
    for (;;) {
      const t = this.peek();
      if (this.take(".")) {
        const name = this.peek();
        if (name.k !== "name") this.fail('expected a name after "."');
        this.i++;
        node = { k: "attr", value: node, attr: name.v, at: t.at };
      } else if (this.take("(")) {
        node = { k: "call", func: node, keywords: this.arguments(), at: t.at };
      } else if (this.isOp("[")) {
        this.sequence("[", "]"); // parsed for its syntax, refused when resolved
        node = { k: "refused", what: "a subscript", at: t.at };
      } else return node;
    }
  }

  /**
   * The arguments of a call after "(": keyword ones kept in order (a repeated keyword keeps its
   * first place and its last value, as Python's parser and BFCL's dict do), positional ones and
   * `*args` parsed and dropped as BFCL drops them.
   */
  private arguments(): [string, Node][] {
    const keywords: [string, Node][] = [];
    while (!this.take(")")) {
      const t = this.peek();
      if (t.k === "op" && t.v === "**") {
        throw new BfclSyntaxError('"**" arguments are not accepted', t.at);
      }
      const next = this.tokens[this.i + 1];
      if (t.k === "name" && next?.k === "op" && next.v === "=") {
        this.i += 2;
        const value = this.expression();
        const earlier = keywords.findIndex(([name]) => name === t.v);
        if (earlier >= 0) keywords[earlier] = [t.v, value];
        else keywords.push([t.v, value]);
      } else {
        if (keywords.length > 0) {
          throw new BfclSyntaxError("a positional argument follows a keyword argument", t.at);
        }
        this.take("*");
        this.expression(); // BFCL drops positional arguments
      }
      if (!this.isOp(")")) this.expect(",");
    }
    return keywords;
  }

  /** Comma-separated expressions up to `close` (a trailing comma allowed), after `open`. */
  private sequence(open: string, close: string): { items: Node[]; trailingComma: boolean } {
    this.expect(open);
    const items: Node[] = [];
    let trailingComma = false;
    while (!this.take(close)) {
      items.push(this.expression());
      trailingComma = this.take(",");
      if (!trailingComma && !this.isOp(close)) this.fail(`expected "," or "${close}"`);
    }
    return { items, trailingComma };
  }

  private atom(): Node {
    const t = this.peek();
    switch (t.k) {
      case "num":
        this.i++;
        return { k: "const", v: t.v, at: t.at };
      case "str": {
        let v = "";
        while (this.peek().k === "str") v += (this.tokens[this.i++] as { v: string }).v;
        return { k: "const", v: pyStr(v), at: t.at };
      }
      case "name":
        this.i++;
        if (t.v === "True" || t.v === "False")
          return { k: "const", v: { t: "bool", v: t.v === "True" }, at: t.at };
        if (t.v === "None") return { k: "const", v: pyNone, at: t.at };
        if (PY_KEYWORDS.has(t.v)) {
          throw new BfclSyntaxError(`"${t.v}" is not accepted in a value`, t.at);
        }
        return { k: "name", id: t.v, at: t.at };
      case "end":
        return this.fail("expected a value");
      default:
        break;
    }
    if (t.v === "...") {
      this.i++;
      return { k: "const", v: pyStr("..."), at: t.at };
    }
    if (t.v === "[") {
      const { items } = this.sequence("[", "]");
      return { k: "list", items, at: t.at };
    }
    if (t.v === "(") {
      const { items, trailingComma } = this.sequence("(", ")");
      if (items.length === 1 && !trailingComma) return items[0]!;
      return { k: "tuple", items, at: t.at };
    }
    if (t.v === "{") return this.braces();
    return this.fail("expected a value");
  }

  /** A dict display (sets and `**` unpacking refused). */
  private braces(): Node {
    const at = this.peek().at;
    this.expect("{");
    const entries: [Node, Node][] = [];
    while (!this.take("}")) {
      if (this.isOp("**"))
        throw new BfclSyntaxError('"**" in a dict is not accepted', this.peek().at);
      const key = this.expression();
      if (!this.isOp(":")) throw new BfclSyntaxError("sets are not accepted", at);
      this.i++;
      entries.push([key, this.expression()]);
      if (!this.isOp("}")) this.expect(",");
    }
    return { k: "dict", entries, at };
  }
}

// ── From syntax to calls and values ────────────────────────────────────────────────────────

function topLevelCalls(top: Node): BfclCall[] {
  const budget = { left: MAX_BUILT };
  const items = top.k === "call" ? [top] : top.k === "list" ? top.items : undefined;
  if (items === undefined) {
    throw new BfclSyntaxError("expected a list of function calls", top.at);
  }
  return items.map((item) => {
    if (item.k !== "call") throw new BfclSyntaxError("expected a function call", item.at);
    const name = calleeName(item.func);
    const args = item.keywords.map(([k, v]) => [k, resolve(v, budget)] as [string, PyVal]);
    return { name, args };
  });
}

/** `a.b.c` as "a.b.c"; any other callee is refused. */
function calleeName(func: Node): string {
  if (func.k === "name") return func.id;
  if (func.k === "attr") return `${calleeName(func.value)}.${func.attr}`;
  throw new BfclSyntaxError("a function name must be a (dotted) name", func.at);
}

/**
 * What `*` and `+` on sequences may build in one output, all operations together: items and
 * characters, nested ones counted in full. A limit per operation is not enough: `[[[1]*100]*100]*100`
 * shares its rows, so each step is small while the value (and every later walk over it: the
 * checks, the metadata) holds 100 ** 3 items; a chain of `+` copies the growing list each time.
 */
const MAX_BUILT = 100_000;

/** What is left of MAX_BUILT while one output's values are resolved. */
type Budget = { left: number };

/** A value node as BFCL's resolve_ast_by_type reads it (see the header for what is refused). */
function resolve(node: Node, budget: Budget): PyVal {
  switch (node.k) {
    case "const":
      return node.v;
    case "name":
      return pyStr(node.id);
    case "list":
      return pyList(node.items.map((item) => resolve(item, budget)));
    case "tuple":
      return { t: "tuple", v: node.items.map((item) => resolve(item, budget)) };
    case "dict":
      return dictOf(node.entries.map(([k, v]) => [resolve(k, budget), resolve(v, budget)]));
    case "unary":
      return negate(node);
    case "binop":
      return arithmetic(
        node.op,
        resolve(node.left, budget),
        resolve(node.right, budget),
        node.at,
        budget,
      );
    case "call":
      throw new BfclSyntaxError("a function call is not accepted as an argument value", node.at);
    case "attr":
      throw new BfclSyntaxError("an attribute (a.b) is not accepted as an argument value", node.at);
    case "refused":
      throw new BfclSyntaxError(`${node.what} is not accepted as an argument value`, node.at);
  }
}

/** A dict display: a repeated key keeps its first place and its last value, as in Python. */
function dictOf(entries: [PyVal, PyVal][]): PyVal {
  const out: [PyVal, PyVal][] = [];
  for (const [k, v] of entries) {
    const earlier = out.find(([key]) => pyEq(key, k));
    if (earlier) earlier[1] = v;
    else out.push([k, v]);
  }
  return { t: "dict", v: out };
}

/** BFCL negates the operand's literal value, so only `-` on a number literal (or bool) reads. */
function negate(node: Extract<Node, { k: "unary" }>): PyVal {
  if (node.op !== "-") {
    throw new BfclSyntaxError(`unary "${node.op}" is not accepted (only "-" on a number)`, node.at);
  }
  const v = node.operand.k === "const" ? node.operand.v : undefined;
  if (v?.t === "int") return { t: "int", v: -v.v };
  if (v?.t === "float") return { t: "float", v: -v.v };
  if (v?.t === "bool") return { t: "int", v: v.v ? -1n : 0n };
  throw new BfclSyntaxError('unary "-" is only accepted before a number', node.at);
}

/** Python's arithmetic on numbers (bools count as ints), and on sequences where it applies. */
function arithmetic(op: string, a: PyVal, b: PyVal, at: number, budget: Budget): PyVal {
  const x = asNumber(a);
  const y = asNumber(b);
  if (x === undefined || y === undefined) return sequenceArithmetic(op, a, b, at, budget);
  if (typeof x === "bigint" && typeof y === "bigint") {
    const exact = intArithmetic(op, x, y, at);
    if (exact !== undefined) return exact;
  }
  const fx = Number(x);
  const fy = Number(y);
  if (
    ((op === "/" || op === "//" || op === "%") && fy === 0) ||
    (op === "**" && fx === 0 && fy < 0)
  ) {
    throw new BfclSyntaxError("division by zero", at);
  }
  const operations: Record<string, () => number> = {
    "+": () => fx + fy,
    "-": () => fx - fy,
    "*": () => fx * fy,
    "/": () => fx / fy,
    "//": () => Math.floor(fx / fy),
    "%": () => fx - fy * Math.floor(fx / fy),
    "**": () => fx ** fy,
  };
  const result = operations[op]?.();
  if (result === undefined || Number.isNaN(result)) {
    throw new BfclSyntaxError(`"${op}" gives no real number here`, at);
  }
  return { t: "float", v: result };
}

/**
 * `s + s` for two strs, lists or tuples of one kind, and `s * n` / `n * s` (repetition); what they
 * build is charged to `budget` (see MAX_BUILT) before it is built.
 */
function sequenceArithmetic(op: string, a: PyVal, b: PyVal, at: number, budget: Budget): PyVal {
  const charge = (size: number) => {
    budget.left -= size;
    if (budget.left < 0)
      throw new BfclSyntaxError("the sequences built by * and + are too long", at);
  };
  const refuse = (): never => {
    throw new BfclSyntaxError(
      `"${op}" between a ${pyType(a)} and a ${pyType(b)} is not accepted`,
      at,
    );
  };
  if (op === "+" && a.t === b.t) {
    if (a.t === "str") charge(a.v.length + (b as typeof a).v.length);
    if (a.t === "list" || a.t === "tuple") charge(weight(a) + weight(b) - 1);
    if (a.t === "str") return pyStr(a.v + (b as typeof a).v);
    if (a.t === "list" || a.t === "tuple") return { t: a.t, v: [...a.v, ...(b as typeof a).v] };
  }
  if (op !== "*") return refuse();
  const [seq, times] = asNumber(a) === undefined ? [a, asNumber(b)] : [b, asNumber(a)];
  if (typeof times !== "bigint" || !(seq.t === "str" || seq.t === "list" || seq.t === "tuple")) {
    return refuse();
  }
  const n = times < 0n ? 0 : Number(times);
  // At least n, so that `[] * 10**9` is refused rather than looped over.
  charge(n * Math.max(1, seq.t === "str" ? seq.v.length : weight(seq) - 1));
  if (seq.t === "str") return pyStr(seq.v.repeat(n));
  return { t: seq.t, v: Array.from({ length: n }, () => seq.v).flat() };
}

/**
 * Items and characters in `v`, nested ones counted in full, plus one for `v` itself. Values come from the
 * output's text or from charged operations, so this walk is itself bounded by MAX_BUILT plus the
 * text's length.
 */
function weight(v: PyVal): number {
  if (v.t === "str") return Math.max(1, v.v.length);
  if (v.t === "list" || v.t === "tuple") return v.v.reduce((sum, item) => sum + weight(item), 1);
  if (v.t === "dict") return v.v.reduce((sum, [k, item]) => sum + weight(k) + weight(item), 1);
  return 1;
}

function asNumber(v: PyVal): bigint | number | undefined {
  if (v.t === "int" || v.t === "float") return v.v;
  if (v.t === "bool") return v.v ? 1n : 0n;
  return undefined;
}

/** int ∘ int stays an int (Python's floor division and modulo); `/` and a negative power do not. */
function intArithmetic(op: string, x: bigint, y: bigint, at: number): PyVal | undefined {
  const int = (v: bigint): PyVal => ({ t: "int", v });
  if ((op === "//" || op === "%") && y === 0n) throw new BfclSyntaxError("division by zero", at);
  switch (op) {
    case "+":
      return int(x + y);
    case "-":
      return int(x - y);
    case "*":
      return int(x * y);
    case "//": {
      const q = x / y;
      return int(q * y !== x && x < 0n !== y < 0n ? q - 1n : q);
    }
    case "%": {
      const r = x % y;
      return int(r !== 0n && r < 0n !== y < 0n ? r + y : r);
    }
    case "**":
      if (y < 0n) return undefined; // a float
      if (BigInt(x.toString(2).length) * y > 100_000n) {
        throw new BfclSyntaxError("the power is too large", at);
      }
      return int(x ** y);
    default:
      return undefined; // "/" is true division
  }
}
