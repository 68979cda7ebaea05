/**
 * The training step's elementwise and row-wise operations in WebAssembly SIMD (f32x4), on the
 * same memory as the GEMM (kernels/gemm-wasm.ts): GELU with its derivative, LayerNorm forward and
 * backward, bias-gradient column sums, residual adds, the log-softmax over the vocabulary and its
 * backward. Every function works on whole f32x4 vectors: the caller (model.ts) uses them only when
 * the row widths (dModel, the MLP width, the vocabulary) are multiples of 4 and keeps its plain-JS
 * loops for the rest. Pointers are byte offsets into the memory; counts are in floats.
 *
 * Accuracy (float32 throughout, so not bit-identical to the JS loops, which sum in float64):
 *   exp: Cody–Waite reduction by ln 2 and a degree-6 Taylor polynomial on |r| ≤ ln2/2 (relative
 *   error < 2e-7), inputs clamped to [−87, 87] (no subnormal or infinite results);
 *   tanh(s) = (1 − e^{−2s})/(1 + e^{−2s}) with that exp (absolute error ~1e-7 over the whole line).
 *
 * Each op has its own emitter below (emitGelu, emitLnFwd, …), called by {@link buildOpsModule} in
 * the module's function order; the pieces they share (lane sums, the vector exp, the steps of a
 * row softmax) are in simd.ts, the instruction idioms (forUp, inc, addr, bytes) in wasm-emit.ts.
 */
import {
  EXP_CONSTS,
  expEmitter,
  expShiftedRow,
  fillTail,
  hmax,
  hoist,
  hoistSoftmaxConsts,
  hsum,
  reciprocalOfSum,
  SQRT_2_OVER_PI,
  scaleRow,
  vmaxRow,
} from "./simd.js";
import { type FuncBuilder, ModuleBuilder } from "./wasm-emit.js";

export interface OpsExports {
  /** y = GELU(x) (tanh form), and dydx = GELU'(x) unless dydx = 0; n a multiple of 4. */
  gelu(x: number, y: number, dydx: number, n: number): void;
  /** a[i] *= b[i]; n a multiple of 4. */
  vmul(a: number, b: number, n: number): void;
  /** c[i] = a[i] + b[i]; n a multiple of 4. */
  vadd(a: number, b: number, c: number, n: number): void;
  /** dst[j] += Σ_rows src[row·cols + j] (row by row, as the JS loop); cols a multiple of 4. */
  colsum(dst: number, src: number, rows: number, cols: number): void;
  /** LayerNorm of N rows of D (D a multiple of 4): y = (x − μ)·r·g + b, keeps μ and r = 1/σ. */
  ln_fwd(
    x: number,
    g: number,
    b: number,
    y: number,
    mean: number,
    rstd: number,
    N: number,
    D: number,
  ): void;
  /** LayerNorm backward: dg += Σ dy·x̂, db += Σ dy, dx += r·(dy·g − mean(dy·g) − x̂·mean(dy·g·x̂)). */
  ln_bwd(
    x: number,
    g: number,
    mean: number,
    rstd: number,
    dy: number,
    dx: number,
    dg: number,
    db: number,
    N: number,
    D: number,
  ): void;
  /**
   * Softmax of each of N rows of V logits (V a multiple of 4): p = exp(z − max)/Σ; writes, per
   * row, stats[3i] = max, stats[3i+1] = Σ exp(z − max), stats[3i+2] = Σ exp(z − max)·z.
   */
  softmax_rows(z: number, p: number, stats: number, N: number, V: number): void;
  /** In place: p[j] ← p[j]·(a + c·z[j]) over V entries (V a multiple of 4). */
  scale_affine(p: number, z: number, V: number, a: number, c: number): void;
  /**
   * Causal attention softmax of `rows` rows of length T (T a multiple of 4) from `p`: row r sees
   * its first n = n0 + r entries, p[r][j] ← softmax_j(p[r][j]·scale) for j < n, 0 for n ≤ j < T.
   */
  attn_softmax(p: number, rows: number, T: number, n0: number, scale: number): void;
  /**
   * Softmax backward over `rows` rows (stride T) and their first `len` entries (len a multiple
   * of 4): ds ← scale·p·(ds − Σ_j ds·p), where ds holds ∂L/∂p on entry.
   */
  softmax_bwd(ds: number, p: number, rows: number, T: number, len: number, scale: number): void;
  /**
   * RoPE ("rotate-half") on `rows` rows of `stride` floats, row r at position r mod T: in each of
   * the first `nh` head slices of 2·half floats, (x_i, x_{i+half}) ← (x_i·c − x_{i+half}·s,
   * x_{i+half}·c + x_i·s) with c = cos[t·half + i], s = sign·sin[t·half + i]; half a multiple of 4.
   */
  rope(
    x: number,
    cos: number,
    sin: number,
    rows: number,
    T: number,
    stride: number,
    nh: number,
    half: number,
    sign: number,
  ): void;
  /**
   * Matrix–vector products for a few rows (decode): C[i][j] (+)= Σ_k A[i·lda + k]·B[k·ldb + j]
   * for i < M, j < N (N a multiple of 4); B is read once per 16-column strip and row. Each sum runs
   * over k in order from 0 and is then added to C, as in the GEMM: the same bits as gemm's.
   */
  gemv_nn(
    M: number,
    N: number,
    K: number,
    A: number,
    lda: number,
    B: number,
    ldb: number,
    C: number,
    ldc: number,
    acc: number,
  ): void;
  /**
   * One decode step's attention for one query row, every head: for head h (slices of hd floats
   * at h·hd, hd a multiple of 4), s_j = q·k_j for the n cached keys, p = softmax(s·scale),
   * out = Σ_j p_j·v_j (value rows of D floats from vb). The keys are stored transposed: dim d of
   * key j at kt[d·ldk + j], ldk a multiple of 4 and ≥ ⌈n/4⌉·4 (lanes past n are read, then
   * ignored); the call first writes the new key (D floats at `knew`) as key n − 1. `sc` is scratch for ⌈n/4⌉·4 floats. Every step is the training forward's for that
   * row (its GEMMs' sums in order, attn_softmax's max, exp and sum), so the results are the same
   * bits.
   */
  attn_decode(
    q: number,
    knew: number,
    kt: number,
    ldk: number,
    vb: number,
    n: number,
    H: number,
    hd: number,
    D: number,
    out: number,
    sc: number,
    scale: number,
  ): void;
  /**
   * C[i][j] = Σ_k A[i·lda + k]·B[j·ldb + k], each sum over k in order from 0, as the GEMM forms
   * it (the same bits): the head and attention scores of decode steps.
   */
  gemv_nt(
    M: number,
    N: number,
    K: number,
    A: number,
    lda: number,
    B: number,
    ldb: number,
    C: number,
    ldc: number,
  ): void;
}

