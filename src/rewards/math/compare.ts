/**
 * Whether a predicted answer equals the gold answer, both already shaped (structure.ts). The rules
 * follow Math-Verify 0.9.0's `sympy_expr_eq` (huggingface/Math-Verify, src/math_verify/grader.py),
 * without sympy. Gold and prediction are not symmetric, as there:
 *
 * - Assignments: a gold `y = 2x+3` (its left side names a quantity: `y`, `(p,q)`, `|AB|`)
 *   against a prediction that is not an equation compares its right side; a predicted equation
 *   against a gold that is not an equation compares the prediction's last right side (`x = 5`
 *   against `5`). An assignment chain `x = 5+6 = 11` is `x = 11`. Two relations are compared as
 *   relations, so `x = 1` is not `y = 1`, and a gold `x + y = 1` needs an equation.
 * - Relations: sides swapped (`x > 3` is `3 < x`), and rearranged: each link becomes
 *   `lhs - rhs  op  0`; two links match when their operators agree and the differences are
 *   proportional — by any nonzero constant for `=` and `\ne` (`2x+2y=2` is `x+y=1`, as sympy's
 *   solve finds), by a positive constant for inequalities (so `-x > -3` is not `x > 3`). A
 *   one-variable inequality against an interval is read as that interval, on either side.
 * - Sets and lists are unordered, matched item for item (repeats are kept, unlike sympy's
 *   FiniteSet: `1\pm\sqrt{19}, 1+\sqrt{19}`, a revised answer joined to the first, must not
 *   collapse into the right pair). Tuples and intervals are ordered, with their brackets; an open
 *   two-item `(a,b)` also matches the bare list `a, b` in that order, never the braced set
 *   `\{a, b\}` (Math-Verify accepts that). A scalar is the singleton set. Unions match part for
 *   part in any order (touching parts are not merged).
 * - Scalars: text equality first; words (`\text{even}`) only by text, without case. Otherwise both
 *   sides are parsed (parse.ts). Constants compare exactly when both are rational; when either is
 *   a lone number with a decimal point (a sympy Float) both are rounded to 6 decimals
 *   (`\frac13` is `0.333333`, not `0.3333`; Math-Verify's float_rounding) and, stricter than
 *   Math-Verify, to 6 significant digits (`.0000672` is not `\frac{1}{14881}`); otherwise within a
 *   relative 1e-12. Expressions with variables are evaluated at seeded random real points
 *   (sympy's symbols are real in Math-Verify) and must agree within a relative 1e-9 at every point
 *   where both are defined, with at least MIN_POINTS such points; that stands in for
 *   simplify(a - b) = 0 (two different rational functions agree at random points with
 *   probability 0).
 * - Time: every loop checks the deadline; past it the comparison throws OutOfTime, which the
 *   caller turns into "not equal".
 */
import { mulberry32 } from "../../random.js";
import { type Complex, evaluateExact, evaluateNumeric } from "./evaluate.js";
import { type Node, ParseError, parseExpression, variablesOf } from "./parse.js";
import { type Answer, type RelOp, shapeOf } from "./structure.js";

export class OutOfTime extends Error {}

const POINTS = 12;
const MIN_POINTS = 5;
const FLOAT_DECIMALS = 6;

export class Comparer {
  private readonly parsed = new Map<string, Node | null>();
  private readonly points: Map<string, Complex>[] = [];
  private readonly rand = mulberry32(0x5eed);

  constructor(private readonly deadline: number) {}

  private tick(): void {
    if (performance.now() > this.deadline) throw new OutOfTime();
  }

  parse(text: string): Node | null {
    let node = this.parsed.get(text);
    if (node === undefined) {
      this.tick();
      try {
        node = parseExpression(text);
      } catch (e) {
        if (!(e instanceof ParseError)) throw e;
        node = null;
      }
      this.parsed.set(text, node);
    }
    return node;
  }

  equal(gold: Answer, pred: Answer): boolean {
    this.tick();
    const [g, p] = unwrapAssignments(gold, pred, (t) => this.parse(t));
    if (g.kind === "relation" && p.kind === "relation") return this.relationsEqual(g, p);
    // A one-variable inequality and the interval it describes, either way round (Math-Verify
    // only reads a gold inequality so; its allow_set_relation_comp reads both).
    if (g.kind === "relation" && (p.kind === "tuple" || p.kind === "union")) {
      const interval = this.relationAsInterval(g);
      return interval !== undefined && this.equal(interval, p);
    }
    if (p.kind === "relation" && (g.kind === "tuple" || g.kind === "union")) {
      const interval = this.relationAsInterval(p);
      return interval !== undefined && this.equal(g, interval);
    }
    if (g.kind === "relation" || p.kind === "relation") return false;
    if (g.kind === "scalar" && p.kind === "scalar") return this.scalarsEqual(g.text, p.text);
    if (g.kind === "matrix" || p.kind === "matrix") return this.matricesEqual(g, p);
    if (g.kind === "union" || p.kind === "union") {
      return g.kind === "union" && p.kind === "union" && this.sameMultiset(g.parts, p.parts);
    }
    return this.collectionsEqual(g, p);
  }

