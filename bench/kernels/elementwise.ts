/**
 * Kernel spike, part 2: the non-matmul work of one training step of the B32×T32 d128 L2 H4 GPT
 * in plain JS (Float32Array, one thread), to size what comes on top of the matmuls.
 *
 * Implements each op the step needs with its backward (layer norm, bias add + bias gradient,
 * head split/merge copies, causal softmax with scale, GELU (tanh form), residual adds, softmax
 * cross-entropy over the vocab, embedding gather + scatter-add, gradient-norm clip, AdamW) and
 * times them in the counts one step uses. Prints ms per op group and the total.
 *
 *   node --import tsx bench/kernels/elementwise.ts [--rounds 20]
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const cfg = JSON.parse(readFileSync(join(HERE, "shapes.json"), "utf8")).model as Record<
  string,
  number
>;
const B = cfg.batch!;
const T = cfg.seq!;
const D = cfg.d_model!;
const H = cfg.n_head!;
const L = cfg.n_layer!;
const V = cfg.vocab!;
const F = cfg.mlp_ratio! * D;
const R = B * T; // rows
const DH = D / H;
const argv = process.argv.slice(2);
const ROUNDS = Number(argv[argv.indexOf("--rounds") + 1] ?? 20) || 20;

const f32 = (n: number) => {
  const a = new Float32Array(n);
  for (let i = 0; i < n; i++) a[i] = Math.sin(i * 12.9898) * 0.5;
  return a;
};

// ---------------------------------------------------------------- ops
function layerNormFwd(
  x: Float32Array,
  g: Float32Array,
  b: Float32Array,
  y: Float32Array,
  mean: Float32Array,
  rstd: Float32Array,
) {
  for (let r = 0; r < R; r++) {
    const o = r * D;
    let s = 0;
    for (let i = 0; i < D; i++) s += x[o + i]!;
    const m = s / D;
    let v = 0;
    for (let i = 0; i < D; i++) {
      const d = x[o + i]! - m;
      v += d * d;
    }
    const rs = 1 / Math.sqrt(v / D + 1e-5);
    mean[r] = m;
    rstd[r] = rs;
    for (let i = 0; i < D; i++) y[o + i] = (x[o + i]! - m) * rs * g[i]! + b[i]!;
  }
}
function layerNormBwd(
  x: Float32Array,
  g: Float32Array,
  mean: Float32Array,
  rstd: Float32Array,
  dy: Float32Array,
  dx: Float32Array,
  dg: Float32Array,
  db: Float32Array,
) {
  for (let r = 0; r < R; r++) {
    const o = r * D;
    const m = mean[r]!;
    const rs = rstd[r]!;
    let s1 = 0;
    let s2 = 0;
    for (let i = 0; i < D; i++) {
      const xh = (x[o + i]! - m) * rs;
      const dxh = dy[o + i]! * g[i]!;
      dg[i] = dg[i]! + dy[o + i]! * xh;
      db[i] = db[i]! + dy[o + i]!;
      s1 += dxh;
      s2 += dxh * xh;
    }
    s1 /= D;
    s2 /= D;
    for (let i = 0; i < D; i++) {
      const xh = (x[o + i]! - m) * rs;
      dx[o + i] = dx[o + i]! + (dy[o + i]! * g[i]! - s1 - xh * s2) * rs;
    }
  }
}
function biasAdd(y: Float32Array, b: Float32Array, n: number) {
  for (let r = 0; r < R; r++) for (let i = 0, o = r * n; i < n; i++) y[o + i] = y[o + i]! + b[i]!;
}
function biasGrad(dy: Float32Array, db: Float32Array, n: number) {
  for (let r = 0; r < R; r++) for (let i = 0, o = r * n; i < n; i++) db[i] = db[i]! + dy[o + i]!;
}
/** [R, 3D] → q,k,v each [B, H, T, DH] (and the reverse for gradients). */
function splitHeads(qkv: Float32Array, q: Float32Array, k: Float32Array, v: Float32Array) {
  for (let b = 0; b < B; b++)
    for (let t = 0; t < T; t++) {
      const src = (b * T + t) * 3 * D;
      for (let h = 0; h < H; h++) {
        const dst = ((b * H + h) * T + t) * DH;
        for (let i = 0; i < DH; i++) {
          q[dst + i] = qkv[src + h * DH + i]!;
          k[dst + i] = qkv[src + D + h * DH + i]!;
          v[dst + i] = qkv[src + 2 * D + h * DH + i]!;
        }
      }
    }
}
function mergeHeads(o: Float32Array, y: Float32Array) {
  for (let b = 0; b < B; b++)
    for (let h = 0; h < H; h++)
      for (let t = 0; t < T; t++) {
        const src = ((b * H + h) * T + t) * DH;
        const dst = (b * T + t) * D + h * DH;
        for (let i = 0; i < DH; i++) y[dst + i] = o[src + i]!;
      }
}
function softmaxCausalFwd(s: Float32Array, scale: number) {
  for (let r = 0; r < B * H * T; r++) {
    const t = r % T;
    const o = r * T;
    let mx = -Infinity;
    for (let j = 0; j <= t; j++) mx = Math.max(mx, s[o + j]! * scale);
    let sum = 0;
    for (let j = 0; j <= t; j++) {
      const e = Math.exp(s[o + j]! * scale - mx);
      s[o + j] = e;
      sum += e;
    }
    const inv = 1 / sum;
    for (let j = 0; j <= t; j++) s[o + j] = s[o + j]! * inv;
    for (let j = t + 1; j < T; j++) s[o + j] = 0;
  }
}
function softmaxBwd(p: Float32Array, dp: Float32Array, scale: number) {
  for (let r = 0; r < B * H * T; r++) {
    const o = r * T;
    let dot = 0;
    for (let j = 0; j < T; j++) dot += p[o + j]! * dp[o + j]!;
    for (let j = 0; j < T; j++) dp[o + j] = p[o + j]! * (dp[o + j]! - dot) * scale;
  }
}
const GC = Math.sqrt(2 / Math.PI);
function geluFwd(x: Float32Array, y: Float32Array) {
  for (let i = 0; i < x.length; i++) {
    const v = x[i]!;
    y[i] = 0.5 * v * (1 + Math.tanh(GC * (v + 0.044715 * v * v * v)));
  }
}
function geluBwd(x: Float32Array, dy: Float32Array) {
  for (let i = 0; i < x.length; i++) {
    const v = x[i]!;
    const th = Math.tanh(GC * (v + 0.044715 * v * v * v));
    const d = 0.5 * (1 + th) + 0.5 * v * (1 - th * th) * GC * (1 + 3 * 0.044715 * v * v);
    dy[i] = dy[i]! * d;
  }
}
function addInto(a: Float32Array, b: Float32Array) {
  for (let i = 0; i < a.length; i++) a[i] = a[i]! + b[i]!;
}
function crossEntropy(logits: Float32Array, targets: Int32Array): number {
  let loss = 0;
  for (let r = 0; r < R; r++) {
    const o = r * V;
    let mx = -Infinity;
    for (let j = 0; j < V; j++) mx = Math.max(mx, logits[o + j]!);
    let sum = 0;
    for (let j = 0; j < V; j++) {
      const e = Math.exp(logits[o + j]! - mx);
      logits[o + j] = e;
      sum += e;
    }
    const inv = 1 / sum;
    loss -= Math.log(logits[o + targets[r]!]! * inv);
    for (let j = 0; j < V; j++) logits[o + j] = (logits[o + j]! * inv) / R; // dlogits
    logits[o + targets[r]!] = logits[o + targets[r]!]! - 1 / R;
  }
  return loss / R;
}
function embedFwd(wte: Float32Array, wpe: Float32Array, tok: Int32Array, x: Float32Array) {
  for (let r = 0; r < R; r++) {
    const e = tok[r]! * D;
    const p = (r % T) * D;
    for (let i = 0; i < D; i++) x[r * D + i] = wte[e + i]! + wpe[p + i]!;
  }
}
function embedBwd(dx: Float32Array, tok: Int32Array, dwte: Float32Array, dwpe: Float32Array) {
  for (let r = 0; r < R; r++) {
    const e = tok[r]! * D;
    const p = (r % T) * D;
    for (let i = 0; i < D; i++) {
      dwte[e + i] = dwte[e + i]! + dx[r * D + i]!;
      dwpe[p + i] = dwpe[p + i]! + dx[r * D + i]!;
    }
  }
}
function clipAndAdamW(
  p: Float32Array,
  g: Float32Array,
  m: Float32Array,
  v: Float32Array,
  step: number,
) {
  let ss = 0;
  for (let i = 0; i < g.length; i++) ss += g[i]! * g[i]!;
  const clip = Math.min(1, 1 / (Math.sqrt(ss) + 1e-6));
  const lr = 3e-4;
  const b1 = 0.9;
  const b2 = 0.999;
  const wd = 0.1;
  const c1 = 1 / (1 - b1 ** step);
  const c2 = 1 / (1 - b2 ** step);
  for (let i = 0; i < p.length; i++) {
    const gi = g[i]! * clip;
    const mi = b1 * m[i]! + (1 - b1) * gi;
    const vi = b2 * v[i]! + (1 - b2) * gi * gi;
    m[i] = mi;
    v[i] = vi;
    p[i] = p[i]! * (1 - lr * wd) - (lr * (mi * c1)) / (Math.sqrt(vi * c2) + 1e-8);
    g[i] = 0;
  }
}