type F = FuncBuilder;

/** An exported kernel returning nothing; its parameters are i32 (pointers, counts) unless typed. */
function kernel(m: ModuleBuilder, name: string, params: (string | [string, "f32"])[]): F {
  return m.func(
    name,
    params.map((p): [string, "i32" | "f32"] => (typeof p === "string" ? [p, "i32"] : p)),
    [],
  );
}

/** f32 `dst` = 1 / (f32) i32 `n`. */
function reciprocal(f: F, n: string, dst: string): void {
  f.f32(1).get(n).f32ConvertI32S().f32Div().set(dst);
}

export function buildOpsModule(shared = false): Uint8Array {
  const m = new ModuleBuilder({
    module: "env",
    name: "memory",
    initial: 1,
    maximum: 65536,
    shared,
  });
  // the order fixes each function's index in the module
  emitGelu(m);
  emitElementwise(m, "vmul", ["a", "b"], "a", (g) => g.f32x4Mul());
  emitElementwise(m, "vadd", ["a", "b"], "c", (g) => g.f32x4Add());
  emitColsum(m);
  emitLnFwd(m);
  emitLnBwd(m);
  emitSoftmaxRows(m);
  emitScaleAffine(m);
  emitAttnSoftmax(m);
  emitSoftmaxBwd(m);
  emitRope(m);
  emitGemvNN(m);
  emitGemvNT(m);
  emitAttnDecode(m);
  return m.encode();
}

/**
 * gelu(x, y, d, n): y = GELU(x), and d = GELU'(x) unless d = 0, two vectors an iteration
 * (independent chains for the out-of-order core) and one at a time for the rest:
 *   t = tanh(s) = (1 − E)/(1 + E), E = e^{−2s}, s = √(2/π)·(v + 0.044715 v³)
 *   y = ½·v·(1 + t),   d = ½(1 + t) + ½·v·(1 − t²)·√(2/π)·(1 + 3·0.044715·v²)
 */
