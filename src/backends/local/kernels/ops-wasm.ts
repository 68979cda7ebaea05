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
 */
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

/** Declares v128 locals holding splatted constants; returns a getter. */
function hoist(f: F, values: Record<string, number>): (name: string) => F {
  for (const [name, x] of Object.entries(values))
    f.local(name, "v128").f32(x).f32x4Splat().set(name);
  return (name: string) => {
    if (!(name in values)) throw new Error(`constant ${name} not hoisted`);
    return f.get(name);
  };
}

/** Sum of the four lanes of local `v` onto the stack (as f32). */
function hsum(f: F, v: string): F {
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

const SQRT_2_OVER_PI = Math.sqrt(2 / Math.PI);

const EXP_CONSTS = {
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

/**
 * Returns an emitter of `out = exp(x)` over v128 locals (x clamped to [−87, 87], so 2ⁿ stays a
 * normal float): n = round(x·log₂e) (by the 1.5·2²³ trick, which also leaves n + 127 in the low
 * mantissa bits: shifted left by 23 they are 2ⁿ), r = x − n·ln2 (Cody–Waite, two parts), and a
 * degree-6 Taylor polynomial of e^r on |r| ≤ ln2/2 (relative error < 2e-7).
 * `k` must have the {@link EXP_CONSTS} hoisted.
 */
function expEmitter(f: F, k: (name: string) => F): (h: F, x: string, out: string) => void {
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

export function buildOpsModule(shared = false): Uint8Array {
  const m = new ModuleBuilder({
    module: "env",
    name: "memory",
    initial: 1,
    maximum: 65536,
    shared,
  });

  // ── gelu(x, y, d, n) ──
  {
    const f = m.func(
      "gelu",
      [
        ["x", "i32"],
        ["y", "i32"],
        ["d", "i32"],
        ["n", "i32"],
      ],
      [],
    );
    const k = hoist(f, {
      ...EXP_CONSTS,
      c044: 0.044715,
      c134: 3 * 0.044715,
      m2cs: -2 * SQRT_2_OVER_PI,
      cs: SQRT_2_OVER_PI,
      half: 0.5,
    });
    const exp = expEmitter(f, k);
    // U vectors per iteration (independent chains for the out-of-order core)
    const body = (g: F, U: number, withD: boolean) => {
      const L = (l: string, w: number) => `${l}${w}`;
      for (let w = 0; w < U; w++) for (const l of ["v", "e", "t"]) f.local(L(l, w), "v128");
      for (let w = 0; w < U; w++)
        g.get("x")
          .v128Load(16 * w)
          .set(L("v", w));
      for (let w = 0; w < U; w++) {
        // tanh(s) = (1 − E)/(1 + E), E = e^{−2s}, s = √(2/π)·(v + 0.044715 v³)
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
        const h = g;
        for (let w = 0; w < U; w++) {
          // d = ½(1 + t) + ½·v·(1 − t²)·√(2/π)·(1 + 3·0.044715·v²)
          h.get("d");
          h.get(L("t", w));
          k("one");
          h.f32x4Add();
          k("half");
          h.f32x4Mul();
          k("one");
          h.get(L("t", w)).get(L("t", w)).f32x4Mul().f32x4Sub();
          h.get(L("v", w)).f32x4Mul();
          k("half");
          h.f32x4Mul();
          k("cs");
          h.f32x4Mul();
          h.get(L("v", w)).get(L("v", w)).f32x4Mul();
          k("c134");
          h.f32x4Mul();
          k("one");
          h.f32x4Add()
            .f32x4Mul()
            .f32x4Add()
            .v128Store(16 * w);
        }
        h.get("d")
          .i32(16 * U)
          .i32Add()
          .set("d");
      }
      for (const p of ["x", "y"])
        g.get(p)
          .i32(16 * U)
          .i32Add()
          .set(p);
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
          g.for(
            "i",
            (h) => h.i32(0),
            (h) => h.get("nU"),
            4 * U,
            (h) => body(h, U, withD),
          );
          g.for(
            "i",
            (h) => h.get("nU"),
            (h) => h.get("n"),
            4,
            (h) => body(h, 1, withD),
          );
        });
  }

  // ── vmul(a, b, n): a *= b ──
  {
    const f = m.func(
      "vmul",
      [
        ["a", "i32"],
        ["b", "i32"],
        ["n", "i32"],
      ],
      [],
    );
    f.for(
      "i",
      (g) => g.i32(0),
      (g) => g.get("n"),
      4,
      (g) => {
        g.get("a").get("a").v128Load().get("b").v128Load().f32x4Mul().v128Store();
        g.get("a").i32(16).i32Add().set("a");
        g.get("b").i32(16).i32Add().set("b");
      },
    );
  }

  // ── vadd(a, b, c, n): c = a + b ──
  {
    const f = m.func(
      "vadd",
      [
        ["a", "i32"],
        ["b", "i32"],
        ["c", "i32"],
        ["n", "i32"],
      ],
      [],
    );
    f.for(
      "i",
      (g) => g.i32(0),
      (g) => g.get("n"),
      4,
      (g) => {
        g.get("c").get("a").v128Load().get("b").v128Load().f32x4Add().v128Store();
        g.get("a").i32(16).i32Add().set("a");
        g.get("b").i32(16).i32Add().set("b");
        g.get("c").i32(16).i32Add().set("c");
      },
    );
  }

  // ── colsum(dst, src, rows, cols): dst[j] += Σ_i src[i][j] ──
  {
    const f = m.func(
      "colsum",
      [
        ["dst", "i32"],
        ["src", "i32"],
        ["rows", "i32"],
        ["cols", "i32"],
      ],
      [],
    );
    f.local("p", "i32").local("q", "i32").local("end", "i32");
    f.for(
      "i",
      (g) => g.i32(0),
      (g) => g.get("rows"),
      1,
      (g) => {
        g.get("dst").set("p");
        g.get("dst").get("cols").i32(2).i32Shl().i32Add().set("end");
        g.loop((h) => {
          h.get("p").get("p").v128Load().get("src").v128Load().f32x4Add().v128Store();
          h.get("p").i32(16).i32Add().set("p");
          h.get("src").i32(16).i32Add().set("src");
          h.get("p").get("end").i32LtU().brIf(0);
        });
      },
    );
  }

  // ── ln_fwd(x, g, b, y, mean, rstd, N, D) ──
  {
    const f = m.func(
      "ln_fwd",
      [
        ["x", "i32"],
        ["g", "i32"],
        ["b", "i32"],
        ["y", "i32"],
        ["mean", "i32"],
        ["rstd", "i32"],
        ["N", "i32"],
        ["D", "i32"],
      ],
      [],
    );
    f.local("j", "i32").local("D4", "i32").local("acc", "v128").local("d", "v128");
    f.local("mu", "f32").local("rs", "f32").local("vmu", "v128").local("vrs", "v128");
    f.local("invD", "f32");
    f.get("D").i32(2).i32Shl().set("D4");
    f.f32(1).get("D").f32ConvertI32S().f32Div().set("invD");
    f.for(
      "i",
      (g) => g.i32(0),
      (g) => g.get("N"),
      1,
      (g) => {
        g.v128Zero().set("acc");
        g.for(
          "j",
          (h) => h.i32(0),
          (h) => h.get("D4"),
          16,
          (h) => {
            h.get("acc").get("x").get("j").i32Add().v128Load().f32x4Add().set("acc");
          },
        );
        hsum(g, "acc").get("invD").f32Mul().set("mu");
        g.get("mu").f32x4Splat().set("vmu");
        g.v128Zero().set("acc");
        g.for(
          "j",
          (h) => h.i32(0),
          (h) => h.get("D4"),
          16,
          (h) => {
            h.get("x").get("j").i32Add().v128Load().get("vmu").f32x4Sub().set("d");
            h.get("acc").get("d").get("d").f32x4Mul().f32x4Add().set("acc");
          },
        );
        g.f32(1);
        hsum(g, "acc").get("invD").f32Mul().f32(1e-5).f32Add().f32Sqrt().f32Div().set("rs");
        g.get("rs").f32x4Splat().set("vrs");
        g.get("mean").get("mu").f32Store();
        g.get("rstd").get("rs").f32Store();
        g.for(
          "j",
          (h) => h.i32(0),
          (h) => h.get("D4"),
          16,
          (h) => {
            h.get("y").get("j").i32Add();
            h.get("x").get("j").i32Add().v128Load().get("vmu").f32x4Sub().get("vrs").f32x4Mul();
            h.get("g").get("j").i32Add().v128Load().f32x4Mul();
            h.get("b").get("j").i32Add().v128Load().f32x4Add();
            h.v128Store();
          },
        );
        for (const p of ["x", "y"]) g.get(p).get("D4").i32Add().set(p);
        for (const p of ["mean", "rstd"]) g.get(p).i32(4).i32Add().set(p);
      },
    );
  }

  // ── ln_bwd(x, g, mean, rstd, dy, dx, dg, db, N, D) ──
  {
    const f = m.func(
      "ln_bwd",
      [
        ["x", "i32"],
        ["g", "i32"],
        ["mean", "i32"],
        ["rstd", "i32"],
        ["dy", "i32"],
        ["dx", "i32"],
        ["dg", "i32"],
        ["db", "i32"],
        ["N", "i32"],
        ["D", "i32"],
      ],
      [],
    );
    f.local("j", "i32").local("D4", "i32").local("invD", "f32");
    for (const l of ["vmu", "vrs", "xh", "dyv", "dxh", "sD", "sDX", "vmD", "vmDX"])
      f.local(l, "v128");
    f.get("D").i32(2).i32Shl().set("D4");
    f.f32(1).get("D").f32ConvertI32S().f32Div().set("invD");
    const xhat = (h: F) => {
      // xh = (x − μ)·r
      h.get("x").get("j").i32Add().v128Load().get("vmu").f32x4Sub().get("vrs").f32x4Mul().set("xh");
    };
    f.for(
      "i",
      (g) => g.i32(0),
      (g) => g.get("N"),
      1,
      (g) => {
        g.get("mean").f32Load().f32x4Splat().set("vmu");
        g.get("rstd").f32Load().f32x4Splat().set("vrs");
        g.v128Zero().set("sD");
        g.v128Zero().set("sDX");
        g.for(
          "j",
          (h) => h.i32(0),
          (h) => h.get("D4"),
          16,
          (h) => {
            xhat(h);
            h.get("dy").get("j").i32Add().v128Load().set("dyv");
            h.get("dyv").get("g").get("j").i32Add().v128Load().f32x4Mul().set("dxh");
            // dg += dy·x̂, db += dy
            h.get("dg").get("j").i32Add();
            h.get("dg").get("j").i32Add().v128Load().get("dyv").get("xh").f32x4Mul().f32x4Add();
            h.v128Store();
            h.get("db").get("j").i32Add();
            h.get("db").get("j").i32Add().v128Load().get("dyv").f32x4Add();
            h.v128Store();
            h.get("sD").get("dxh").f32x4Add().set("sD");
            h.get("sDX").get("dxh").get("xh").f32x4Mul().f32x4Add().set("sDX");
          },
        );
        hsum(g, "sD").get("invD").f32Mul().f32x4Splat().set("vmD");
        hsum(g, "sDX").get("invD").f32Mul().f32x4Splat().set("vmDX");
        g.for(
          "j",
          (h) => h.i32(0),
          (h) => h.get("D4"),
          16,
          (h) => {
            xhat(h);
            h.get("dx").get("j").i32Add();
            h.get("dx").get("j").i32Add().v128Load();
            // r·(dy·g − mD − x̂·mDX)
            h.get("dy")
              .get("j")
              .i32Add()
              .v128Load()
              .get("g")
              .get("j")
              .i32Add()
              .v128Load()
              .f32x4Mul();
            h.get("vmD").f32x4Sub();
            h.get("xh").get("vmDX").f32x4Mul().f32x4Sub();
            h.get("vrs").f32x4Mul().f32x4Add();
            h.v128Store();
          },
        );
        for (const p of ["x", "dy", "dx"]) g.get(p).get("D4").i32Add().set(p);
        for (const p of ["mean", "rstd"]) g.get(p).i32(4).i32Add().set(p);
      },
    );
  }

  // ── softmax_rows(z, p, stats, N, V) ──
  {
    const f = m.func(
      "softmax_rows",
      [
        ["z", "i32"],
        ["p", "i32"],
        ["stats", "i32"],
        ["N", "i32"],
        ["V", "i32"],
      ],
      [],
    );
    f.local("j", "i32").local("V4", "i32").local("mx", "f32").local("s", "f32");
    for (const l of ["vm", "acc", "accz", "zv", "e", "inv", "xx"]) f.local(l, "v128");
    const k = hoist(f, { ...EXP_CONSTS, ninf: Number.NEGATIVE_INFINITY });
    const exp = expEmitter(f, k);
    f.get("V").i32(2).i32Shl().set("V4");
    f.for(
      "i",
      (g) => g.i32(0),
      (g) => g.get("N"),
      1,
      (g) => {
        k("ninf");
        g.set("acc");
        g.for(
          "j",
          (h) => h.i32(0),
          (h) => h.get("V4"),
          16,
          (h) => {
            h.get("acc").get("z").get("j").i32Add().v128Load().f32x4Max().set("acc");
          },
        );
        g.get("acc")
          .f32x4ExtractLane(0)
          .get("acc")
          .f32x4ExtractLane(1)
          .f32Max()
          .get("acc")
          .f32x4ExtractLane(2)
          .get("acc")
          .f32x4ExtractLane(3)
          .f32Max()
          .f32Max()
          .set("mx");
        g.get("mx").f32x4Splat().set("vm");
        g.v128Zero().set("acc");
        g.v128Zero().set("accz");
        g.for(
          "j",
          (h) => h.i32(0),
          (h) => h.get("V4"),
          16,
          (h) => {
            h.get("z").get("j").i32Add().v128Load().set("zv");
            h.get("zv").get("vm").f32x4Sub().set("xx");
            exp(h, "xx", "e");
            h.get("p").get("j").i32Add().get("e").v128Store();
            h.get("acc").get("e").f32x4Add().set("acc");
            h.get("accz").get("e").get("zv").f32x4Mul().f32x4Add().set("accz");
          },
        );
        hsum(g, "acc").set("s");
        g.get("stats").get("mx").f32Store(0);
        g.get("stats").get("s").f32Store(4);
        g.get("stats");
        hsum(g, "accz").f32Store(8);
        g.f32(1).get("s").f32Div().f32x4Splat().set("inv");
        g.for(
          "j",
          (h) => h.i32(0),
          (h) => h.get("V4"),
          16,
          (h) => {
            h.get("p").get("j").i32Add();
            h.get("p").get("j").i32Add().v128Load().get("inv").f32x4Mul();
            h.v128Store();
          },
        );
        for (const p of ["z", "p"]) g.get(p).get("V4").i32Add().set(p);
        g.get("stats").i32(12).i32Add().set("stats");
      },
    );
  }

  // ── scale_affine(p, z, V, a, c): p ← p·(a + c·z) ──
  {
    const f = m.func(
      "scale_affine",
      [
        ["p", "i32"],
        ["z", "i32"],
        ["V", "i32"],
        ["a", "f32"],
        ["c", "f32"],
      ],
      [],
    );
    f.local("va", "v128").local("vc", "v128").local("end", "i32");
    f.get("a").f32x4Splat().set("va");
    f.get("c").f32x4Splat().set("vc");
    f.get("p").get("V").i32(2).i32Shl().i32Add().set("end");
    f.get("V")
      .i32(1)
      .i32LtS()
      .if((g) => g.return());
    f.loop((h) => {
      h.get("p");
      h.get("p").v128Load();
      h.get("z").v128Load().get("vc").f32x4Mul().get("va").f32x4Add();
      h.f32x4Mul().v128Store();
      h.get("p").i32(16).i32Add().set("p");
      h.get("z").i32(16).i32Add().set("z");
      h.get("p").get("end").i32LtU().brIf(0);
    });
  }

  // ── attn_softmax(p, rows, T, n0, scale) ──
  {
    const f = m.func(
      "attn_softmax",
      [
        ["p", "i32"],
        ["rows", "i32"],
        ["T", "i32"],
        ["n0", "i32"],
        ["scale", "f32"],
      ],
      [],
    );
    const k = hoist(f, { ...EXP_CONSTS, ninf: Number.NEGATIVE_INFINITY });
    const exp = expEmitter(f, k);
    f.local("n", "i32").local("n4", "i32").local("nv", "i32").local("j", "i32").local("T4", "i32");
    f.local("mx", "f32").local("q", "i32");
    for (const l of ["vs", "vm", "acc", "e", "xx", "inv"]) f.local(l, "v128");
    f.get("scale").f32x4Splat().set("vs");
    f.get("T").i32(2).i32Shl().set("T4");
    f.for(
      "r",
      (g) => g.i32(0),
      (g) => g.get("rows"),
      1,
      (g) => {
        g.get("n0").get("r").i32Add().set("n");
        // n4: bytes of the whole vectors before n; nv: bytes of the vectors covering [0, n)
        g.get("n").i32(-4).i32And().i32(2).i32Shl().set("n4");
        g.get("n").i32(3).i32Add().i32(-4).i32And().i32(2).i32Shl().set("nv");
        // entries n … nv−1 (the tail of the last vector) get −∞ so the vector code ignores them
        g.for(
          "j",
          (h) => h.get("n").i32(2).i32Shl(),
          (h) => h.get("nv"),
          4,
          (h) => {
            h.get("p").get("j").i32Add().f32(Number.NEGATIVE_INFINITY).f32Store();
          },
        );
        k("ninf");
        g.set("acc");
        g.for(
          "j",
          (h) => h.i32(0),
          (h) => h.get("nv"),
          16,
          (h) => {
            h.get("acc").get("p").get("j").i32Add().v128Load().f32x4Max().set("acc");
          },
        );
        g.get("acc")
          .f32x4ExtractLane(0)
          .get("acc")
          .f32x4ExtractLane(1)
          .f32Max()
          .get("acc")
          .f32x4ExtractLane(2)
          .get("acc")
          .f32x4ExtractLane(3)
          .f32Max()
          .f32Max()
          .get("scale")
          .f32Mul()
          .set("mx");
        g.get("mx").f32x4Splat().set("vm");
        g.v128Zero().set("acc");
        g.for(
          "j",
          (h) => h.i32(0),
          (h) => h.get("nv"),
          16,
          (h) => {
            h.get("p").get("j").i32Add().v128Load().get("vs").f32x4Mul().get("vm").f32x4Sub();
            h.set("xx");
            exp(h, "xx", "e");
            h.get("p").get("j").i32Add().get("e").v128Store();
            h.get("acc").get("e").f32x4Add().set("acc");
          },
        );
        // the −∞ lanes became e^−87 ≈ 1.6e-38 (≤ 3 of them: nothing next to the e⁰ = 1 of the max);
        // they are zeroed below
        g.f32(1);
        hsum(g, "acc");
        g.f32Div().f32x4Splat().set("inv");
        g.for(
          "j",
          (h) => h.i32(0),
          (h) => h.get("nv"),
          16,
          (h) => {
            h.get("p").get("j").i32Add();
            h.get("p").get("j").i32Add().v128Load().get("inv").f32x4Mul();
            h.v128Store();
          },
        );
        g.for(
          "j",
          (h) => h.get("n").i32(2).i32Shl(),
          (h) => h.get("nv"),
          4,
          (h) => {
            h.get("p").get("j").i32Add().f32(0).f32Store();
          },
        );
        g.for(
          "j",
          (h) => h.get("nv"),
          (h) => h.get("T4"),
          16,
          (h) => {
            h.get("p").get("j").i32Add().v128Zero().v128Store();
          },
        );
        g.get("p").get("T4").i32Add().set("p");
      },
    );
  }

  // ── softmax_bwd(ds, p, rows, T, len, scale) ──
  {
    const f = m.func(
      "softmax_bwd",
      [
        ["ds", "i32"],
        ["p", "i32"],
        ["rows", "i32"],
        ["T", "i32"],
        ["len", "i32"],
        ["scale", "f32"],
      ],
      [],
    );
    f.local("j", "i32").local("L4", "i32").local("T4", "i32");
    for (const l of ["acc", "vd", "vs", "pv"]) f.local(l, "v128");
    f.get("scale").f32x4Splat().set("vs");
    f.get("T").i32(2).i32Shl().set("T4");
    f.get("len").i32(2).i32Shl().set("L4");
    f.for(
      "r",
      (g) => g.i32(0),
      (g) => g.get("rows"),
      1,
      (g) => {
        g.v128Zero().set("acc");
        g.for(
          "j",
          (h) => h.i32(0),
          (h) => h.get("L4"),
          16,
          (h) => {
            h.get("acc");
            h.get("ds").get("j").i32Add().v128Load().get("p").get("j").i32Add().v128Load();
            h.f32x4Mul().f32x4Add().set("acc");
          },
        );
        hsum(g, "acc").f32x4Splat().set("vd");
        g.for(
          "j",
          (h) => h.i32(0),
          (h) => h.get("L4"),
          16,
          (h) => {
            h.get("p").get("j").i32Add().v128Load().set("pv");
            h.get("ds").get("j").i32Add();
            h.get("ds").get("j").i32Add().v128Load().get("vd").f32x4Sub().get("pv").f32x4Mul();
            h.get("vs").f32x4Mul().v128Store();
          },
        );
        g.get("ds").get("T4").i32Add().set("ds");
        g.get("p").get("T4").i32Add().set("p");
      },
    );
  }

  // ── rope(x, cos, sin, rows, T, stride, nh, half, sign) ──
  {
    const f = m.func(
      "rope",
      [
        ["x", "i32"],
        ["cos", "i32"],
        ["sin", "i32"],
        ["rows", "i32"],
        ["T", "i32"],
        ["stride", "i32"],
        ["nh", "i32"],
        ["half", "i32"],
        ["sign", "f32"],
      ],
      [],
    );
    f.local("t", "i32").local("o", "i32").local("H4", "i32").local("cp", "i32").local("sp", "i32");
    f.local("row", "i32").local("i", "i32");
    for (const l of ["vsg", "c", "s", "x1", "x2"]) f.local(l, "v128");
    f.get("sign").f32x4Splat().set("vsg");
    f.get("half").i32(2).i32Shl().set("H4");
    f.get("x").set("row");
    f.for(
      "r",
      (g) => g.i32(0),
      (g) => g.get("rows"),
      1,
      (g) => {
        // table rows of position t = r mod T
        g.get("r").get("r").get("T").i32DivU().get("T").i32Mul().i32Sub().get("H4").i32Mul();
        g.set("t");
        g.get("row").set("o");
        g.for(
          "h",
          (h) => h.i32(0),
          (h) => h.get("nh"),
          1,
          (h) => {
            h.for(
              "i",
              (y) => y.i32(0),
              (y) => y.get("H4"),
              16,
              (y) => {
                y.get("cos").get("t").i32Add().get("i").i32Add().v128Load().set("c");
                y.get("sin").get("t").i32Add().get("i").i32Add().v128Load().get("vsg").f32x4Mul();
                y.set("s");
                y.get("o").get("i").i32Add().set("cp");
                y.get("cp").get("H4").i32Add().set("sp");
                y.get("cp").v128Load().set("x1");
                y.get("sp").v128Load().set("x2");
                y.get("cp");
                y.get("x1").get("c").f32x4Mul().get("x2").get("s").f32x4Mul().f32x4Sub();
                y.v128Store();
                y.get("sp");
                y.get("x2").get("c").f32x4Mul().get("x1").get("s").f32x4Mul().f32x4Add();
                y.v128Store();
              },
            );
            h.get("o").get("H4").i32(1).i32Shl().i32Add().set("o");
          },
        );
        g.get("row").get("stride").i32(2).i32Shl().i32Add().set("row");
      },
    );
  }

  // ── gemv_nn(M, N, K, A, lda, B, ldb, C, ldc, acc) ──
  {
    const f = m.func(
      "gemv_nn",
      [
        ["M", "i32"],
        ["N", "i32"],
        ["K", "i32"],
        ["A", "i32"],
        ["lda", "i32"],
        ["B", "i32"],
        ["ldb", "i32"],
        ["C", "i32"],
        ["ldc", "i32"],
        ["acc", "i32"],
      ],
      [],
    );
    f.local("arow", "i32").local("crow", "i32").local("bp", "i32").local("ap", "i32");
    f.local("ldb4", "i32").local("N16", "i32").local("aend", "i32");
    for (const l of ["a", "c0", "c1", "c2", "c3"]) f.local(l, "v128");
    f.get("ldb").i32(2).i32Shl().set("ldb4");
    f.get("N").i32(-16).i32And().set("N16");
    const strip = (g: F, nv: number) => {
      // c = Σ_k A[i][k]·B[k][j…] from 0, k in order (each lane's sum as the GEMM's micro-kernel
      // forms it, so the result is bit-identical to gemm's), then C = acc ? C + c : c
      for (let v = 0; v < nv; v++) g.v128Zero().set(`c${v}`);
      g.get("B").get("j").i32(2).i32Shl().i32Add().set("bp");
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
            x.get("bp").get("ldb4").i32Add().set("bp");
            x.get("ap").i32(4).i32Add().tee("ap").get("aend").i32LtU().brIf(0);
          });
        });
      for (let v = 0; v < nv; v++) {
        g.get("acc").if((h) => {
          h.get("crow")
            .get("j")
            .i32(2)
            .i32Shl()
            .i32Add()
            .v128Load(16 * v)
            .get(`c${v}`)
            .f32x4Add()
            .set(`c${v}`);
        });
        g.get("crow")
          .get("j")
          .i32(2)
          .i32Shl()
          .i32Add()
          .get(`c${v}`)
          .v128Store(16 * v);
      }
    };
    f.for(
      "i",
      (g) => g.i32(0),
      (g) => g.get("M"),
      1,
      (g) => {
        g.get("A").get("i").get("lda").i32Mul().i32(2).i32Shl().i32Add().set("arow");
        g.get("arow").get("K").i32(2).i32Shl().i32Add().set("aend");
        g.get("C").get("i").get("ldc").i32Mul().i32(2).i32Shl().i32Add().set("crow");
        g.for(
          "j",
          (h) => h.i32(0),
          (h) => h.get("N16"),
          16,
          (h) => strip(h, 4),
        );
        g.for(
          "j",
          (h) => h.get("N16"),
          (h) => h.get("N"),
          4,
          (h) => strip(h, 1),
        );
      },
    );
  }

  // ── gemv_nt(M, N, K, A, lda, B, ldb, C, ldc) ──
  // C[i][j] = Σ_k A[i][k]·B[j][k], each sum over k in order from 0 (as the GEMM forms it, so the
  // same bits): four j per vector, their B entries gathered lane by lane; the last N mod 4 scalar.
  {
    const f = m.func(
      "gemv_nt",
      [
        ["M", "i32"],
        ["N", "i32"],
        ["K", "i32"],
        ["A", "i32"],
        ["lda", "i32"],
        ["B", "i32"],
        ["ldb", "i32"],
        ["C", "i32"],
        ["ldc", "i32"],
      ],
      [],
    );
    for (const l of ["arow", "crow", "ap", "aend", "b0", "ldb4", "N4", "j"]) f.local(l, "i32");
    f.local("s", "v128").local("bv", "v128").local("t", "f32");
    f.get("ldb").i32(2).i32Shl().set("ldb4");
    f.get("N").i32(-4).i32And().set("N4");
    f.get("K")
      .i32(1)
      .i32LtS()
      .if((g) => g.return());
    f.for(
      "i",
      (g) => g.i32(0),
      (g) => g.get("M"),
      1,
      (g) => {
        g.get("A").get("i").get("lda").i32Mul().i32(2).i32Shl().i32Add().set("arow");
        g.get("arow").get("K").i32(2).i32Shl().i32Add().set("aend");
        g.get("C").get("i").get("ldc").i32Mul().i32(2).i32Shl().i32Add().set("crow");
        g.for(
          "j",
          (h) => h.i32(0),
          (h) => h.get("N4"),
          4,
          (h) => {
            h.v128Zero().set("s");
            h.get("B").get("j").get("ldb4").i32Mul().i32Add().set("b0");
            h.get("arow").set("ap");
            h.loop((x) => {
              // bv = (B[j][k], B[j+1][k], B[j+2][k], B[j+3][k])
              x.get("b0").f32Load().f32x4Splat();
              for (let lane = 1; lane < 4; lane++)
                x.get("b0")
                  .get("ldb4")
                  .i32(lane)
                  .i32Mul()
                  .i32Add()
                  .f32Load()
                  .f32x4ReplaceLane(lane);
              x.set("bv");
              x.get("s").get("ap").v128Load32Splat().get("bv").f32x4Mul().f32x4Add().set("s");
              x.get("b0").i32(4).i32Add().set("b0");
              x.get("ap").i32(4).i32Add().tee("ap").get("aend").i32LtU().brIf(0);
            });
            h.get("crow").get("j").i32(2).i32Shl().i32Add().get("s").v128Store();
          },
        );
        g.for(
          "j",
          (h) => h.get("N4"),
          (h) => h.get("N"),
          1,
          (h) => {
            h.f32(0).set("t");
            h.get("B").get("j").get("ldb4").i32Mul().i32Add().set("b0");
            h.get("arow").set("ap");
            h.loop((x) => {
              x.get("t").get("ap").f32Load().get("b0").f32Load().f32Mul().f32Add().set("t");
              x.get("b0").i32(4).i32Add().set("b0");
              x.get("ap").i32(4).i32Add().tee("ap").get("aend").i32LtU().brIf(0);
            });
            h.get("crow").get("j").i32(2).i32Shl().i32Add().get("t").f32Store();
          },
        );
      },
    );
  }

  // ── attn_decode(q, knew, kt, ldk, vb, n, H, hd, D, out, sc, scale) ──
  {
    const f = m.func(
      "attn_decode",
      [
        ["q", "i32"],
        ["knew", "i32"],
        ["kt", "i32"],
        ["ldk", "i32"],
        ["vb", "i32"],
        ["n", "i32"],
        ["H", "i32"],
        ["hd", "i32"],
        ["D", "i32"],
        ["out", "i32"],
        ["sc", "i32"],
        ["scale", "f32"],
      ],
      [],
    );
    const k = hoist(f, { ...EXP_CONSTS, ninf: Number.NEGATIVE_INFINITY });
    const exp = expEmitter(f, k);
    for (const l of ["hd4", "hd16", "D4", "ldk4", "nv", "nv16", "kp", "kq", "vp", "qh", "oh"])
      f.local(l, "i32");
    for (const l of ["acc", "a0", "a1", "a2", "a3", "qv", "vm", "vs", "xx", "e", "inv", "pj"])
      f.local(l, "v128");
    // byte counts: a head's dims, its dims in whole blocks of 16, a value row, a key-dim row,
    // the scores padded to whole vectors and those in whole blocks of 16
    f.get("hd").i32(2).i32Shl().set("hd4");
    f.get("hd4").i32(-64).i32And().set("hd16");
    f.get("D").i32(2).i32Shl().set("D4");
    f.get("ldk").i32(2).i32Shl().set("ldk4");
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
        g.get("kq").get("ldk4").i32Add().set("kq");
      },
    );
    /** acc_i += qv·load(kq + 16i) for the named accumulators (a sum in the GEMM's order). */
    const madd = (g: F, accs: string[], vec: string, ptr: string) => {
      accs.forEach((a, i) => {
        g.get(a)
          .get(vec)
          .get(ptr)
          .v128Load(16 * i)
          .f32x4Mul()
          .f32x4Add()
          .set(a);
      });
    };
    const zero = (g: F, accs: string[]) => {
      for (const a of accs) g.v128Zero().set(a);
    };
    const store = (g: F, accs: string[], base: (x: F) => void) => {
      accs.forEach((a, i) => {
        base(g);
        g.get(a).v128Store(16 * i);
      });
    };
    const four = ["a0", "a1", "a2", "a3"];
    f.for(
      "h",
      (g) => g.i32(0),
      (g) => g.get("H"),
      1,
      (g) => {
        g.get("q").get("h").get("hd4").i32Mul().i32Add().set("qh");
        g.get("out").get("h").get("hd4").i32Mul().i32Add().set("oh");
        // raw scores s_j = q·k_j, each summed over the head's dims in order (as the GEMM does):
        // the keys are stored transposed, so 4 consecutive keys' dim c is one vector; 16 keys a
        // block (4 independent sums), then 4 at a time. Lanes past n read padding, set below.
        g.get("kt").get("h").get("hd4").i32Mul().get("ldk").i32Mul().i32Add().set("kp");
        for (const [from, to, step, accs] of [
          ["zero", "nv16", 64, four],
          ["nv16", "nv", 16, ["acc"]],
        ] as const) {
          g.for(
            "j4",
            (h) => (from === "zero" ? h.i32(0) : h.get(from)),
            (h) => h.get(to),
            step,
            (h) => {
              zero(h, [...accs]);
              h.get("kp").get("j4").i32Add().set("kq");
              h.for(
                "c",
                (x) => x.i32(0),
                (x) => x.get("hd4"),
                4,
                (x) => {
                  x.get("qh").get("c").i32Add().v128Load32Splat().set("qv");
                  madd(x, [...accs], "qv", "kq");
                  x.get("kq").get("ldk4").i32Add().set("kq");
                },
              );
              store(h, [...accs], (x) => x.get("sc").get("j4").i32Add());
            },
          );
        }
        // from here on exactly attn_softmax's steps for a row that sees n keys
        g.for(
          "j",
          (h) => h.get("n").i32(2).i32Shl(),
          (h) => h.get("nv"),
          4,
          (h) => {
            h.get("sc").get("j").i32Add().f32(Number.NEGATIVE_INFINITY).f32Store();
          },
        );
        k("ninf");
        g.set("acc");
        g.for(
          "j4",
          (h) => h.i32(0),
          (h) => h.get("nv"),
          16,
          (h) => {
            h.get("acc").get("sc").get("j4").i32Add().v128Load().f32x4Max().set("acc");
          },
        );
        g.get("acc")
          .f32x4ExtractLane(0)
          .get("acc")
          .f32x4ExtractLane(1)
          .f32Max()
          .get("acc")
          .f32x4ExtractLane(2)
          .get("acc")
          .f32x4ExtractLane(3)
          .f32Max()
          .f32Max()
          .get("scale")
          .f32Mul()
          .f32x4Splat()
          .set("vm");
        g.v128Zero().set("acc");
        g.for(
          "j4",
          (h) => h.i32(0),
          (h) => h.get("nv"),
          16,
          (h) => {
            h.get("sc").get("j4").i32Add().v128Load().get("vs").f32x4Mul().get("vm").f32x4Sub();
            h.set("xx");
            exp(h, "xx", "e");
            h.get("sc").get("j4").i32Add().get("e").v128Store();
            h.get("acc").get("e").f32x4Add().set("acc");
          },
        );
        g.f32(1);
        hsum(g, "acc");
        g.f32Div().f32x4Splat().set("inv");
        // out = Σ_j p_j·v_j, j in order from 0 (the P·V GEMM's sum), p_j = e_j·inv; the sums
        // stay in registers: 16 dims a pass over the keys, then 4
        for (const [from, to, step, accs] of [
          ["zero", "hd16", 64, four],
          ["hd16", "hd4", 16, ["acc"]],
        ] as const) {
          g.for(
            "c",
            (h) => (from === "zero" ? h.i32(0) : h.get(from)),
            (h) => h.get(to),
            step,
            (h) => {
              zero(h, [...accs]);
              h.get("vb").get("h").get("hd4").i32Mul().i32Add().get("c").i32Add().set("vp");
              h.for(
                "j",
                (x) => x.i32(0),
                (x) => x.get("n"),
                1,
                (x) => {
                  x.get("sc").get("j").i32(2).i32Shl().i32Add().v128Load32Splat();
                  x.get("inv").f32x4Mul().set("pj");
                  madd(x, [...accs], "pj", "vp");
                  x.get("vp").get("D4").i32Add().set("vp");
                },
              );
              store(h, [...accs], (x) => x.get("oh").get("c").i32Add());
            },
          );
        }
      },
    );
  }

  return m.encode();
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