// ---------------------------------------------------------------- one step's worth
const P =
  V * D + T * D + L * (2 * 2 * D + 3 * D * D + 3 * D + D * D + D + D * F + F + F * D + D) + 2 * D;
const buf = {
  x: f32(R * D),
  y: f32(R * D),
  dy: f32(R * D),
  dx: f32(R * D),
  qkv: f32(R * 3 * D),
  q: f32(R * D),
  k: f32(R * D),
  v: f32(R * D),
  att: f32(B * H * T * T),
  datt: f32(B * H * T * T),
  h: f32(R * F),
  gh: f32(R * F),
  dh: f32(R * F),
  logits: f32(R * V),
  g: f32(D),
  b: f32(D),
  bF: f32(F),
  b3: f32(3 * D),
  mean: f32(R),
  rstd: f32(R),
  wte: f32(V * D),
  wpe: f32(T * D),
  params: f32(P),
  grads: f32(P),
  m: f32(P),
  v2: new Float32Array(P).fill(1e-4),
};
const tok = Int32Array.from({ length: R }, (_, i) => (i * 7) % V);
const scale = 1 / Math.sqrt(DH);

const groups: Record<string, () => void> = {
  "embedding fwd+bwd": () => {
    embedFwd(buf.wte, buf.wpe, tok, buf.x);
    embedBwd(buf.dx, tok, buf.wte, buf.wpe);
  },
  "layernorm fwd+bwd (2L+1)": () => {
    for (let i = 0; i < 2 * L + 1; i++) {
      layerNormFwd(buf.x, buf.g, buf.b, buf.y, buf.mean, buf.rstd);
      layerNormBwd(buf.x, buf.g, buf.mean, buf.rstd, buf.dy, buf.dx, buf.g, buf.b);
    }
  },
  "bias add + grad (4/layer)": () => {
    for (let l = 0; l < L; l++) {
      biasAdd(buf.qkv, buf.b3, 3 * D);
      biasAdd(buf.y, buf.b, D);
      biasAdd(buf.h, buf.bF, F);
      biasAdd(buf.y, buf.b, D);
      biasGrad(buf.qkv, buf.b3, 3 * D);
      biasGrad(buf.y, buf.b, D);
      biasGrad(buf.h, buf.bF, F);
      biasGrad(buf.y, buf.b, D);
    }
  },
  "head split/merge fwd+bwd": () => {
    for (let l = 0; l < L; l++) {
      splitHeads(buf.qkv, buf.q, buf.k, buf.v);
      mergeHeads(buf.q, buf.y);
      splitHeads(buf.qkv, buf.q, buf.k, buf.v); // backward: the reverse copies
      mergeHeads(buf.q, buf.y);
    }
  },
  "causal softmax fwd+bwd": () => {
    for (let l = 0; l < L; l++) {
      softmaxCausalFwd(buf.att, scale);
      softmaxBwd(buf.att, buf.datt, scale);
    }
  },
  "gelu fwd+bwd (tanh)": () => {
    for (let l = 0; l < L; l++) {
      geluFwd(buf.h, buf.gh);
      geluBwd(buf.h, buf.dh);
    }
  },
  "residual adds fwd+bwd": () => {
    for (let l = 0; l < 4 * L; l++) addInto(buf.x, buf.y);
  },
  "cross-entropy fwd+bwd": () => {
    crossEntropy(buf.logits, tok);
  },
  "grad clip + AdamW": () => clipAndAdamW(buf.params, buf.grads, buf.m, buf.v2, 10),
};

const best: Record<string, number> = {};
for (const [k, fn] of Object.entries(groups)) {
  for (let i = 0; i < 5; i++) fn();
  best[k] = Number.POSITIVE_INFINITY;
}
for (let r = 0; r < ROUNDS; r++)
  for (const [k, fn] of Object.entries(groups)) {
    const t = performance.now();
    fn();
    best[k] = Math.min(best[k]!, performance.now() - t);
  }
let total = 0;
console.log(`non-matmul work of one step, plain JS, 1 thread (params ${P}):`);
for (const [k, ms] of Object.entries(best)) {
  total += ms;
  console.log(`  ${k.padEnd(28)} ${ms.toFixed(2).padStart(7)} ms`);
}
console.log(`  ${"total".padEnd(28)} ${total.toFixed(2).padStart(7)} ms`);