function emitGelu(m: ModuleBuilder): void {
  const f = kernel(m, "gelu", ["x", "y", "d", "n"]);
  const k = hoist(f, {
    ...EXP_CONSTS,
    c044: 0.044715,
    c134: 3 * 0.044715,
    m2cs: -2 * SQRT_2_OVER_PI,
    cs: SQRT_2_OVER_PI,
    half: 0.5,
  });
  const exp = expEmitter(f, k);
  // U vectors per iteration; v, e, t: the input, e^{−2s}, tanh(s) of vector w
  const body = (g: F, U: number, withD: boolean) => {
    const L = (l: string, w: number) => `${l}${w}`;
    for (let w = 0; w < U; w++) for (const l of ["v", "e", "t"]) f.local(L(l, w), "v128");
    for (let w = 0; w < U; w++)
      g.get("x")
        .v128Load(16 * w)
        .set(L("v", w));
    for (let w = 0; w < U; w++) {
      // t = (1 − E)/(1 + E)
      g.get(L("v", w)).get(L("v", w)).f32x4Mul().get(L("v", w)).f32x4Mul();
      k("c044");
      g.f32x4Mul().get(L("v", w)).f32x4Add();
      k("m2cs");
      g.f32x4Mul().set(L("e", w));
      exp(g, L("e", w), L("e", w));
      k("one");
      g.get(L("e", w)).f32x4Sub();
      k("one");
      g.get(L("e", w)).f32x4Add().f32x4Div().set(L("t", w));
    }
    for (let w = 0; w < U; w++) {
      // y = ½·v·(1 + t)
      g.get("y");
      g.get(L("t", w));
      k("one");
      g.f32x4Add().get(L("v", w)).f32x4Mul();
      k("half");
      g.f32x4Mul().v128Store(16 * w);
    }
    if (withD) {
      for (let w = 0; w < U; w++) {
        // d = ½(1 + t) + ½·v·(1 − t²)·√(2/π)·(1 + 3·0.044715·v²)
        g.get("d");
        g.get(L("t", w));
        k("one");
        g.f32x4Add();
        k("half");
        g.f32x4Mul();
        k("one");
        g.get(L("t", w)).get(L("t", w)).f32x4Mul().f32x4Sub();
        g.get(L("v", w)).f32x4Mul();
        k("half");
        g.f32x4Mul();
        k("cs");
        g.f32x4Mul();
        g.get(L("v", w)).get(L("v", w)).f32x4Mul();
        k("c134");
        g.f32x4Mul();
        k("one");
        g.f32x4Add()
          .f32x4Mul()
          .f32x4Add()
          .v128Store(16 * w);
      }
      g.inc("d", 16 * U);
    }
    for (const p of ["x", "y"]) g.inc(p, 16 * U);
  };
  const U = 2;
  f.local("nU", "i32");
  f.get("n")
    .i32(-4 * U)
    .i32And()
    .set("nU");
  for (const withD of [true, false])
    f.get("d")
      .i32(0)
      .i32Ne()
      .i32(withD ? 1 : 0)
      .i32Eq()
      .if((g) => {
        g.forUp("i", "nU", 4 * U, (h) => body(h, U, withD));
        g.for(
          "i",
          (h) => h.get("nU"),
          (h) => h.get("n"),
          4,
          (h) => body(h, 1, withD),
        );
      });
}

/**
 * `name`(…inputs, [out,] n): out = op(in₀, in₁) over n floats (vmul: a *= b; vadd: c = a + b).
 * `out` is a parameter of its own unless it is an input.
 */
function emitElementwise(
  m: ModuleBuilder,
  name: string,
  inputs: [string, string],
  out: string,
  op: (g: F) => void,
): void {
  const ptrs = inputs.includes(out) ? inputs : [...inputs, out];
  const f = kernel(m, name, [...ptrs, "n"]);
  f.forUp("i", "n", 4, (g) => {
    g.get(out).get(inputs[0]).v128Load().get(inputs[1]).v128Load();
    op(g);
    g.v128Store();
    for (const p of ptrs) g.inc(p, 16);
  });
}

/** colsum(dst, src, rows, cols): dst[j] += Σ_i src[i][j], row by row. */
function emitColsum(m: ModuleBuilder): void {
  const f = kernel(m, "colsum", ["dst", "src", "rows", "cols"]);
  f.local("p", "i32").local("q", "i32").local("end", "i32"); // (q: unused)
  f.forUp("i", "rows", 1, (g) => {
    g.get("dst").set("p");
    g.get("dst").bytes("cols").i32Add().set("end");
    g.loop((h) => {
      h.get("p").get("p").v128Load().get("src").v128Load().f32x4Add().v128Store();
      h.inc("p", 16);
      h.inc("src", 16);
      h.get("p").get("end").i32LtU().brIf(0);
    });
  });
}

/** ln_fwd(x, g, b, y, mean, rstd, N, D): per row μ = Σx/D, r = 1/√(Σ(x − μ)²/D + ε), y = (x − μ)·r·g + b. */
function emitLnFwd(m: ModuleBuilder): void {
  const f = kernel(m, "ln_fwd", ["x", "g", "b", "y", "mean", "rstd", "N", "D"]);
  f.local("j", "i32").local("D4", "i32").local("acc", "v128").local("d", "v128");
  f.local("mu", "f32").local("rs", "f32").local("vmu", "v128").local("vrs", "v128");
  f.local("invD", "f32");
  f.bytes("D").set("D4");
  reciprocal(f, "D", "invD");
  f.forUp("i", "N", 1, (g) => {
    // μ
    g.v128Zero().set("acc");
    g.forUp("j", "D4", 16, (h) => {
      h.get("acc").addr("x", "j").v128Load().f32x4Add().set("acc");
    });
    hsum(g, "acc").get("invD").f32Mul().set("mu");
    g.get("mu").f32x4Splat().set("vmu");
    // r
    g.v128Zero().set("acc");
    g.forUp("j", "D4", 16, (h) => {
      h.addr("x", "j").v128Load().get("vmu").f32x4Sub().set("d");
      h.get("acc").get("d").get("d").f32x4Mul().f32x4Add().set("acc");
    });
    g.f32(1);
    hsum(g, "acc").get("invD").f32Mul().f32(1e-5).f32Add().f32Sqrt().f32Div().set("rs");
    g.get("rs").f32x4Splat().set("vrs");
    g.get("mean").get("mu").f32Store();
    g.get("rstd").get("rs").f32Store();
    // y
    g.forUp("j", "D4", 16, (h) => {
      h.addr("y", "j");
      h.addr("x", "j").v128Load().get("vmu").f32x4Sub().get("vrs").f32x4Mul();
      h.addr("g", "j").v128Load().f32x4Mul();
      h.addr("b", "j").v128Load().f32x4Add();
      h.v128Store();
    });
    for (const p of ["x", "y"]) g.inc(p, "D4");
    for (const p of ["mean", "rstd"]) g.inc(p, 4);
  });
}