  private collectionsEqual(g: Answer, p: Answer): boolean {
    const asSet = (a: Answer): Answer =>
      a.kind === "scalar" ? { kind: "set", items: [a], braced: false } : a;
    const gs = asSet(g);
    const ps = asSet(p);
    if (gs.kind === "set" && ps.kind === "set") return this.sameMultiset(gs.items, ps.items);
    if (gs.kind === "tuple" && ps.kind === "tuple") {
      return gs.open === ps.open && gs.close === ps.close && this.inOrder(gs.items, ps.items);
    }
    // `(1,2)` against the bare list `1, 2` (or the other way): the open pair, in order.
    const tuple = gs.kind === "tuple" ? gs : ps.kind === "tuple" ? ps : undefined;
    const set = gs.kind === "set" ? gs : ps.kind === "set" ? ps : undefined;
    if (!tuple || !set || set.braced || tuple.open !== "(" || tuple.close !== ")") return false;
    return gs === tuple
      ? this.inOrder(tuple.items, set.items)
      : this.inOrder(set.items, tuple.items);
  }

  private inOrder(g: Answer[], p: Answer[]): boolean {
    return g.length === p.length && g.every((x, k) => this.equal(x, p[k]!));
  }

  /** Matches every item of `g` to a distinct equal item of `p`. */
  private sameMultiset(g: Answer[], p: Answer[]): boolean {
    if (g.length !== p.length) return false;
    const used = new Array<boolean>(p.length).fill(false);
    return g.every((x) => {
      const k = p.findIndex((y, idx) => !used[idx] && this.equal(x, y));
      if (k < 0) return false;
      used[k] = true;
      return true;
    });
  }

  private matricesEqual(g: Answer, p: Answer): boolean {
    if (g.kind !== "matrix" || p.kind !== "matrix" || g.rows.length !== p.rows.length) return false;
    return g.rows.every((row, r) => this.inOrder(row, p.rows[r]!));
  }

  scalarsEqual(g: string, p: string): boolean {
    if (g === p) return g !== "";
    if (isWord(g) || isWord(p)) return g.toLowerCase() === p.toLowerCase();
    const a = this.parse(g);
    const b = this.parse(p);
    if (!a || !b) return false;
    if (this.nodesEqual(a, b)) return true;
    // `50\%` against `50`: MATH's convention (its is_equiv drops `\%`) on top of Math-Verify's
    // 50/100, so a percentage question answered with the sign is not punished.
    if (a.k === "pct" && b.k !== "pct") return this.nodesEqual(a.a, b);
    if (b.k === "pct" && a.k !== "pct") return this.nodesEqual(a, b.a);
    return false;
  }

  private nodesEqual(a: Node, b: Node): boolean {
    const vars = new Set([...variablesOf(a), ...variablesOf(b)]);
    if (vars.size === 0) return this.constantsEqual(a, b);
    return this.agreeAtPoints(a, b, vars, (x, y) => close(x, y, 1e-9));
  }

  private constantsEqual(a: Node, b: Node): boolean {
    const floats = isLoneFloat(a) || isLoneFloat(b);
    const ea = floats ? undefined : evaluateExact(a);
    const eb = ea && evaluateExact(b);
    if (ea && eb) return ea.equals(eb);
    const x = evaluateNumeric(a, new Map());
    const y = evaluateNumeric(b, new Map());
    // `\infty` is a value; a double that overflowed (`9^{9^{9}}`) is not, so it matches nothing.
    if (hasInfinity(a) || hasInfinity(b)) {
      const both = hasInfinity(a) && hasInfinity(b);
      return both && isInfinite(x) && x.re === y.re && x.im === 0 && y.im === 0;
    }
    if (!isFiniteComplex(x) || !isFiniteComplex(y)) return false;
    if (floats) return sameRounded(x.re, y.re) && sameRounded(x.im, y.im);
    return close(x, y, 1e-12);
  }

  /** The i-th random point over `vars`: real values of either sign, away from 0. */
  private point(i: number, vars: Set<string>): Map<string, Complex> {
    while (this.points.length <= i) this.points.push(new Map());
    const env = this.points[i]!;
    for (const v of vars) {
      if (!env.has(v)) {
        const magnitude = 0.3 + 1.7 * this.rand();
        env.set(v, { re: this.rand() < 0.5 ? -magnitude : magnitude, im: 0 });
      }
    }
    return env;
  }

