/**
 * Spike: GELU (tanh form) forward (n a multiple of 16) in wasm SIMD with a rational tanh, to size elementwise work
 * in wasm against plain JS (V8's Math.tanh/Math.exp cost ~15–20 ns per call).
 *
 *   tanh(v) ≈ v·(135135 + v²(17325 + v²(378 + v²))) / (135135 + v²(62370 + v²(3150 + 28v²)))
 *   on v clamped to ±4.97 (max abs error ≈ 2e-7 inside, the clamp point is where it reaches 1).
 */
import { ModuleBuilder } from "./wasm-emit.js";

export function buildGeluModule(shared = true): Uint8Array {
  const m = new ModuleBuilder({
    module: "env",
    name: "memory",
    initial: 1,
    maximum: 65536,
    shared,
  });
  const f = m.func(
    "gelu_fwd",
    [
      ["x", "i32"],
      ["y", "i32"],
      ["n", "i32"],
    ],
    [],
  );
  // V8 rematerialises constants inside loops (mov + movd + broadcast each); hoist them to locals
  const consts = new Map<number, string>();
  const splat = (x: number) => {
    const name = consts.get(x);
    if (!name) throw new Error(`constant ${x} not hoisted`);
    return f.get(name);
  };
  for (const x of [
    0.044715,
    Math.sqrt(2 / Math.PI),
    4.97,
    -4.97,
    378,
    17325,
    135135,
    28,
    3150,
    62370,
    1,
    0.5,
  ]) {
    const name = `k${consts.size}`;
    consts.set(x, name);
    f.local(name, "v128").f32(x).f32x4Splat().set(name);
  }
  // U independent vectors per iteration: the per-vector chain is ~20 dependent ops (~70 cycles);
  // one vector per iteration leaves the core latency-bound at ~20 cycles per 4 elements.
  const U = 4;
  for (let w = 0; w < U; w++)
    for (const l of ["v", "u", "u2", "t", "c"]) f.local(`${l}${w}`, "v128");
  f.for(
    "i",
    (g) => g.i32(0),
    (g) => g.get("n"),
    4 * U,
    (g) => {
      const L = (l: string, w: number) => `${l}${w}`;
      for (let w = 0; w < U; w++)
        g.get("x")
          .v128Load(16 * w)
          .set(L("v", w));
      for (let w = 0; w < U; w++) {
        // u = clamp(c·(v + 0.044715 v³))
        g.get(L("v", w)).get(L("v", w)).f32x4Mul().get(L("v", w)).f32x4Mul();
        splat(0.044715);
        g.f32x4Mul().get(L("v", w)).f32x4Add();
        splat(Math.sqrt(2 / Math.PI));
        g.f32x4Mul();
        splat(4.97);
        g.f32x4Pmin();
        splat(-4.97);
        g.f32x4Pmax().set(L("u", w));
        g.get(L("u", w)).get(L("u", w)).f32x4Mul().set(L("u2", w));
      }
      for (let w = 0; w < U; w++) {
        // numerator u·(135135 + u²(17325 + u²(378 + u²)))
        g.get(L("u2", w));
        splat(378);
        g.f32x4Add().get(L("u2", w)).f32x4Mul();
        splat(17325);
        g.f32x4Add().get(L("u2", w)).f32x4Mul();
        splat(135135);
        g.f32x4Add().get(L("u", w)).f32x4Mul().set(L("t", w));
        // denominator 135135 + u²(62370 + u²(3150 + 28u²))
        g.get(L("u2", w));
        splat(28);
        g.f32x4Mul();
        splat(3150);
        g.f32x4Add().get(L("u2", w)).f32x4Mul();
        splat(62370);
        g.f32x4Add().get(L("u2", w)).f32x4Mul();
        splat(135135);
        g.f32x4Add().set(L("c", w));
      }
      for (let w = 0; w < U; w++) {
        // y = 0.5·v·(1 + t/c)
        g.get("y");
        g.get(L("t", w)).get(L("c", w)).f32x4Div();
        splat(1);
        g.f32x4Add().get(L("v", w)).f32x4Mul();
        splat(0.5);
        g.f32x4Mul().v128Store(16 * w);
      }
      g.get("x")
        .i32(16 * U)
        .i32Add()
        .set("x");
      g.get("y")
        .i32(16 * U)
        .i32Add()
        .set("y");
    },
  );
  return m.encode();
}