/**
 * ln_bwd(x, g, mean, rstd, dy, dx, dg, db, N, D), x̂ = (x − μ)·r:
 *   dg += dy·x̂,  db += dy,  dx += r·(dy·g − mean(dy·g) − x̂·mean(dy·g·x̂))
 */
function emitLnBwd(m: ModuleBuilder): void {
  const f = kernel(m, "ln_bwd", ["x", "g", "mean", "rstd", "dy", "dx", "dg", "db", "N", "D"]);
  f.local("j", "i32").local("D4", "i32").local("invD", "f32");
  for (const l of ["vmu", "vrs", "xh", "dyv", "dxh", "sD", "sDX", "vmD", "vmDX"])
    f.local(l, "v128");
  f.bytes("D").set("D4");
  reciprocal(f, "D", "invD");
  const xhat = (h: F) => {
    // xh = (x − μ)·r
    h.addr("x", "j").v128Load().get("vmu").f32x4Sub().get("vrs").f32x4Mul().set("xh");
  };
  f.forUp("i", "N", 1, (g) => {
    g.get("mean").f32Load().f32x4Splat().set("vmu");
    g.get("rstd").f32Load().f32x4Splat().set("vrs");
    g.v128Zero().set("sD");
    g.v128Zero().set("sDX");
    g.forUp("j", "D4", 16, (h) => {
      xhat(h);
      h.addr("dy", "j").v128Load().set("dyv");
      h.get("dyv").addr("g", "j").v128Load().f32x4Mul().set("dxh");
      // dg += dy·x̂, db += dy
      h.addr("dg", "j");
      h.addr("dg", "j").v128Load().get("dyv").get("xh").f32x4Mul().f32x4Add();
      h.v128Store();
      h.addr("db", "j");
      h.addr("db", "j").v128Load().get("dyv").f32x4Add();
      h.v128Store();
      h.get("sD").get("dxh").f32x4Add().set("sD");
      h.get("sDX").get("dxh").get("xh").f32x4Mul().f32x4Add().set("sDX");
    });
    hsum(g, "sD").get("invD").f32Mul().f32x4Splat().set("vmD");
    hsum(g, "sDX").get("invD").f32Mul().f32x4Splat().set("vmDX");
    g.forUp("j", "D4", 16, (h) => {
      xhat(h);
      h.addr("dx", "j");
      h.addr("dx", "j").v128Load();
      // r·(dy·g − mD − x̂·mDX)
      h.addr("dy", "j").v128Load().addr("g", "j").v128Load().f32x4Mul();
      h.get("vmD").f32x4Sub();
      h.get("xh").get("vmDX").f32x4Mul().f32x4Sub();
      h.get("vrs").f32x4Mul().f32x4Add();
      h.v128Store();
    });
    for (const p of ["x", "dy", "dx"]) g.inc(p, "D4");
    for (const p of ["mean", "rstd"]) g.inc(p, 4);
  });
}

/**
 * softmax_rows(z, p, stats, N, V): per row p = exp(z − max)/Σ, and stats = (max, Σ exp(z − max),
 * Σ exp(z − max)·z).
 */
