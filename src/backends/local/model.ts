/**
 * The local backend's model: a decoder-only GPT (GPT-2 layout, pre-LayerNorm), forward and a
 * hand-written backward, readable top to bottom (nanoGPT-style). No autograd: every backward step
 * is the chain rule for the forward step it undoes, with the maths in a comment.
 *
 *   x⁰        = wte[tok] + wpe[pos]                       (wpe only with positional "learned")
 *   for each block l:
 *     h       = LN₁(xˡ)
 *     q,k,v   = h·Wqkv + bqkv                             (RoPE rotates q and k with "rope")
 *     a       = softmax(q·kᵀ/√d_head + causal mask)·v      per head
 *     x_mid   = xˡ + a·Wo + bo
 *     u       = LN₂(x_mid)·W1 + b1
 *     xˡ⁺¹    = x_mid + GELU(u)·W2 + b2
 *   z         = LN_f(xᴸ)·wteᵀ                             (tied head: logits over the vocabulary)
 *   log π(y)  = z_y − logsumexp(z)
 *
 * Storage (heap.ts): every parameter, gradient and activation lives in one WebAssembly.Memory,
 * addressed by float offsets, so the wasm SIMD GEMM (kernels/gemm-wasm.ts) reads and writes them
 * in place. Where wasm SIMD is unavailable, the same calls go to kernels/gemm-js.ts. The
 * elementwise and row-wise work (GELU, LayerNorm, softmaxes, RoPE, bias sums, residual adds)
 * runs in wasm SIMD too (kernels/ops-wasm.ts) where the widths are multiples of 4, in float32;
 * the plain-JS loops below (and functional.ts) remain for other widths and kernel "js".
 * Matrices are row-major; a [rows × cols] activation holds one row per token (B·T rows).
 *
 * Elsewhere: KV-cache decoding (prefill/decodeStep) in decode.ts, the loss glue (datums → loss →
 * ∂L/∂log π → backward) in loss-and-grad.ts, phase timing in profile.ts (an injected hook).
 *
 * GELU is the tanh approximation everywhere (sampler and trainer use functional.ts's gelu):
 *   GELU(x) = ½·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
 */
import { mulberry32 } from "../../random.js";
import { KvDecoder } from "./decode.js";
import {
  geluBackward,
  geluForward,
  ropeRow,
  ropeTable,
  softmaxScaledPrefix,
} from "./functional.js";
import {
  GEMV_ROWS,
  type GptConfig,
  type GptWeights,
  type LayerParams,
  ModelHeap,
  NO_SLICE,
  type Slice,
} from "./heap.js";
import { gemmWorkspaceBytes } from "./kernels/gemm-wasm.js";
import { type PhaseProfile, PhaseTimer } from "./profile.js";

export type { GptConfig } from "./heap.js";
export type { PhaseProfile } from "./profile.js";

export interface GptOptions {
  /** Seed of the parameter initialisation (same seed → identical weights). */
  seed?: number;
  /** Std of the weight init (GPT-2: 0.02); tests use a larger one for well-conditioned gradients. */
  initStd?: number;
  /** "wasm" (default; falls back to "js" where WebAssembly SIMD is unavailable) or "js". */
  kernel?: "wasm" | "js";
  /** Phase timing (benchmarks): see profile.ts; settable later through {@link Gpt.profile}. */
  profile?: PhaseProfile;
}

export const DEFAULT_GPT_CONFIG: GptConfig = {
  vocabSize: 264,
  dModel: 128,
  nLayers: 2,
  nHeads: 4,
  maxSeqLen: 256,
  mlpRatio: 4,
  positional: "rope",
  tiedHead: true,
};

/** What a parameter tensor is, for weight decay and for tests. */
export type ParamKind = "embedding" | "linear" | "bias" | "ln_gain" | "ln_bias";

export interface ParamInfo {
  name: string;
  kind: ParamKind;
  shape: number[];
  /** Offset of this tensor inside the flat parameter (and gradient) buffer. */
  offset: number;
  size: number;
}

/** Per-layer activations kept for the backward pass. */
interface LayerActs {
  x: Slice; // input of the block [N×D]
  ln1: Slice; // LN₁ output [N×D]
  ln1Mean: Slice; // [N]
  ln1Rstd: Slice; // [N]
  qkv: Slice; // [N×3D], q and k after RoPE
  probs: Slice; // attention probabilities [B×H×T×T]
  att: Slice; // heads concatenated, before Wo [N×D]
  xMid: Slice; // after the attention residual [N×D]
  ln2: Slice;
  ln2Mean: Slice;
  ln2Rstd: Slice;
  u: Slice; // MLP pre-activation [N×F]
  g: Slice; // GELU(u) [N×F]
  gd: Slice; // GELU'(u) [N×F] (wasm ops only; empty otherwise)
}

/** Views into buffers the model reuses: valid until the next forward. */
export interface ForwardResult {
  /** Logits [B·T × V], row b·T + t predicting the token at t + 1. */
  logits: Float32Array;
  /** log π(tokens[b,t] | tokens[b,<t]) per position; position 0 of each row is 0. */
  logprobs: Float32Array;
  /** Entropy of the distribution that predicts position t (position 0 of each row: 0). */
  entropy: Float32Array;
}

const LN_EPS = 1e-5;
/** Query rows per block of the blocked causal attention (rows of ≤ 2 blocks are done whole). */
const ATTN_BLOCK = 64;

