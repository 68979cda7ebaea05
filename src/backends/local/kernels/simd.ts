/**
 * Building blocks the wasm kernels (ops-wasm.ts) share: splatted constants, lane reductions,
 * a vector exp, and the steps of a row softmax over f32x4 vectors. Each helper appends a fixed
 * instruction sequence to a {@link FuncBuilder}; the locals it names must be declared by the
 * caller unless said otherwise.
 */
import type { FuncBuilder } from "./wasm-emit.js";

type F = FuncBuilder;

/** Declares v128 locals holding splatted constants; returns a getter. */
export function hoist(f: F, values: Record<string, number>): (name: string) => F {
  for (const [name, x] of Object.entries(values))
    f.local(name, "v128").f32(x).f32x4Splat().set(name);
  return (name: string) => {
    if (!(name in values)) throw new Error(`constant ${name} not hoisted`);
    return f.get(name);
  };
}

/** Sum of the four lanes of local `v` onto the stack (as f32): (v₀ + v₁) + (v₂ + v₃). */
export function hsum(f: F, v: string): F {
  return f
    .get(v)
    .f32x4ExtractLane(0)
    .get(v)
    .f32x4ExtractLane(1)
    .f32Add()
    .get(v)
    .f32x4ExtractLane(2)
    .get(v)
    .f32x4ExtractLane(3)
    .f32Add()
    .f32Add();
}

/** Max of the four lanes of local `v` onto the stack (as f32): max(max(v₀, v₁), max(v₂, v₃)). */
export function hmax(f: F, v: string): F {
  return f
    .get(v)
    .f32x4ExtractLane(0)
    .get(v)
    .f32x4ExtractLane(1)
    .f32Max()
    .get(v)
    .f32x4ExtractLane(2)
    .get(v)
    .f32x4ExtractLane(3)
    .f32Max()
    .f32Max();
}

export const SQRT_2_OVER_PI = Math.sqrt(2 / Math.PI);

export const EXP_CONSTS = {
  log2e: Math.LOG2E,
  ln2hi: 0.693145751953125,
  ln2lo: 1.428606765330187e-6,
  minx: -87,
  maxx: 87,
  // 1.5·2²³ + 127: adding it rounds x·log₂e to an integer n and leaves n + 127 in the low bits
  magic: 12582912 + 127,
  c2: 1 / 2,
  c3: 1 / 6,
  c4: 1 / 24,
  c5: 1 / 120,
  c6: 1 / 720,
  one: 1,
};

/** The constants of {@link expEmitter} and −∞ (for a running max), hoisted; returns the getter. */
export function hoistSoftmaxConsts(f: F): (name: string) => F {
  return hoist(f, { ...EXP_CONSTS, ninf: Number.NEGATIVE_INFINITY });
}

/**
 * Returns an emitter of `out = exp(x)` over v128 locals (x clamped to [−87, 87], so 2ⁿ stays a
 * normal float): n = round(x·log₂e) (by the 1.5·2²³ trick, which also leaves n + 127 in the low
 * mantissa bits: shifted left by 23 they are 2ⁿ), r = x − n·ln2 (Cody–Waite, two parts), and a
 * degree-6 Taylor polynomial of e^r on |r| ≤ ln2/2 (relative error < 2e-7).
 * `k` must have the {@link EXP_CONSTS} hoisted. Declares its own scratch locals.
 */
export function expEmitter(f: F, k: (name: string) => F): (h: F, x: string, out: string) => void {
  f.local("exp_n", "v128").local("exp_t", "v128").local("exp_r", "v128").local("exp_x", "v128");
  return (h, x, out) => {
    h.get(x);
    k("minx");
    h.f32x4Pmax();
    k("maxx");
    h.f32x4Pmin().set("exp_x");
    h.get("exp_x");
    k("log2e");
    h.f32x4Mul();
    k("magic");
    h.f32x4Add().set("exp_t");
    h.get("exp_t");
    k("magic");
    h.f32x4Sub().set("exp_n");
    h.get("exp_x").get("exp_n");
    k("ln2hi");
    h.f32x4Mul().f32x4Sub().get("exp_n");
    k("ln2lo");
    h.f32x4Mul().f32x4Sub().set("exp_r");
    k("c6");
    h.get("exp_r").f32x4Mul();
    for (const c of ["c5", "c4", "c3", "c2", "one"]) {
      k(c);
      h.f32x4Add().get("exp_r").f32x4Mul();
    }
    k("one");
    h.f32x4Add();
    h.get("exp_t").i32(23).i32x4Shl();
    h.f32x4Mul().set(out);
  };
}

// ── the steps of a softmax over a row of f32x4 vectors ──────────────────────────────────────
// The row is at byte address `ptr` + `idx` for idx (a loop local, in bytes) from 0 to the local
// `end`; the v128 locals acc, vm, vs, xx, e, inv and the i32 locals n, nv are the caller's.

/** row[j] = `value` for the scalar entries n ≤ j < nv/4 (the tail of the row's last vector). */
export function fillTail(g: F, ptr: string, value: number): void {
  g.for(
    "j",
    (h) => h.bytes("n"),
    (h) => h.get("nv"),
    4,
    (h) => {
      h.addr(ptr, "j").f32(value).f32Store();
    },
  );
}

/** acc = lane-wise max of the row's vectors, from −∞ (`k` has "ninf" hoisted). */
export function vmaxRow(g: F, k: (name: string) => F, ptr: string, idx: string, end: string): void {
  k("ninf");
  g.set("acc");
  g.forUp(idx, end, 16, (h) => {
    h.get("acc").addr(ptr, idx).v128Load().f32x4Max().set("acc");
  });
}

/** In place over [0, nv): row ← e = exp(row·vs − vm), acc = lane-wise Σ e. */
export function expShiftedRow(
  g: F,
  exp: (h: F, x: string, out: string) => void,
  ptr: string,
  idx: string,
): void {
  g.v128Zero().set("acc");
  g.forUp(idx, "nv", 16, (h) => {
    h.addr(ptr, idx).v128Load().get("vs").f32x4Mul().get("vm").f32x4Sub();
    h.set("xx");
    exp(h, "xx", "e");
    h.addr(ptr, idx).get("e").v128Store();
    h.get("acc").get("e").f32x4Add().set("acc");
  });
}

/** inv = splat(1 / Σ lanes of acc). */
export function reciprocalOfSum(g: F): void {
  g.f32(1);
  hsum(g, "acc");
  g.f32Div().f32x4Splat().set("inv");
}

/** In place: row ← row · local `by` (a v128) over [0, end). */
export function scaleRow(g: F, ptr: string, idx: string, end: string, by: string): void {
  g.forUp(idx, end, 16, (h) => {
    h.addr(ptr, idx);
    h.addr(ptr, idx).v128Load().get(by).f32x4Mul();
    h.v128Store();
  });
}