function emitSoftmaxRows(m: ModuleBuilder): void {
  const f = kernel(m, "softmax_rows", ["z", "p", "stats", "N", "V"]);
  f.local("j", "i32").local("V4", "i32").local("mx", "f32").local("s", "f32");
  for (const l of ["vm", "acc", "accz", "zv", "e", "inv", "xx"]) f.local(l, "v128");
  const k = hoistSoftmaxConsts(f);
  const exp = expEmitter(f, k);
  f.bytes("V").set("V4");
  f.forUp("i", "N", 1, (g) => {
    vmaxRow(g, k, "z", "j", "V4");
    hmax(g, "acc").set("mx");
    g.get("mx").f32x4Splat().set("vm");
    g.v128Zero().set("acc");
    g.v128Zero().set("accz");
    g.forUp("j", "V4", 16, (h) => {
      h.addr("z", "j").v128Load().set("zv");
      h.get("zv").get("vm").f32x4Sub().set("xx");
      exp(h, "xx", "e");
      h.addr("p", "j").get("e").v128Store();
      h.get("acc").get("e").f32x4Add().set("acc");
      h.get("accz").get("e").get("zv").f32x4Mul().f32x4Add().set("accz");
    });
    hsum(g, "acc").set("s");
    g.get("stats").get("mx").f32Store(0);
    g.get("stats").get("s").f32Store(4);
    g.get("stats");
    hsum(g, "accz").f32Store(8);
    g.f32(1).get("s").f32Div().f32x4Splat().set("inv");
    scaleRow(g, "p", "j", "V4", "inv");
    for (const p of ["z", "p"]) g.inc(p, "V4");
    g.inc("stats", 12);
  });
}

/** scale_affine(p, z, V, a, c): p ← p·(a + c·z). */
function emitScaleAffine(m: ModuleBuilder): void {
  const f = kernel(m, "scale_affine", ["p", "z", "V", ["a", "f32"], ["c", "f32"]]);
  f.local("va", "v128").local("vc", "v128").local("end", "i32");
  f.get("a").f32x4Splat().set("va");
  f.get("c").f32x4Splat().set("vc");
  f.get("p").bytes("V").i32Add().set("end");
  f.get("V")
    .i32(1)
    .i32LtS()
    .if((g) => g.return());
  f.loop((h) => {
    h.get("p");
    h.get("p").v128Load();
    h.get("z").v128Load().get("vc").f32x4Mul().get("va").f32x4Add();
    h.f32x4Mul().v128Store();
    h.inc("p", 16);
    h.inc("z", 16);
    h.get("p").get("end").i32LtU().brIf(0);
  });
}

/**
 * attn_softmax(p, rows, T, n0, scale): row r sees its first n = n0 + r entries:
 * p[j] ← softmax_j(p[j]·scale) for j < n, 0 for n ≤ j < T.
 */
function emitAttnSoftmax(m: ModuleBuilder): void {
  const f = kernel(m, "attn_softmax", ["p", "rows", "T", "n0", ["scale", "f32"]]);
  const k = hoistSoftmaxConsts(f);
  const exp = expEmitter(f, k);
  f.local("n", "i32").local("n4", "i32").local("nv", "i32").local("j", "i32").local("T4", "i32");
  f.local("mx", "f32").local("q", "i32"); // (q: unused)
  for (const l of ["vs", "vm", "acc", "e", "xx", "inv"]) f.local(l, "v128");
  f.get("scale").f32x4Splat().set("vs");
  f.bytes("T").set("T4");
  f.forUp("r", "rows", 1, (g) => {
    g.get("n0").get("r").i32Add().set("n");
    // n4: bytes of the whole vectors before n (unused); nv: bytes of the vectors covering [0, n)
    g.get("n").i32(-4).i32And().i32(2).i32Shl().set("n4");
    g.get("n").i32(3).i32Add().i32(-4).i32And().i32(2).i32Shl().set("nv");
    // entries n … nv−1 (the tail of the last vector) get −∞ so the vector code ignores them
    fillTail(g, "p", Number.NEGATIVE_INFINITY);
    vmaxRow(g, k, "p", "j", "nv");
    hmax(g, "acc").get("scale").f32Mul().set("mx");
    g.get("mx").f32x4Splat().set("vm");
    expShiftedRow(g, exp, "p", "j");
    // the −∞ lanes became e^−87 ≈ 1.6e-38 (≤ 3 of them: nothing next to the e⁰ = 1 of the max);
    // they are zeroed below
    reciprocalOfSum(g);
    scaleRow(g, "p", "j", "nv", "inv");
    fillTail(g, "p", 0);
    g.for(
      "j",
      (h) => h.get("nv"),
      (h) => h.get("T4"),
      16,
      (h) => {
        h.addr("p", "j").v128Zero().v128Store();
      },
    );
    g.inc("p", "T4");
  });
}

/** softmax_bwd(ds, p, rows, T, len, scale): ds ← scale·p·(ds − Σ_j ds·p) over each row's first len. */
function emitSoftmaxBwd(m: ModuleBuilder): void {
  const f = kernel(m, "softmax_bwd", ["ds", "p", "rows", "T", "len", ["scale", "f32"]]);
  f.local("j", "i32").local("L4", "i32").local("T4", "i32");
  for (const l of ["acc", "vd", "vs", "pv"]) f.local(l, "v128");
  f.get("scale").f32x4Splat().set("vs");
  f.bytes("T").set("T4");
  f.bytes("len").set("L4");
  f.forUp("r", "rows", 1, (g) => {
    g.v128Zero().set("acc");
    g.forUp("j", "L4", 16, (h) => {
      h.get("acc");
      h.addr("ds", "j").v128Load().addr("p", "j").v128Load();
      h.f32x4Mul().f32x4Add().set("acc");
    });
    hsum(g, "acc").f32x4Splat().set("vd");
    g.forUp("j", "L4", 16, (h) => {
      h.addr("p", "j").v128Load().set("pv");
      h.addr("ds", "j");
      h.addr("ds", "j").v128Load().get("vd").f32x4Sub().get("pv").f32x4Mul();
      h.get("vs").f32x4Mul().v128Store();
    });
    g.inc("ds", "T4");
    g.inc("p", "T4");
  });
}

