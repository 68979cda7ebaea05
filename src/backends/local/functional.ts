/**
 * The scalar and row-wise maths of the local model, in plain JS: GELU (and the fast tanh it is
 * computed with), the scaled causal softmax of one attention row, and the RoPE tables. The model's
 * forward and backward (model.ts) and its KV-cache decoding (decode.ts) share them; the wasm ops
 * (kernels/ops-wasm.ts) compute the same formulas in the same order.
 */

const SQRT_2_OVER_PI = Math.sqrt(2 / Math.PI);

/**
 * tanh, fast: the [7/6] Padé approximant where it is accurate,
 * |v| ≤ 2.5, and (1 − e^{−2|v|})/(1 + e^{−2|v|}) with the sign of v beyond; max abs error 1.4e-7
 * against Math.tanh (measured), ~4× cheaper. Trainer and sampler both compute GELU through it.
 *   tanh(v) ≈ v·(135135 + v²(17325 + v²(378 + v²))) / (135135 + v²(62370 + v²(3150 + 28v²)))
 */
function tanhFast(v: number): number {
  if (v > 2.5 || v < -2.5) {
    const e = Math.exp(-2 * Math.abs(v));
    return v > 0 ? (1 - e) / (1 + e) : (e - 1) / (1 + e);
  }
  const v2 = v * v;
  return (
    (v * (135135 + v2 * (17325 + v2 * (378 + v2)))) /
    (135135 + v2 * (62370 + v2 * (3150 + 28 * v2)))
  );
}

/** GELU, tanh form: ½·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))). */
export function gelu(x: number): number {
  return 0.5 * x * (1 + tanhFast(SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)));
}

/** dGELU/dx = ½(1 + tanh s) + ½·x·(1 − tanh² s)·√(2/π)·(1 + 3·0.044715·x²), s the tanh argument. */
export function geluGrad(x: number): number {
  const t = tanhFast(SQRT_2_OVER_PI * (x + 0.044715 * x * x * x));
  return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * SQRT_2_OVER_PI * (1 + 3 * 0.044715 * x * x);
}

/** y[i] = GELU(x[i]) over a heap range. */
export function geluForward(h: Float32Array, x: number, y: number, n: number): void {
  for (let i = 0; i < n; i++) h[y + i] = gelu(h[x + i]!);
}

/** dy[i] ← dy[i]·GELU'(x[i]) over a heap range. */
export function geluBackward(h: Float32Array, x: number, dy: number, n: number): void {
  for (let i = 0; i < n; i++) h[dy + i] = h[dy + i]! * geluGrad(h[x + i]!);
}

/**
 * In place: row[0..n) ← softmax(row[0..n)·scale), the attention softmax of one query over its n
 * visible keys: the plain-JS path of the training forward (T not a multiple of 4, or no wasm ops)
 * and of the KV-cache decode (head size not a multiple of 4).
 */
export function softmaxScaledPrefix(h: Float32Array, r: number, n: number, scale: number): void {
  let m = Number.NEGATIVE_INFINITY;
  for (let j = 0; j < n; j++) m = Math.max(m, h[r + j]! * scale);
  let s = 0;
  for (let j = 0; j < n; j++) {
    const e = Math.exp(h[r + j]! * scale - m);
    h[r + j] = e;
    s += e;
  }
  const inv = 1 / s;
  for (let j = 0; j < n; j++) h[r + j] = h[r + j]! * inv;
}

/** RoPE tables: angle(t, i) = t·θ^(−2i/d_head), θ = 10000, for i < d_head/2 and t < T. */
export function ropeTable(
  hd: number,
  T: number,
): { cos: Float32Array<ArrayBuffer>; sin: Float32Array<ArrayBuffer> } {
  const half = hd / 2;
  const cos = new Float32Array(T * half);
  const sin = new Float32Array(T * half);
  for (let t = 0; t < T; t++)
    for (let i = 0; i < half; i++) {
      const a = t * 10000 ** (-(2 * i) / hd);
      cos[t * half + i] = Math.cos(a);
      sin[t * half + i] = Math.sin(a);
    }
  return { cos, sin };
}

/**
 * Rotates the pairs (v_i, v_{i+d/2}) of `heads` consecutive heads of one row at position t
 * ("rotate-half" RoPE, as in GPT-NeoX/Llama); sign −1 applies the inverse rotation Rᵀ:
 *   v_i ← v_i·cos − v_{i+d/2}·sin,   v_{i+d/2} ← v_{i+d/2}·cos + v_i·sin   (sin·sign)
 */
export function ropeRow(
  h: Float32Array,
  row: number,
  heads: number,
  hd: number,
  cos: Float32Array,
  sin: Float32Array,
  t: number,
  sign: 1 | -1,
): void {
  const half = hd / 2;
  for (let head = 0; head < heads; head++) {
    const o = row + head * hd;
    for (let i = 0; i < half; i++) {
      const c = cos[t * half + i]!;
      const s = sign * sin[t * half + i]!;
      const x1 = h[o + i]!;
      const x2 = h[o + i + half]!;
      h[o + i] = x1 * c - x2 * s;
      h[o + i + half] = x2 * c + x1 * s;
    }
  }
}