/** Standard normal samples by Box–Muller over a uniform source. */
function gaussian(rand: () => number): () => number {
  return () => {
    const u = Math.max(rand(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
  };
}

/** The parameter tensors of a GPT with `config`: names, kinds, shapes and flat offsets, in order. */
export function gptParamLayout(config: GptConfig): ParamInfo[] {
  const { dModel: D, vocabSize: V, maxSeqLen, nLayers: L } = config;
  const F = D * config.mlpRatio;
  // offsets relative to the flat buffer
  let n = 0;
  const layout: ParamInfo[] = [];
  const add = (name: string, kind: ParamKind, shape: number[]): number => {
    const size = shape.reduce((a, b) => a * b, 1);
    layout.push({ name, kind, shape, offset: n, size });
    n += size;
    return n - size;
  };
  add("wte", "embedding", [V, D]);
  if (config.positional === "learned") add("wpe", "embedding", [maxSeqLen, D]);
  for (let l = 0; l < L; l++) {
    add(`h${l}.ln1.g`, "ln_gain", [D]);
    add(`h${l}.ln1.b`, "ln_bias", [D]);
    add(`h${l}.attn.wqkv`, "linear", [D, 3 * D]);
    add(`h${l}.attn.bqkv`, "bias", [3 * D]);
    add(`h${l}.attn.wo`, "linear", [D, D]);
    add(`h${l}.attn.bo`, "bias", [D]);
    add(`h${l}.ln2.g`, "ln_gain", [D]);
    add(`h${l}.ln2.b`, "ln_bias", [D]);
    add(`h${l}.mlp.w1`, "linear", [D, F]);
    add(`h${l}.mlp.b1`, "bias", [F]);
    add(`h${l}.mlp.w2`, "linear", [F, D]);
    add(`h${l}.mlp.b2`, "bias", [D]);
  }
  add("lnf.g", "ln_gain", [D]);
  add("lnf.b", "ln_bias", [D]);
  return layout;
}

export class Gpt {
  readonly config: GptConfig;
  readonly params: ParamInfo[] = [];
  /** Number of parameters (floats) in the flat buffer. */
  readonly numParams: number;

  private readonly mem: ModelHeap;
  private readonly timer: PhaseTimer;
  /** The log-softmax over the vocabulary in wasm too (wasm ops and vocabSize a multiple of 4). */
  private readonly opsVocab: boolean;
  private readonly paramBase: Slice;
  private readonly gradBase: Slice;
  /** Offset from a parameter to its gradient: ∂L/∂heap[p] lives at heap[p + gradOffset]. */
  private readonly gradOffset: number;
  private readonly w: GptWeights;
  private readonly decoder: KvDecoder;

  // activations of the last forward (laid out by prepare())
  private shape = { B: 0, T: 0 };
  private tokens = new Int32Array(0);
  private acts: LayerActs[] = [];
  private xFinal = NO_SLICE;
  private lnf = NO_SLICE;
  private lnfMean = NO_SLICE;
  private lnfRstd = NO_SLICE;
  private logitsS = NO_SLICE;
  private vocabStats = NO_SLICE; // [N×3]: max, Σ exp, Σ exp·z per row (wasm log-softmax)
  private logZ = new Float64Array(0);
  private out: { logprobs: Float32Array; entropy: Float32Array } = {
    logprobs: new Float32Array(0),
    entropy: new Float32Array(0),
  };
  private ropeCos = new Float32Array(0);
  private ropeSin = new Float32Array(0);
  /** The RoPE tables in the heap too, for the wasm rope (empty without it). */
  private ropeHeap = { cos: NO_SLICE, sin: NO_SLICE };
  private ws = 0; // the forward's GEMM workspace, byte offset
  // backward scratch
  private dx = NO_SLICE;
  private dh = NO_SLICE;
  private dqkv = NO_SLICE;
  private dbig = NO_SLICE; // [N×max(F, V)]: the probabilities of the forward, then dz, then dg
  private dS = NO_SLICE; // [T×T], rows padded to ⌈T/4⌉·4 with the wasm ops
  private cacheValid = false;

  constructor(config: GptConfig, options: GptOptions = {}) {
    const { dModel: D, nHeads: H, nLayers: L } = config;
    if (D % H !== 0) throw new Error(`dModel ${D} must be a multiple of nHeads ${H}`);
    if (config.positional === "rope" && (D / H) % 2 !== 0)
      throw new Error(`rope needs an even head size; dModel/nHeads = ${D / H}`);
    this.config = { ...config };

    const layout = gptParamLayout(config);
    const n = layout.reduce((a, p) => a + p.size, 0);
    this.params = layout;
    this.numParams = n;

    // the wasm ops need widths in whole f32x4 vectors: dModel and the MLP width
    const F = D * config.mlpRatio;
    const opsFit = D % 4 === 0 && Number.isInteger(F) && F % 4 === 0;
    this.timer = new PhaseTimer(options.profile);
    this.mem = new ModelHeap(options.kernel ?? "wasm", opsFit, this.timer);
    this.opsVocab = this.mem.ops !== undefined && config.vocabSize % 4 === 0;
    this.paramBase = this.mem.alloc(n);
    this.gradBase = this.mem.alloc(n);
    this.gradOffset = this.gradBase.off - this.paramBase.off;
    this.mem.endFixed();
    const at = (name: string): Slice => {
      const p = layout.find((q) => q.name === name);
      if (!p) throw new Error(`no parameter ${name}`);
      return { off: this.paramBase.off + p.offset, size: p.size };
    };
    const layers: LayerParams[] = [];
    for (let l = 0; l < L; l++) {
      const p = (s: string) => at(`h${l}.${s}`);
      layers.push({
        ln1g: p("ln1.g"),
        ln1b: p("ln1.b"),
        wqkv: p("attn.wqkv"),
        bqkv: p("attn.bqkv"),
        wo: p("attn.wo"),
        bo: p("attn.bo"),
        ln2g: p("ln2.g"),
        ln2b: p("ln2.b"),
        w1: p("mlp.w1"),
        b1: p("mlp.b1"),
        w2: p("mlp.w2"),
        b2: p("mlp.b2"),
      });
    }
    this.w = {
      wte: at("wte"),
      wpe: config.positional === "learned" ? at("wpe") : undefined,
      layers,
      lnfg: at("lnf.g"),
      lnfb: at("lnf.b"),
    };
    this.init(options.seed ?? 0, options.initStd ?? 0.02);
    this.decoder = new KvDecoder({
      config: this.config,
      mem: this.mem,
      weights: this.w,
      timer: this.timer,
      forward: (tokens, B, T) => {
        this.forward(tokens, B, T);
        return { qkv: this.acts.map((A) => A.qkv.off), logits: this.logitsS.off };
      },
      activationsMoved: () => {
        this.shape = { B: 0, T: 0 };
        this.cacheValid = false;
      },
      layerNorm: (x, gain, bias, y, mean, rstd, N) =>
        this.layerNorm(x, gain, bias, y, mean, rstd, N),
      linear: (x, w, bias, y, N, nIn, nOut) => this.linear(x, w, bias, y, N, nIn, nOut),
      gelu: (u, g, n) => this.gelu(u, g, 0, n),
    });
  }

  /** Whether the matmuls run in wasm SIMD (false: the plain-JS fallback). */
  get usesWasm(): boolean {
    return this.mem.gemm !== undefined;
  }

  /** Phase timing: while set, forward, backward and decodeStep add their phases' ms into it. */
  get profile(): PhaseProfile | undefined {
    return this.timer.profile;
  }

  set profile(p: PhaseProfile | undefined) {
    this.timer.profile = p;
  }

  /**
   * All parameters, flat (a view: writes change the model). The heap grows when a forward needs
   * more room than any before it, which detaches earlier views: fetch again after a new B×T.
   */
  get paramData(): Float32Array {
    return this.mem.view(this.paramBase);
  }

  /** All gradients, flat, aligned with {@link paramData}. */
  get gradData(): Float32Array {
    return this.mem.view(this.gradBase);
  }

  /** One parameter tensor by name (a view). */
  param(name: string): Float32Array {
    const p = this.info(name);
    return this.paramData.subarray(p.offset, p.offset + p.size);
  }

  grad(name: string): Float32Array {
    const p = this.info(name);
    return this.gradData.subarray(p.offset, p.offset + p.size);
  }

  info(name: string): ParamInfo {
    const p = this.params.find((q) => q.name === name);
    if (!p) throw new Error(`no parameter ${name}; see model.params for the names`);
    return p;
  }

  zeroGrad(): void {
    this.gradData.fill(0);
  }

  /**
   * GPT-2 init: weights ~ N(0, σ²), the residual projections (Wo, W2) ~ N(0, σ²/(2L)) so the
   * residual stream's variance does not grow with depth; biases 0, LayerNorm gains 1.
   */
  private init(seed: number, std: number): void {
    const randn = gaussian(mulberry32(seed));
    const w = this.paramData;
    for (const p of this.params) {
      const v = w.subarray(p.offset, p.offset + p.size);
      if (p.kind === "ln_gain") v.fill(1);
      else if (p.kind === "bias" || p.kind === "ln_bias") v.fill(0);
      else {
        const residual = p.name.endsWith("attn.wo") || p.name.endsWith("mlp.w2");
        const s = residual ? std / Math.sqrt(2 * this.config.nLayers) : std;
        for (let i = 0; i < v.length; i++) v[i] = s * randn();
      }
    }
  }

  /** (Re)allocates the activations for a B×T batch; a no-op when the shape is unchanged. */
  private prepare(B: number, T: number): void {
    if (B === this.shape.B && T === this.shape.T) return;
    const { dModel: D, nHeads: H, vocabSize: V, mlpRatio } = this.config;
    const F = D * mlpRatio;
    const N = B * T;
    const mem = this.mem;
    const ops = mem.ops;
    mem.startActivations();
    this.acts = this.w.layers.map(() => ({
      x: mem.alloc(N * D),
      ln1: mem.alloc(N * D),
      ln1Mean: mem.alloc(N),
      ln1Rstd: mem.alloc(N),
      qkv: mem.alloc(N * 3 * D),
      probs: mem.alloc(B * H * T * ((T + 3) & ~3)), // rows padded to whole vectors (wasm ops)
      att: mem.alloc(N * D),
      xMid: mem.alloc(N * D),
      ln2: mem.alloc(N * D),
      ln2Mean: mem.alloc(N),
      ln2Rstd: mem.alloc(N),
      u: mem.alloc(N * F),
      g: mem.alloc(N * F),
      gd: mem.alloc(ops ? N * F : 0),
    }));
    this.xFinal = mem.alloc(N * D);
    this.lnf = mem.alloc(N * D);
    this.lnfMean = mem.alloc(N);
    this.lnfRstd = mem.alloc(N);
    this.logitsS = mem.alloc(N * V);
    this.dx = mem.alloc(N * D);
    this.dh = mem.alloc(N * D);
    this.dqkv = mem.alloc(N * 3 * D);
    this.dbig = mem.alloc(N * Math.max(F, V));
    this.dS = mem.alloc(T * ((T + 3) & ~3));
    const maxK = Math.max(N, V, F, D, T);
    const wsFloats = Math.ceil(gemmWorkspaceBytes(maxK) / 4) + 16;
    this.ws = mem.alloc(wsFloats).off * 4;
    this.vocabStats = mem.alloc(this.opsVocab ? 3 * N : 0);
    this.logZ = new Float64Array(N);
    this.out = { logprobs: new Float32Array(N), entropy: new Float32Array(N) };
    this.shape = { B, T };
    if (this.config.positional === "rope") {
      const t = ropeTable(D / H, T);
      this.ropeCos = t.cos;
      this.ropeSin = t.sin;
      if (ops && (D / H / 2) % 4 === 0) {
        this.ropeHeap = { cos: mem.alloc(t.cos.length), sin: mem.alloc(t.sin.length) };
        mem.f32.set(t.cos, this.ropeHeap.cos.off);
        mem.f32.set(t.sin, this.ropeHeap.sin.off);
      } else this.ropeHeap = { cos: NO_SLICE, sin: NO_SLICE };
    }
  }

  // ── layers: forward and backward of each ──────────────────────────────────────────────────

  /** Y[N×out] = X[N×in]·W[in×out] + bias. */
  private linear(
    x: number,
    w: Slice,
    bias: Slice,
    y: number,
    N: number,
    nIn: number,
    nOut: number,
  ): void {
    const h = this.mem.f32;
    const ops = this.mem.ops;
    for (let i = 0; i < N; i++) h.copyWithin(y + i * nOut, bias.off, bias.off + nOut);
    if (ops && N <= GEMV_ROWS && nOut % 4 === 0) {
      // a few rows (decode): matrix–vector products, no packing
      const t0 = this.timer.gemmStart();
      ops.gemv_nn(N, nOut, nIn, x * 4, nIn, w.off * 4, nOut, y * 4, nOut, 1);
      this.timer.gemmDone(t0);
    } else this.mem.mm(N, nOut, nIn, x, nIn, 1, w.off, nOut, 1, y, nOut, true);
    this.timer.lap("bias/residual");
  }

  /**
   * Backward of Y = X·W + b, given dY[N×out]:
   *   dW += Xᵀ·dY,   db += Σ_rows dY,   dX = dY·Wᵀ (written, or added when `accumulateDx`).
   */
  private linearBackward(
    x: number,
    w: Slice,
    bias: Slice,
    dy: number,
    dxOff: number,
    N: number,
    nIn: number,
    nOut: number,
    accumulateDx: boolean,
  ): void {
    const g = this.gradOffset;
    this.mem.mm(nIn, nOut, N, x, 1, nIn, dy, nOut, 1, w.off + g, nOut, true);
    const h = this.mem.f32;
    const db = bias.off + g;
    if (this.mem.ops && nOut % 4 === 0) this.mem.ops.colsum(db * 4, dy * 4, N, nOut);
    else
      for (let i = 0; i < N; i++) {
        const r = dy + i * nOut;
        for (let j = 0; j < nOut; j++) h[db + j] = h[db + j]! + h[r + j]!;
      }
    this.mem.mm(N, nIn, nOut, dy, nOut, 1, w.off, 1, nOut, dxOff, nIn, accumulateDx);
    this.timer.lap("bias/residual");
  }

  /** y = (x − μ)/σ · gain + bias per row of D, σ = √(var + ε); keeps μ and 1/σ. */
  private layerNorm(
    x: number,
    gain: Slice,
    bias: Slice,
    y: number,
    mean: Slice,
    rstd: Slice,
    N: number,
  ): void {
    const D = this.config.dModel;
    const h = this.mem.f32;
    const ops = this.mem.ops;
    if (ops) {
      ops.ln_fwd(x * 4, gain.off * 4, bias.off * 4, y * 4, mean.off * 4, rstd.off * 4, N, D);
      this.timer.lap("layernorm");
      return;
    }
    for (let i = 0; i < N; i++) {
      const r = x + i * D;
      let s = 0;
      for (let j = 0; j < D; j++) s += h[r + j]!;
      const mu = s / D;
      let v = 0;
      for (let j = 0; j < D; j++) {
        const d = h[r + j]! - mu;
        v += d * d;
      }
      const rs = 1 / Math.sqrt(v / D + LN_EPS);
      h[mean.off + i] = mu;
      h[rstd.off + i] = rs;
      const o = y + i * D;
      for (let j = 0; j < D; j++)
        h[o + j] = (h[r + j]! - mu) * rs * h[gain.off + j]! + h[bias.off + j]!;
    }
    this.timer.lap("layernorm");
  }

  /**
   * LayerNorm backward, x̂ = (x − μ)·r, y = x̂·γ + β, given dy:
   *   dγ += Σ_rows dy·x̂,  dβ += Σ_rows dy,
   *   dx̂ = dy·γ,  dx = r·(dx̂ − mean(dx̂) − x̂·mean(dx̂·x̂))      (added into dx)
   */
  private layerNormBackward(
    x: number,
    gain: Slice,
    bias: Slice,
    mean: Slice,
    rstd: Slice,
    dy: number,
    dxOff: number,
    N: number,
  ): void {
    const D = this.config.dModel;
    const h = this.mem.f32;
    const dg = gain.off + this.gradOffset;
    const db = bias.off + this.gradOffset;
    const ops = this.mem.ops;
    if (ops) {
      ops.ln_bwd(
        x * 4,
        gain.off * 4,
        mean.off * 4,
        rstd.off * 4,
        dy * 4,
        dxOff * 4,
        dg * 4,
        db * 4,
        N,
        D,
      );
      this.timer.lap("layernorm");
      return;
    }
    for (let i = 0; i < N; i++) {
      const r = x + i * D;
      const d = dy + i * D;
      const mu = h[mean.off + i]!;
      const rs = h[rstd.off + i]!;
      let sumD = 0;
      let sumDX = 0;
      for (let j = 0; j < D; j++) {
        const xh = (h[r + j]! - mu) * rs;
        const dxh = h[d + j]! * h[gain.off + j]!;
        h[dg + j] = h[dg + j]! + h[d + j]! * xh;
        h[db + j] = h[db + j]! + h[d + j]!;
        sumD += dxh;
        sumDX += dxh * xh;
      }
      const mD = sumD / D;
      const mDX = sumDX / D;
      const o = dxOff + i * D;
      for (let j = 0; j < D; j++) {
        const xh = (h[r + j]! - mu) * rs;
        const dxh = h[d + j]! * h[gain.off + j]!;
        h[o + j] = h[o + j]! + rs * (dxh - mD - xh * mDX);
      }
    }
    this.timer.lap("layernorm");
  }

  /** g = GELU(u) over n floats; with `gd` ≠ 0 (wasm ops only) GELU'(u) is kept there too. */
  private gelu(u: number, g: number, gd: number, n: number): void {
    if (this.mem.ops) this.mem.ops.gelu(u * 4, g * 4, gd * 4, n);
    else geluForward(this.mem.f32, u, g, n);
    this.timer.lap("gelu");
  }

  /**
   * Rotates the pairs (v_i, v_{i+d/2}) of every head of q and k (the first 2D columns of qkv) by
   * the position's angle ("rotate-half" RoPE, as in GPT-NeoX/Llama). sign −1 applies the inverse
   * rotation Rᵀ, which is the backward: d(Rv)/dv = R, so dv = Rᵀ·d(Rv).
   */
  private rope(qkv: number, B: number, T: number, sign: 1 | -1): void {
    const { dModel: D, nHeads: H } = this.config;
    const hd = D / H;
    const ops = this.mem.ops;
    if (ops && this.ropeHeap.cos.size > 0) {
      const { cos, sin } = this.ropeHeap;
      ops.rope(qkv * 4, cos.off * 4, sin.off * 4, B * T, T, 3 * D, 2 * H, hd / 2, sign);
    } else
      for (let b = 0; b < B; b++)
        for (let t = 0; t < T; t++) {
          const row = qkv + (b * T + t) * 3 * D;
          ropeRow(this.mem.f32, row, 2 * H, hd, this.ropeCos, this.ropeSin, t, sign);
        }
    this.timer.lap("rope");
  }

  /**
   * Causal self-attention of every (sequence, head), from the q, k, v columns of qkv into att:
   *   S = q·kᵀ,  P = softmax(S/√d_head) over keys j ≤ i (0 above the diagonal),  a = P·v
   * P is kept (probs) for the backward.
   */
  private attention(A: LayerActs, B: number, T: number): void {
    const { dModel: D, nHeads: H } = this.config;
    const hd = D / H;
    this.timer.gemmPhase = "gemm (attention)";
    // (the head size too, as decode's attn_decode needs: both paths must round alike)
    if (this.mem.ops && hd % 4 === 0) this.attentionBlocked(A, B, T);
    else {
      const h = this.mem.f32;
      const scale = 1 / Math.sqrt(hd);
      for (let b = 0; b < B; b++)
        for (let head = 0; head < H; head++) {
          const q = A.qkv.off + b * T * 3 * D + head * hd;
          const k = q + D;
          const v = q + 2 * D;
          const p = A.probs.off + (b * H + head) * T * T;
          // S = q·kᵀ  [T×T]
          this.mem.mm(T, T, hd, q, 3 * D, 1, k, 1, 3 * D, p, T, false);
          // P = softmax(S/√d_head) over j ≤ i (causal); entries j > i are 0
          for (let i = 0; i < T; i++) {
            const r = p + i * T;
            softmaxScaledPrefix(h, r, i + 1, scale);
            for (let j = i + 1; j < T; j++) h[r + j] = 0;
          }
          // a = P·v, written into this head's columns of att
          this.mem.mm(T, hd, T, p, T, 1, v, 3 * D, 1, A.att.off + b * T * D + head * hd, D, false);
        }
    }
    this.timer.gemmPhase = "gemm";
    this.timer.lap("attention");
  }

  /**
   * {@link attention} with the wasm ops (rows of P padded to a multiple of 4 floats), in row
   * blocks of ATTN_BLOCK queries: block [i0, i1) only needs keys < i1, so the score and P·V
   * products skip the blocks above the diagonal (half the work for long rows).
   */
  private attentionBlocked(A: LayerActs, B: number, T: number): void {
    const { dModel: D, nHeads: H } = this.config;
    const hd = D / H;
    const scale = 1 / Math.sqrt(hd);
    const ops = this.mem.ops!;
    const TB = T <= 2 * ATTN_BLOCK ? T : ATTN_BLOCK;
    const Tp = (T + 3) & ~3; // rows of P padded to whole vectors
    for (let b = 0; b < B; b++)
      for (let head = 0; head < H; head++) {
        const q = A.qkv.off + b * T * 3 * D + head * hd;
        const k = q + D;
        const v = q + 2 * D;
        const p = A.probs.off + (b * H + head) * T * Tp;
        const a = A.att.off + b * T * D + head * hd;
        for (let i0 = 0; i0 < T; i0 += TB) {
          const i1 = Math.min(T, i0 + TB);
          const rows = i1 - i0;
          // S = q·kᵀ for rows [i0, i1), keys [0, i1)
          this.mem.mm(rows, i1, hd, q + i0 * 3 * D, 3 * D, 1, k, 1, 3 * D, p + i0 * Tp, Tp, false);
          ops.attn_softmax((p + i0 * Tp) * 4, rows, Tp, i0 + 1, scale);
          // a = P·v
          this.mem.mm(rows, hd, i1, p + i0 * Tp, Tp, 1, v, 3 * D, 1, a + i0 * D, D, false);
        }
      }
  }

  /** Backward of {@link attention}: dq, dk, dv into dqkv, from datt in dh. */
  private attentionBackward(A: LayerActs, B: number, T: number): void {
    const { dModel: D, nHeads: H } = this.config;
    const hd = D / H;
    this.timer.gemmPhase = "gemm (attention)";
    if (this.mem.ops && hd % 4 === 0) this.attentionBlockedBackward(A, B, T);
    else {
      const h = this.mem.f32;
      const scale = 1 / Math.sqrt(hd);
      const dq = this.dqkv.off;
      for (let b = 0; b < B; b++)
        for (let head = 0; head < H; head++) {
          const base = b * T * 3 * D + head * hd;
          const q = A.qkv.off + base;
          const k = q + D;
          const v = q + 2 * D;
          const p = A.probs.off + (b * H + head) * T * T;
          const da = this.dh.off + b * T * D + head * hd;
          const dS = this.dS.off;
          // a = P·v:  dP = da·vᵀ,  dv = Pᵀ·da
          this.mem.mm(T, T, hd, da, D, 1, v, 1, 3 * D, dS, T, false);
          this.mem.mm(T, hd, T, p, 1, T, da, D, 1, dq + base + 2 * D, 3 * D, false);
          // P = softmax(S·s) row-wise:  dS_ij = s·P_ij·(dP_ij − Σ_k dP_ik·P_ik)   (0 above the diagonal)
          for (let i = 0; i < T; i++) {
            const r = dS + i * T;
            const pr = p + i * T;
            let dot = 0;
            for (let j = 0; j <= i; j++) dot += h[r + j]! * h[pr + j]!;
            for (let j = 0; j <= i; j++) h[r + j] = scale * h[pr + j]! * (h[r + j]! - dot);
            for (let j = i + 1; j < T; j++) h[r + j] = 0;
          }
          // S = q·kᵀ:  dq = dS·k,  dk = dSᵀ·q
          this.mem.mm(T, hd, T, dS, T, 1, k, 3 * D, 1, dq + base, 3 * D, false);
          this.mem.mm(T, hd, T, dS, 1, T, q, 3 * D, 1, dq + base + D, 3 * D, false);
        }
    }
    this.timer.gemmPhase = "gemm";
    this.timer.lap("attention");
  }

  /** Backward of {@link attentionBlocked}, block by block as the forward. */
  private attentionBlockedBackward(A: LayerActs, B: number, T: number): void {
    const { dModel: D, nHeads: H } = this.config;
    const hd = D / H;
    const scale = 1 / Math.sqrt(hd);
    const ops = this.mem.ops!;
    const TB = T <= 2 * ATTN_BLOCK ? T : ATTN_BLOCK;
    const Tp = (T + 3) & ~3;
    const D3 = 3 * D;
    const dS = this.dS.off;
    for (let b = 0; b < B; b++)
      for (let head = 0; head < H; head++) {
        const base = b * T * D3 + head * hd;
        const q = A.qkv.off + base;
        const k = q + D;
        const v = q + 2 * D;
        const dq = this.dqkv.off + base;
        const dk = dq + D;
        const dv = dq + 2 * D;
        const p = A.probs.off + (b * H + head) * T * Tp;
        const da = this.dh.off + b * T * D + head * hd;
        for (let i0 = 0; i0 < T; i0 += TB) {
          const i1 = Math.min(T, i0 + TB);
          const rows = i1 - i0;
          const pb = p + i0 * Tp;
          const sb = dS + i0 * Tp;
          // a = P·v:  dP = da·vᵀ,  dv = Pᵀ·da (keys < i0 accumulate, keys [i0, i1) start here)
          this.mem.mm(rows, i1, hd, da + i0 * D, D, 1, v, 1, D3, sb, Tp, false);
          if (i0 > 0) this.mem.mm(i0, hd, rows, pb, 1, Tp, da + i0 * D, D, 1, dv, D3, true);
          this.mem.mm(rows, hd, rows, pb + i0, 1, Tp, da + i0 * D, D, 1, dv + i0 * D3, D3, false);
          // P = softmax(S·s):  dS = s·P·(dP − Σ dP·P)
          ops.softmax_bwd(sb * 4, pb * 4, rows, Tp, (i1 + 3) & ~3, scale); // P is 0 past i1
          // S = q·kᵀ:  dq = dS·k,  dk = dSᵀ·q
          this.mem.mm(rows, hd, i1, sb, Tp, 1, k, D3, 1, dq + i0 * D3, D3, false);
          if (i0 > 0) this.mem.mm(i0, hd, rows, sb, 1, Tp, q + i0 * D3, D3, 1, dk, D3, true);
          this.mem.mm(rows, hd, rows, sb + i0, 1, Tp, q + i0 * D3, D3, 1, dk + i0 * D3, D3, false);
        }
      }
  }

  // ── forward ───────────────────────────────────────────────────────────────────────────────

  /**
   * Runs the model on `tokens` [B×T, row-major]. Returns views of the logits and per-position
   * log π and entropy; with `needCache` the activations are kept for {@link backward}.
   */
  forward(
    tokens: Int32Array,
    B: number,
    T: number,
    opts: { needCache?: boolean } = {},
  ): ForwardResult {
    const { dModel: D, vocabSize: V, mlpRatio, maxSeqLen } = this.config;
    if (tokens.length !== B * T)
      throw new RangeError(`tokens has ${tokens.length} entries, expected B·T = ${B * T}`);
    if (T > maxSeqLen) throw new RangeError(`sequence length ${T} exceeds maxSeqLen ${maxSeqLen}`);
    const F = D * mlpRatio;
    const N = B * T;
    this.prepare(B, T);
    this.mem.ws = this.ws;
    this.tokens = tokens.slice();
    const h = this.mem.f32;
    const { wte, wpe, layers, lnfg, lnfb } = this.w;

    this.timer.start();
    // x⁰ = wte[tok] + wpe[pos]
    const x0 = this.acts.length > 0 ? this.acts[0]!.x.off : this.xFinal.off;
    for (let i = 0; i < N; i++) {
      const tok = tokens[i]!;
      if (tok < 0 || tok >= V)
        throw new RangeError(`token ${tok} outside the vocabulary [0, ${V})`);
      h.copyWithin(x0 + i * D, wte.off + tok * D, wte.off + (tok + 1) * D);
      if (wpe) {
        const p = wpe.off + (i % T) * D;
        for (let j = 0; j < D; j++) h[x0 + i * D + j] = h[x0 + i * D + j]! + h[p + j]!;
      }
    }
    this.timer.lap("embedding");

    for (let l = 0; l < layers.length; l++) {
      const P = layers[l]!;
      const A = this.acts[l]!;
      // attention sub-block: q,k,v = LN₁(x)·Wqkv + bqkv (RoPE on q, k);  a = attention(q, k, v)
      this.layerNorm(A.x.off, P.ln1g, P.ln1b, A.ln1.off, A.ln1Mean, A.ln1Rstd, N);
      this.linear(A.ln1.off, P.wqkv, P.bqkv, A.qkv.off, N, D, 3 * D);
      if (this.config.positional === "rope") this.rope(A.qkv.off, B, T, 1);
      this.attention(A, B, T);
      // x_mid = x + a·Wo + bo
      this.linear(A.att.off, P.wo, P.bo, A.xMid.off, N, D, D);
      this.mem.addInto(A.xMid.off, A.x.off, N * D);
      this.timer.lap("bias/residual");
      // MLP sub-block: x_next = x_mid + GELU(LN₂(x_mid)·W1 + b1)·W2 + b2
      this.layerNorm(A.xMid.off, P.ln2g, P.ln2b, A.ln2.off, A.ln2Mean, A.ln2Rstd, N);
      this.linear(A.ln2.off, P.w1, P.b1, A.u.off, N, D, F);
      this.gelu(A.u.off, A.g.off, opts.needCache ? A.gd.off : 0, N * F);
      const next = l + 1 < layers.length ? this.acts[l + 1]!.x.off : this.xFinal.off;
      this.linear(A.g.off, P.w2, P.b2, next, N, F, D);
      this.mem.addInto(next, A.xMid.off, N * D);
      this.timer.lap("bias/residual");
    }

    // z = LN_f(x)·wteᵀ
    this.layerNorm(this.xFinal.off, lnfg, lnfb, this.lnf.off, this.lnfMean, this.lnfRstd, N);
    this.mem.mm(N, V, D, this.lnf.off, D, 1, wte.off, 1, D, this.logitsS.off, V, false);
    this.timer.lap("head");

    this.logSoftmax(tokens, N, T);
    this.timer.lap("softmax/vocab");
    this.cacheValid = opts.needCache === true;
    const { logprobs, entropy } = this.out;
    return { logits: this.mem.view(this.logitsS), logprobs, entropy };
  }

  /**
   * The log-softmax of each row of logits: log Z = logsumexp(z), log π(y) = z_y − log Z,
   * H = log Z − Σ p·z. Row i predicts the token at position i+1 of the same sequence. The
   * probabilities p are kept (in dbig, the backward's dz buffer) so that the backward needs no exp.
   */
  private logSoftmax(tokens: Int32Array, N: number, T: number): void {
    const V = this.config.vocabSize;
    const h = this.mem.f32;
    const z = this.logitsS.off;
    const probs = this.dbig.off;
    const { logprobs, entropy } = this.out;
    const ops = this.mem.ops;
    if (ops && this.opsVocab) {
      // p for the backward in wasm (with per row max, Σ exp(z − max), Σ exp(z − max)·z in float32,
      // for the entropy); log Z itself in float64 as below and as generate.ts's logSumExp forms it,
      // so that a sampled token's logprob and this one are the same float
      const st = this.vocabStats.off;
      ops.softmax_rows(z * 4, probs * 4, st * 4, N, V);
      for (let i = 0; i < N; i++) {
        const r = z + i * V;
        const m = h[st + 3 * i]!;
        let s64 = 0;
        for (let j = 0; j < V; j++) s64 += Math.exp(h[r + j]! - m);
        const s = h[st + 3 * i + 1]!;
        const lz = m + Math.log(s64);
        this.logZ[i] = lz;
        if (i % T !== T - 1) {
          logprobs[i + 1] = h[z + i * V + tokens[i + 1]!]! - lz;
          entropy[i + 1] = lz - h[st + 3 * i + 2]! / s;
        }
        if (i % T === 0) {
          logprobs[i] = 0;
          entropy[i] = 0;
        }
      }
      return;
    }
    for (let i = 0; i < N; i++) {
      const r = z + i * V;
      const pr = probs + i * V;
      let m = Number.NEGATIVE_INFINITY;
      for (let j = 0; j < V; j++) m = Math.max(m, h[r + j]!);
      let s = 0;
      let sz = 0;
      for (let j = 0; j < V; j++) {
        const e = Math.exp(h[r + j]! - m);
        h[pr + j] = e;
        s += e;
        sz += e * h[r + j]!;
      }
      const inv = 1 / s;
      for (let j = 0; j < V; j++) h[pr + j] = h[pr + j]! * inv;
      const lz = m + Math.log(s);
      this.logZ[i] = lz;
      if (i % T !== T - 1) {
        logprobs[i + 1] = h[r + tokens[i + 1]!]! - lz;
        entropy[i + 1] = lz - sz / s;
      }
      if (i % T === 0) {
        logprobs[i] = 0;
        entropy[i] = 0;
      }
    }
  }

  /** log π of each next token, [B×T]; position 0 of each row gets 0 (nothing predicts it). */
  tokenLogprobs(tokens: Int32Array, B: number, T: number): Float32Array {
    return this.forward(tokens, B, T).logprobs.slice();
  }

  // ── backward ──────────────────────────────────────────────────────────────────────────────

  /**
   * Accumulates ∂L/∂θ into the gradient buffer, given ∂L/∂log π(t) (`dLogprob`, [B×T], aligned
   * with the forward's logprobs) and optionally ∂L/∂H(t) (`dEntropy`). Needs the activations of a
   * forward with `needCache: true`.
   */
  backward(dLogprob: Float32Array | Float64Array, dEntropy?: Float32Array | Float64Array): void {
    if (!this.cacheValid) throw new Error("backward needs a forward(…, {needCache: true}) first");
    const { B, T } = this.shape;
    const { dModel: D, vocabSize: V, mlpRatio } = this.config;
    const F = D * mlpRatio;
    const N = B * T;
    const h = this.mem.f32;
    const g = this.gradOffset;
    const { wte, wpe, layers, lnfg, lnfb } = this.w;
    this.mem.ws = this.ws;
    this.timer.start();

    // log π and H → logits: dz (into dbig, over the probabilities the forward left there)
    this.logSoftmaxBackward(dLogprob, dEntropy, N, T);
    this.timer.lap("softmax/vocab");
    // z = LN_f·wteᵀ:  d(wte) += dzᵀ·LN_f,  dLN_f = dz·wte
    const dz = this.dbig.off;
    this.mem.mm(V, D, N, dz, 1, V, this.lnf.off, D, 1, wte.off + g, D, true);
    this.mem.mm(N, D, V, dz, V, 1, wte.off, D, 1, this.dh.off, D, false);
    h.fill(0, this.dx.off, this.dx.off + N * D);
    this.timer.lap("head");
    // LN_f:  dxᴸ = LN_fᵀ(dLN_f)
    const dx = this.dx.off; // ∂L/∂x of the current block's output; the residual passes it through
    this.layerNormBackward(
      this.xFinal.off,
      lnfg,
      lnfb,
      this.lnfMean,
      this.lnfRstd,
      this.dh.off,
      dx,
      N,
    );

    for (let l = layers.length - 1; l >= 0; l--) {
      const P = layers[l]!;
      const A = this.acts[l]!;
      // MLP: y = g·W2 + b2  →  dg = dy·W2ᵀ (into dbig), dW2 += gᵀ·dy
      const dg = this.dbig.off;
      this.linearBackward(A.g.off, P.w2, P.b2, dx, dg, N, F, D, false);
      // g = GELU(u)  →  du = dg·GELU'(u)
      if (this.mem.ops) this.mem.ops.vmul(dg * 4, A.gd.off * 4, N * F);
      else geluBackward(h, A.u.off, dg, N * F);
      this.timer.lap("gelu");
      // u = LN₂·W1 + b1  →  dLN₂ = du·W1ᵀ
      this.linearBackward(A.ln2.off, P.w1, P.b1, dg, this.dh.off, N, D, F, false);
      // x_mid feeds both the residual and LN₂: dx_mid = dx + LN₂ᵀ(dLN₂)  (accumulated into dx)
      this.layerNormBackward(A.xMid.off, P.ln2g, P.ln2b, A.ln2Mean, A.ln2Rstd, this.dh.off, dx, N);

      // attention output: x_mid = x + att·Wo + bo  →  datt = dx_mid·Woᵀ (into dh)
      this.linearBackward(A.att.off, P.wo, P.bo, dx, this.dh.off, N, D, D, false);
      // a = attention(q, k, v)  →  dq, dk, dv (into dqkv)
      this.attentionBackward(A, B, T);
      // q, k rotated by R  →  dq, dk rotated back by Rᵀ
      const dq = this.dqkv.off;
      if (this.config.positional === "rope") this.rope(dq, B, T, -1);
      // qkv = LN₁·Wqkv + bqkv  →  dLN₁ = dqkv·Wqkvᵀ
      this.linearBackward(A.ln1.off, P.wqkv, P.bqkv, dq, this.dh.off, N, D, 3 * D, false);
      // x feeds the residual and LN₁: dx = dx_mid + LN₁ᵀ(dLN₁)
      this.layerNormBackward(A.x.off, P.ln1g, P.ln1b, A.ln1Mean, A.ln1Rstd, this.dh.off, dx, N);
    }

    // x⁰ = wte[tok] + wpe[pos]:  d(wte)[tok] += dx,  d(wpe)[pos] += dx
    for (let i = 0; i < N; i++) {
      const dw = wte.off + g + this.tokens[i]! * D;
      for (let j = 0; j < D; j++) h[dw + j] = h[dw + j]! + h[dx + i * D + j]!;
      if (wpe) {
        const dp = wpe.off + g + (i % T) * D;
        for (let j = 0; j < D; j++) h[dp + j] = h[dp + j]! + h[dx + i * D + j]!;
      }
    }
    this.timer.lap("embedding");
  }

  /**
   * Backward of {@link logSoftmax} into dz (dbig, which holds the forward's probabilities). With
   * p = softmax(z) of row i (which predicts token y = tokens[i+1]):
   *   ∂log p_y/∂z_j = 1[j = y] − p_j,   ∂H/∂z_j = −p_j·(log p_j + H)
   *   dz_j = gℓ·(1[j=y] − p_j) − gH·p_j·(log p_j + H)
   * The last row of each sequence predicts nothing: dz = 0.
   */
  private logSoftmaxBackward(
    dLogprob: Float32Array | Float64Array,
    dEntropy: Float32Array | Float64Array | undefined,
    N: number,
    T: number,
  ): void {
    const V = this.config.vocabSize;
    const h = this.mem.f32;
    const ops = this.opsVocab ? this.mem.ops : undefined;
    const dz = this.dbig.off;
    const z = this.logitsS.off;
    const ent = this.out.entropy;
    for (let i = 0; i < N; i++) {
      const r = z + i * V;
      const d = dz + i * V;
      if (i % T === T - 1) {
        h.fill(0, d, d + V);
        continue;
      }
      const gl = dLogprob[i + 1]!;
      const gH = dEntropy ? dEntropy[i + 1]! : 0;
      const lz = this.logZ[i]!;
      const Hi = ent[i + 1]!;
      const y = this.tokens[i + 1]!;
      if (ops) {
        // dz_j = p_j·(a + c·z_j), a = −gℓ − gH·(H − log Z), c = −gH
        ops.scale_affine(d * 4, r * 4, V, -gl - gH * (Hi - lz), -gH);
        h[d + y] = h[d + y]! + gl;
        continue;
      }
      for (let j = 0; j < V; j++) {
        const p = h[d + j]!; // softmax, kept by the forward in this buffer
        h[d + j] = -gl * p - gH * p * (h[r + j]! - lz + Hi);
      }
      h[d + y] = h[d + y]! + gl;
    }
  }

  // ── incremental decoding (decode.ts) ──────────────────────────────────────────────────────

  /**
   * Starts incremental decoding of `prompts` (B sequences of different lengths, each ≥ 1 token)
   * with a fresh KV cache of `capacity` positions per sequence (default maxSeqLen); returns the
   * logits that predict each sequence's next token, [B×V] (a view, valid until the next prefill,
   * decodeStep or forward). See {@link KvDecoder.prefill}.
   */
  prefill(prompts: readonly (readonly number[])[], capacity?: number): Float32Array {
    return this.decoder.prefill(prompts, capacity);
  }

  /** Tokens cached per sequence of the current KV cache (a copy; empty without one). */
  get kvLengths(): Int32Array {
    return this.decoder.lengths();
  }

  /**
   * One decode step: appends `tokens[r]` to sequence `rows[r]` (default: every sequence, r = b)
   * and returns the logits predicting the token after it, [R×V] (a view, valid until the next
   * prefill, decodeStep or forward). See {@link KvDecoder.step}.
   */
  decodeStep(tokens: Int32Array, rows?: Int32Array): Float32Array {
    return this.decoder.step(tokens, rows);
  }
}