/**
 * rope(x, cos, sin, rows, T, stride, nh, half, sign): row r at position t = r mod T; in each of
 * the first nh head slices, (x_i, x_{i+half}) ← (x_i·c − x_{i+half}·s, x_{i+half}·c + x_i·s).
 */
function emitRope(m: ModuleBuilder): void {
  const f = kernel(m, "rope", [
    "x",
    "cos",
    "sin",
    "rows",
    "T",
    "stride",
    "nh",
    "half",
    ["sign", "f32"],
  ]);
  f.local("t", "i32").local("o", "i32").local("H4", "i32").local("cp", "i32").local("sp", "i32");
  f.local("row", "i32").local("i", "i32");
  for (const l of ["vsg", "c", "s", "x1", "x2"]) f.local(l, "v128");
  f.get("sign").f32x4Splat().set("vsg");
  f.bytes("half").set("H4");
  f.get("x").set("row");
  f.forUp("r", "rows", 1, (g) => {
    // table rows of position t = r mod T
    g.get("r").get("r").get("T").i32DivU().get("T").i32Mul().i32Sub().get("H4").i32Mul();
    g.set("t");
    g.get("row").set("o");
    g.forUp("h", "nh", 1, (h) => {
      h.forUp("i", "H4", 16, (y) => {
        y.addr("cos", "t").get("i").i32Add().v128Load().set("c");
        y.addr("sin", "t").get("i").i32Add().v128Load().get("vsg").f32x4Mul();
        y.set("s");
        y.addr("o", "i").set("cp");
        y.addr("cp", "H4").set("sp");
        y.get("cp").v128Load().set("x1");
        y.get("sp").v128Load().set("x2");
        y.get("cp");
        y.get("x1").get("c").f32x4Mul().get("x2").get("s").f32x4Mul().f32x4Sub();
        y.v128Store();
        y.get("sp");
        y.get("x2").get("c").f32x4Mul().get("x1").get("s").f32x4Mul().f32x4Add();
        y.v128Store();
      });
      h.get("o").get("H4").i32(1).i32Shl().i32Add().set("o");
    });
    g.get("row").bytes("stride").i32Add().set("row");
  });
}

/** arow, aend, crow: the byte addresses of row i of A, its end (K floats on), row i of C. */
function gemvRow(g: F): void {
  g.get("A").get("i").get("lda").i32Mul().i32(2).i32Shl().i32Add().set("arow");
  g.get("arow").bytes("K").i32Add().set("aend");
  g.get("C").get("i").get("ldc").i32Mul().i32(2).i32Shl().i32Add().set("crow");
}

/** ap += 4, and loop (br_if 0) while ap < aend. */
function nextAOrExit(x: F): void {
  x.get("ap").i32(4).i32Add().tee("ap").get("aend").i32LtU().brIf(0);
}

/**
 * gemv_nn(M, N, K, A, lda, B, ldb, C, ldc, acc): C[i][j] (+)= Σ_k A[i][k]·B[k][j], 16 columns a
 * strip (then 4), each sum from 0 over k in order (as the GEMM's micro-kernel forms it: the same
 * bits as gemm's), then added to C when acc.
 */
function emitGemvNN(m: ModuleBuilder): void {
  const f = kernel(m, "gemv_nn", ["M", "N", "K", "A", "lda", "B", "ldb", "C", "ldc", "acc"]);
  f.local("arow", "i32").local("crow", "i32").local("bp", "i32").local("ap", "i32");
  f.local("ldb4", "i32").local("N16", "i32").local("aend", "i32");
  for (const l of ["a", "c0", "c1", "c2", "c3"]) f.local(l, "v128");
  f.bytes("ldb").set("ldb4");
  f.get("N").i32(-16).i32And().set("N16");
  const strip = (g: F, nv: number) => {
    for (let v = 0; v < nv; v++) g.v128Zero().set(`c${v}`);
    g.get("B").bytes("j").i32Add().set("bp");
    g.get("arow").set("ap");
    g.get("K")
      .i32(0)
      .i32GtS()
      .if((h) => {
        h.loop((x) => {
          x.get("ap").v128Load32Splat().set("a");
          for (let v = 0; v < nv; v++)
            x.get(`c${v}`)
              .get("a")
              .get("bp")
              .v128Load(16 * v)
              .f32x4Mul()
              .f32x4Add()
              .set(`c${v}`);
          x.inc("bp", "ldb4");
          nextAOrExit(x);
        });
      });
    for (let v = 0; v < nv; v++) {
      g.get("acc").if((h) => {
        h.get("crow")
          .bytes("j")
          .i32Add()
          .v128Load(16 * v)
          .get(`c${v}`)
          .f32x4Add()
          .set(`c${v}`);
      });
      g.get("crow")
        .bytes("j")
        .i32Add()
        .get(`c${v}`)
        .v128Store(16 * v);
    }
  };
  f.forUp("i", "M", 1, (g) => {
    gemvRow(g);
    g.forUp("j", "N16", 16, (h) => strip(h, 4));
    g.for(
      "j",
      (h) => h.get("N16"),
      (h) => h.get("N"),
      4,
      (h) => strip(h, 1),
    );
  });
}