  /** `agree` holds at every random point where both sides are finite, and there are enough. */
  private agreeAtPoints(
    a: Node,
    b: Node,
    vars: Set<string>,
    agree: (x: Complex, y: Complex) => boolean,
  ): boolean {
    let valid = 0;
    for (let i = 0; i < POINTS; i++) {
      this.tick();
      const env = this.point(i, vars);
      const x = evaluateNumeric(a, env);
      const y = evaluateNumeric(b, env);
      if (!isFiniteComplex(x) || !isFiniteComplex(y)) continue;
      if (!agree(x, y)) return false;
      valid++;
    }
    return valid >= MIN_POINTS;
  }

  private relationsEqual(g: Relation, p: Relation): boolean {
    if (g.ops.length !== p.ops.length) return false;
    const gl = links(g);
    const pl = links(p);
    const matches = (order: Link[]) => gl.every((link, k) => this.linksEqual(link, order[k]!));
    return matches(pl) || (pl.length > 1 && matches([...pl].reverse()));
  }

  /** Both links as `diff op 0` with the same op, the diffs proportional (see file comment). */
  private linksEqual(g: Link, p: Link): boolean {
    const gn = normalLink(g);
    const pn = normalLink(p);
    if (gn.op !== pn.op) return false;
    const parts = [gn.left, gn.right, pn.left, pn.right].map((t) => this.parse(t));
    if (parts.some((x) => x === null)) return false;
    const [a1, a2, b1, b2] = parts as Node[];
    const gd: Node = { k: "op", op: "-", a: a1!, b: a2! };
    const pd: Node = { k: "op", op: "-", a: b1!, b: b2! };
    const vars = new Set([...variablesOf(gd), ...variablesOf(pd)]);
    if (vars.size === 0) return this.constantsEqual(gd, pd);
    let ratio: Complex | undefined;
    const anySign = gn.op === "=" || gn.op === "\\ne";
    return this.agreeAtPoints(gd, pd, vars, (x, y) => {
      if (isZero(x) || isZero(y)) return isZero(x) && isZero(y);
      const r = div(x, y);
      if (Math.abs(r.im) > 1e-9 * Math.abs(r.re) || (!anySign && r.re <= 0)) return false;
      ratio ??= r;
      return close(r, ratio, 1e-9);
    });
  }

  /**
   * `x > 3`, `3 \ge x` or `-1 \le x < 2` as the interval it describes, when one side is a lone
   * variable; else undefined.
   */
  private relationAsInterval(r: Relation): Answer | undefined {
    const isVar = (t: string) => this.parse(t)?.k === "var";
    if (r.ops.length === 2 && isVar(r.sides[1]!)) {
      const [o1, o2] = r.ops;
      const lower = o1 === "<" || o1 === "\\le";
      if (!lower || !(o2 === "<" || o2 === "\\le")) return undefined;
      return interval(r.sides[0]!, o1 === "\\le", r.sides[2]!, o2 === "\\le");
    }
    if (r.ops.length !== 1) return undefined;
    const [left, right] = r.sides as [string, string];
    const op = r.ops[0]!;
    const [bound, varOnLeft] = isVar(left) ? [right, true] : isVar(right) ? [left, false] : [];
    if (bound === undefined) return undefined;
    const flipped = varOnLeft ? op : flip(op);
    if (flipped === ">" || flipped === "\\ge")
      return interval(bound, flipped === "\\ge", "\\infty", false);
    if (flipped === "<" || flipped === "\\le")
      return interval("-\\infty", false, bound, flipped === "\\le");
    return undefined;
  }
}

type Relation = Extract<Answer, { kind: "relation" }>;
type Link = { op: RelOp; left: string; right: string };

function links(r: { ops: RelOp[]; sides: string[] }): Link[] {
  return r.ops.map((op, k) => ({ op, left: r.sides[k]!, right: r.sides[k + 1]! }));
}

function flip(op: RelOp): RelOp {
  const flips: Record<RelOp, RelOp> = {
    "<": ">",
    ">": "<",
    "\\le": "\\ge",
    "\\ge": "\\le",
    "=": "=",
    "\\ne": "\\ne",
  };
  return flips[op];
}

/** `a < b` as `b > a`, `a \le b` as `b \ge a`, so every link reads `left op right` with op in =, \ne, >, \ge. */
function normalLink(l: Link): Link {
  if (l.op === "<" || l.op === "\\le") return { op: flip(l.op), left: l.right, right: l.left };
  return l;
}