/**
 * gemv_nt(M, N, K, A, lda, B, ldb, C, ldc): C[i][j] = Σ_k A[i][k]·B[j][k], each sum over k in
 * order from 0 (as the GEMM forms it, so the same bits): four j per vector, their B entries
 * gathered lane by lane; the last N mod 4 scalar.
 */
function emitGemvNT(m: ModuleBuilder): void {
  const f = kernel(m, "gemv_nt", ["M", "N", "K", "A", "lda", "B", "ldb", "C", "ldc"]);
  for (const l of ["arow", "crow", "ap", "aend", "b0", "ldb4", "N4", "j"]) f.local(l, "i32");
  f.local("s", "v128").local("bv", "v128").local("t", "f32");
  f.bytes("ldb").set("ldb4");
  f.get("N").i32(-4).i32And().set("N4");
  f.get("K")
    .i32(1)
    .i32LtS()
    .if((g) => g.return());
  const rowOfB = (h: F) => {
    h.get("B").get("j").get("ldb4").i32Mul().i32Add().set("b0");
    h.get("arow").set("ap");
  };
  f.forUp("i", "M", 1, (g) => {
    gemvRow(g);
    g.forUp("j", "N4", 4, (h) => {
      h.v128Zero().set("s");
      rowOfB(h);
      h.loop((x) => {
        // bv = (B[j][k], B[j+1][k], B[j+2][k], B[j+3][k])
        x.get("b0").f32Load().f32x4Splat();
        for (let lane = 1; lane < 4; lane++)
          x.get("b0").get("ldb4").i32(lane).i32Mul().i32Add().f32Load().f32x4ReplaceLane(lane);
        x.set("bv");
        x.get("s").get("ap").v128Load32Splat().get("bv").f32x4Mul().f32x4Add().set("s");
        x.inc("b0", 4);
        nextAOrExit(x);
      });
      h.get("crow").bytes("j").i32Add().get("s").v128Store();
    });
    g.for(
      "j",
      (h) => h.get("N4"),
      (h) => h.get("N"),
      1,
      (h) => {
        h.f32(0).set("t");
        rowOfB(h);
        h.loop((x) => {
          x.get("t").get("ap").f32Load().get("b0").f32Load().f32Mul().f32Add().set("t");
          x.inc("b0", 4);
          nextAOrExit(x);
        });
        h.get("crow").bytes("j").i32Add().get("t").f32Store();
      },
    );
  });
}

/** acc_i += vec·load(ptr + 16i) for each named accumulator (a sum in the GEMM's order). */
function madd(g: F, accs: readonly string[], vec: string, ptr: string): void {
  accs.forEach((a, i) => {
    g.get(a)
      .get(vec)
      .get(ptr)
      .v128Load(16 * i)
      .f32x4Mul()
      .f32x4Add()
      .set(a);
  });
}

/** store(base + 16i) = acc_i for each named accumulator. */
function storeAll(g: F, accs: readonly string[], base: (x: F) => void): void {
  accs.forEach((a, i) => {
    base(g);
    g.get(a).v128Store(16 * i);
  });
}

/**
 * attn_decode(q, knew, kt, ldk, vb, n, H, hd, D, out, sc, scale): one decode step's attention for
 * one query row, every head: s_j = q·k_j over the n cached keys (stored transposed; the new key
 * written first), p = softmax(s·scale) by attn_softmax's steps, out = Σ_j p_j·v_j.
 */
function emitAttnDecode(m: ModuleBuilder): void {
  const f = kernel(m, "attn_decode", [
    "q",
    "knew",
    "kt",
    "ldk",
    "vb",
    "n",
    "H",
    "hd",
    "D",
    "out",
    "sc",
    ["scale", "f32"],
  ]);
  const k = hoistSoftmaxConsts(f);
  const exp = expEmitter(f, k);
  for (const l of ["hd4", "hd16", "D4", "ldk4", "nv", "nv16", "kp", "kq", "vp", "qh", "oh"])
    f.local(l, "i32");
  for (const l of ["acc", "a0", "a1", "a2", "a3", "qv", "vm", "vs", "xx", "e", "inv", "pj"])
    f.local(l, "v128");
  // byte counts: a head's dims, its dims in whole blocks of 16, a value row, a key-dim row,
  // the scores padded to whole vectors and those in whole blocks of 16
  f.bytes("hd").set("hd4");
  f.get("hd4").i32(-64).i32And().set("hd16");
  f.bytes("D").set("D4");
  f.bytes("ldk").set("ldk4");
  f.get("n").i32(3).i32Add().i32(-4).i32And().i32(2).i32Shl().set("nv");
  f.get("nv").i32(-64).i32And().set("nv16");
  f.get("scale").f32x4Splat().set("vs");
  // the new key (position n − 1) into its column of the transposed cache
  f.get("kt").get("n").i32(1).i32Sub().i32(2).i32Shl().i32Add().set("kq");
  f.for(
    "c",
    (g) => g.get("knew"),
    (g) => g.get("knew").get("D4").i32Add(),
    4,
    (g) => {
      g.get("kq").get("c").f32Load().f32Store();
      g.inc("kq", "ldk4");
    },
  );
  const four = ["a0", "a1", "a2", "a3"];
  /** for v from `from` (0 or a local) to local `to`: zero accs, `pass`, store accs at `dst`+v. */
  const blocks = (
    g: F,
    v: string,
    ranges: readonly (readonly [string | 0, string, number, readonly string[]])[],
    pass: (h: F, accs: readonly string[]) => void,
    dst: (x: F) => void,
  ) => {
    for (const [from, to, step, accs] of ranges)
      g.for(
        v,
        (h) => (from === 0 ? h.i32(0) : h.get(from)),
        (h) => h.get(to),
        step,
        (h) => {
          for (const a of accs) h.v128Zero().set(a);
          pass(h, accs);
          storeAll(h, accs, dst);
        },
      );
  };
  f.forUp("h", "H", 1, (g) => {
    g.get("q").get("h").get("hd4").i32Mul().i32Add().set("qh");
    g.get("out").get("h").get("hd4").i32Mul().i32Add().set("oh");
    // raw scores s_j = q·k_j, each summed over the head's dims in order (as the GEMM does):
    // the keys are stored transposed, so 4 consecutive keys' dim c is one vector; 16 keys a
    // block (4 independent sums), then 4 at a time. Lanes past n read padding, set below.
    g.get("kt").get("h").get("hd4").i32Mul().get("ldk").i32Mul().i32Add().set("kp");
    blocks(
      g,
      "j4",
      [
        [0, "nv16", 64, four],
        ["nv16", "nv", 16, ["acc"]],
      ],
      (h, accs) => {
        h.addr("kp", "j4").set("kq");
        h.forUp("c", "hd4", 4, (x) => {
          x.addr("qh", "c").v128Load32Splat().set("qv");
          madd(x, accs, "qv", "kq");
          x.inc("kq", "ldk4");
        });
      },
      (x) => x.addr("sc", "j4"),
    );
    // from here on exactly attn_softmax's steps for a row that sees n keys
    fillTail(g, "sc", Number.NEGATIVE_INFINITY);
    vmaxRow(g, k, "sc", "j4", "nv");
    hmax(g, "acc").get("scale").f32Mul().f32x4Splat().set("vm");
    expShiftedRow(g, exp, "sc", "j4");
    reciprocalOfSum(g);
    // out = Σ_j p_j·v_j, j in order from 0 (the P·V GEMM's sum), p_j = e_j·inv; the sums
    // stay in registers: 16 dims a pass over the keys, then 4
    blocks(
      g,
      "c",
      [
        [0, "hd16", 64, four],
        ["hd16", "hd4", 16, ["acc"]],
      ],
      (h, accs) => {
        h.get("vb").get("h").get("hd4").i32Mul().i32Add().get("c").i32Add().set("vp");
        h.forUp("j", "n", 1, (x) => {
          x.get("sc").get("j").i32(2).i32Shl().i32Add().v128Load32Splat();
          x.get("inv").f32x4Mul().set("pj");
          madd(x, accs, "pj", "vp");
          x.inc("vp", "D4");
        });
      },
      (x) => x.addr("oh", "c"),
    );
  });
}

let cachedModule: WebAssembly.Module | undefined;

/** Instantiates the ops over `memory` (with a maximum, as the GEMM's; throws without wasm SIMD). */
export function instantiateOps(memory: WebAssembly.Memory): OpsExports {
  const shared =
    typeof SharedArrayBuffer !== "undefined" && memory.buffer instanceof SharedArrayBuffer;
  let mod: WebAssembly.Module;
  if (shared) mod = new WebAssembly.Module(buildOpsModule(true));
  else {
    cachedModule ??= new WebAssembly.Module(buildOpsModule(false));
    mod = cachedModule;
  }
  return new WebAssembly.Instance(mod, { env: { memory } }).exports as unknown as OpsExports;
}