function interval(lo: string, loClosed: boolean, hi: string, hiClosed: boolean): Answer {
  const items: Answer[] = [shapeOf(lo), shapeOf(hi)];
  return { kind: "tuple", open: loClosed ? "[" : "(", close: hiClosed ? "]" : ")", items };
}

/**
 * Math-Verify's relation unwrapping (see the file comment). An assignment's left side names
 * quantities (onlySymbols, or a tuple of them: `(p,q) = (3,2)`). An
 * assignment chain `x = 5+5+1 = 11` is its first and last sides, `x = 11`; a gold chain of three
 * or more sides (`1 = 2-1 = x`) against a prediction that is no equation is its last side.
 */
function unwrapAssignments(
  gold: Answer,
  pred: Answer,
  parse: (t: string) => Node | null,
): [Answer, Answer] {
  const isEquation = (a: Answer): a is Relation =>
    a.kind === "relation" && a.ops.every((o) => o === "=");
  const isAssignment = (a: Relation): boolean => {
    const lhs = shapeOf(a.sides[0]!);
    const items = lhs.kind === "tuple" ? lhs.items : [lhs];
    return items.every((x) => x.kind === "scalar" && onlySymbols(parse(x.text)));
  };
  const truncate = (a: Relation): Relation => ({
    kind: "relation",
    ops: ["="],
    sides: [a.sides[0]!, a.sides.at(-1)!],
  });
  const lastSide = (a: Relation) => shapeOf(a.sides.at(-1)!);
  const g = isEquation(gold) && isAssignment(gold) ? truncate(gold) : gold;
  const p = isEquation(pred) && isAssignment(pred) ? truncate(pred) : pred;
  if (isEquation(p) && !isEquation(g)) return [g, lastSide(p)];
  if (isEquation(g) && !isEquation(p) && (isAssignment(g) || g.sides.length > 2)) {
    return [lastSide(g), p];
  }
  return [g, p];
}

/**
 * A side that names a quantity rather than giving a value: variables combined by products,
 * quotients, ratios and absolute values (`x`, `xy`, `|AB|`, `\frac{NO}{BO}`, `V_1:V_2`), as
 * is_expr_of_only_symbols decides; but not sums, so `x + y = 1` stays an equation.
 */
function onlySymbols(n: Node | null): boolean {
  if (n === null) return false;
  if (n.k === "var") return true;
  if (n.k === "op") return (n.op === "*" || n.op === "/") && onlySymbols(n.a) && onlySymbols(n.b);
  return n.k === "fn" && n.name === "abs" && onlySymbols(n.args[0]!);
}

function hasInfinity(n: Node): boolean {
  if (n.k === "const") return n.name === "inf";
  if (n.k === "op") return hasInfinity(n.a) || hasInfinity(n.b);
  if (n.k === "neg" || n.k === "pct") return hasInfinity(n.a);
  return n.k === "fn" && n.args.some(hasInfinity);
}

function isWord(s: string): boolean {
  return /^[a-zA-Z]{2,}$/.test(s);
}

/** A single decimal literal, maybe negated or a percentage: what sympy keeps as a Float. */
function isLoneFloat(n: Node): boolean {
  if (n.k === "neg" || n.k === "pct") return isLoneFloat(n.a);
  return n.k === "num" && n.float;
}

/**
 * Math-Verify's float rule, the same after rounding to 6 decimal places, tightened to 6
 * significant digits as well: for small numbers 6 decimals keep only a digit or two, and
 * `.0000672` would equal `\frac{1}{14881}` (= 0.0000671997...).
 */
function sameRounded(x: number, y: number): boolean {
  const scale = 10 ** FLOAT_DECIMALS;
  if (Math.round(x * scale) !== Math.round(y * scale)) return false;
  return Number(x.toPrecision(FLOAT_DECIMALS)) === Number(y.toPrecision(FLOAT_DECIMALS));
}

function isFiniteComplex(x: Complex): boolean {
  return Number.isFinite(x.re) && Number.isFinite(x.im);
}

function isInfinite(x: Complex): boolean {
  return !Number.isNaN(x.re) && !Number.isFinite(x.re);
}

function isZero(x: Complex): boolean {
  return Math.abs(x.re) < 1e-12 && Math.abs(x.im) < 1e-12;
}

function div(x: Complex, y: Complex): Complex {
  const d = y.re * y.re + y.im * y.im;
  return { re: (x.re * y.re + x.im * y.im) / d, im: (x.im * y.re - x.re * y.im) / d };
}

function close(x: Complex, y: Complex, tolerance: number): boolean {
  const scale = Math.max(1, Math.hypot(x.re, x.im), Math.hypot(y.re, y.im));
  return Math.hypot(x.re - y.re, x.im - y.im) <= tolerance * scale;
}
