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
 * Storage: every parameter, gradient and activation lives in one WebAssembly.Memory (a Float32Array
 * `heap` over it), addressed by float offsets, so the wasm SIMD GEMM (kernels/gemm-wasm.ts) reads
 * and writes them in place. Where wasm SIMD is unavailable, the same calls go to kernels/gemm-js.ts.
 * The elementwise and row-wise work (GELU, LayerNorm, softmaxes, RoPE, bias sums, residual adds,
 * decode's matrix–vector products) runs in wasm SIMD too (kernels/ops-wasm.ts) where the widths are
 * multiples of 4, in float32; the plain-JS loops below remain for other widths and kernel "js".
 * Matrices are row-major; a [rows × cols] activation holds one row per token (B·T rows).
 *
 * GELU is the tanh approximation everywhere (sampler and trainer use {@link gelu} from here):
 *   GELU(x) = ½·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
 */
import {
  aggregationScale,
  type LossSpecInput,
  LossSpecSchema,
  tokenLoss,
} from "../../algorithms/loss.js";
import { mulberry32 } from "../../random.js";
import { gemmJs } from "./kernels/gemm-js.js";
import { type GemmExports, gemmWorkspaceBytes, instantiateGemm } from "./kernels/gemm-wasm.js";
import { instantiateOps, type OpsExports } from "./kernels/ops-wasm.js";

export interface GptConfig {
  vocabSize: number;
  dModel: number;
  nLayers: number;
  nHeads: number;
  maxSeqLen: number;
  /** Hidden width of the MLP as a multiple of dModel (4 in GPT-2). */
  mlpRatio: number;
  positional: "learned" | "rope";
  /** The output head is the token embedding transposed (the only mode implemented). */
  tiedHead: true;
}

export interface GptOptions {
  /** Seed of the parameter initialisation (same seed → identical weights). */
  seed?: number;
  /** Std of the weight init (GPT-2: 0.02); tests use a larger one for well-conditioned gradients. */
  initStd?: number;
  /** "wasm" (default; falls back to "js" where WebAssembly SIMD is unavailable) or "js". */
  kernel?: "wasm" | "js";
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

/** A slice of the heap: `size` floats from float offset `off`. */
export interface Slice {
  off: number;
  size: number;
}

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

interface LayerParams {
  ln1g: Slice;
  ln1b: Slice;
  wqkv: Slice;
  bqkv: Slice;
  wo: Slice;
  bo: Slice;
  ln2g: Slice;
  ln2b: Slice;
  w1: Slice;
  b1: Slice;
  w2: Slice;
  b2: Slice;
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

/**
 * The KV cache of {@link Gpt.prefill}/{@link Gpt.decodeStep}: per layer, the keys (after RoPE) and
 * values of every cached position of each of B sequences, plus the scratch of one decode step for
 * up to B rows. Values are [B × capacity × D] (heads side by side in D, as in the forward's qkv
 * rows); keys are stored transposed, [B × D × kStride] (dim d of position t at d·kStride + t), so a
 * decode step's scores read 4 consecutive keys as one vector.
 */
interface KvState {
  B: number;
  capacity: number;
  /** The keys' row length: capacity rounded up to a multiple of 4. */
  kStride: number;
  /** Tokens cached per sequence; the next token of sequence b goes to position lengths[b]. */
  lengths: Int32Array;
  k: Slice[];
  v: Slice[];
  x: Slice; // [B×D] block input, then block output
  ln: Slice; // [B×D] LN₁ / LN₂ / LN_f output
  mean: Slice; // [B]
  rstd: Slice; // [B]
  qkv: Slice; // [B×3D]
  att: Slice; // [B×D]
  xMid: Slice; // [B×D]
  u: Slice; // [B×F]
  g: Slice; // [B×F]
  scores: Slice; // [capacity], one head's attention row
  logits: Slice; // [B×V]
  ws: number; // GEMM workspace, byte offset
  ropeCos: Float32Array;
  ropeSin: Float32Array;
  /** The same tables in the heap, for the wasm rope (as the forward uses), when it applies. */
  ropeHeap: { cos: Slice; sin: Slice } | undefined;
}

/**
 * Bench instrumentation (bench/local-backend.ts): while a profile is set, forward, backward and
 * decodeStep add the milliseconds of each of their phases into `ms` (GEMM calls under "gemm" only,
 * not in the phase around them). Off by default; a disabled check costs one branch per phase.
 */
export interface PhaseProfile {
  ms: Record<string, number>;
}

let profile: PhaseProfile | undefined;
let lapStart = 0;
let gemmSinceLap = 0;
/** The phase GEMM time is charged to: "gemm", or "gemm (attention)" inside attention. */
let gemmPhase = "gemm";

/** Turns the per-phase timer on (a profile to add into) or off (undefined). */
export function setPhaseProfile(p: PhaseProfile | undefined): void {
  profile = p;
  lapStart = performance.now();
  gemmSinceLap = 0;
}

/** Starts timing (at the top of forward/backward/decodeStep). */
function lapReset(): void {
  if (!profile) return;
  lapStart = performance.now();
  gemmSinceLap = 0;
}

/** Charges the time since the last lap (less the GEMMs inside it) to `phase`. */
function lap(phase: string): void {
  if (!profile) return;
  const now = performance.now();
  profile.ms[phase] = (profile.ms[phase] ?? 0) + (now - lapStart - gemmSinceLap);
  lapStart = now;
  gemmSinceLap = 0;
}

const SQRT_2_OVER_PI = Math.sqrt(2 / Math.PI);
const LN_EPS = 1e-5;

/**
 * tanh, fast: the [7/6] Padé approximant where it is accurate,
 * |v| ≤ 2.5, and (1 − e^{−2|v|})/(1 + e^{−2|v|}) with the sign of v beyond; max abs error 1.4e-7
 * against Math.tanh (measured), ~4× cheaper. Trainer and sampler both compute GELU through it.
 *   tanh(v) ≈ v·(135135 + v²(17325 + v²(378 + v²))) / (135135 + v²(62370 + v²(3150 + 28v²)))
 */
export function tanhFast(v: number): number {
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
function geluForward(h: Float32Array, x: number, y: number, n: number): void {
  for (let i = 0; i < n; i++) h[y + i] = gelu(h[x + i]!);
}

/** dy[i] ← dy[i]·GELU'(x[i]) over a heap range. */
function geluBackward(h: Float32Array, x: number, dy: number, n: number): void {
  for (let i = 0; i < n; i++) h[dy + i] = h[dy + i]! * geluGrad(h[x + i]!);
}

/**
 * In place: row[0..n) ← softmax(row[0..n)·scale), the attention softmax of one query over its n
 * visible keys: the plain-JS path of the training forward (T not a multiple of 4, or no wasm ops)
 * and of the KV-cache decode (head size not a multiple of 4).
 */
function softmaxScaledPrefix(h: Float32Array, r: number, n: number, scale: number): void {
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
function ropeTable(
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

const PAGE = 65536;
/** Query rows per block of the blocked causal attention (rows of ≤ 2 blocks are done whole). */
const ATTN_BLOCK = 64;
/** Up to this many rows, linear layers and the head use the wasm GEMV (decode steps). */
const GEMV_ROWS = 4;

export class Gpt {
  readonly config: GptConfig;
  readonly params: ParamInfo[] = [];
  /** Number of parameters (floats) in the flat buffer. */
  readonly numParams: number;

  private memory: WebAssembly.Memory;
  private heap: Float32Array;
  private wasm: GemmExports | undefined;
  /** wasm SIMD elementwise/row-wise ops, where dModel and the MLP width are multiples of 4. */
  private ops: OpsExports | undefined;
  /** The log-softmax over the vocabulary in wasm too (vocabSize a multiple of 4). */
  private opsVocab = false;
  private vocabStats: Slice = { off: 0, size: 0 }; // [N×3]: max, Σ exp, Σ exp·z per row
  private top = 0; // bump allocator, in floats
  private readonly paramBase: Slice;
  private readonly gradBase: Slice;
  private readonly wte: Slice;
  private readonly wpe: Slice | undefined;
  private readonly layers: LayerParams[] = [];
  private readonly lnfg: Slice;
  private readonly lnfb: Slice;
  /** Where the forward's activations start; moves up when the KV cache region grows. */
  private activationBase: number;
  /** Start of the KV-cache region (between the gradients and the activations). */
  private readonly kvBase: number;
  private kv: KvState | undefined;
  private ropeCos = new Float32Array(0);
  private ropeSin = new Float32Array(0);
  /** The RoPE tables in the heap too, for the wasm rope (empty without it). */
  private ropeHeap: { cos: Slice; sin: Slice } = {
    cos: { off: 0, size: 0 },
    sin: { off: 0, size: 0 },
  };

  // activations of the last forward
  private shape = { B: 0, T: 0 };
  private tokens = new Int32Array(0);
  private acts: LayerActs[] = [];
  private xFinal: Slice = { off: 0, size: 0 };
  private lnf: Slice = { off: 0, size: 0 };
  private lnfMean: Slice = { off: 0, size: 0 };
  private lnfRstd: Slice = { off: 0, size: 0 };
  private logitsS: Slice = { off: 0, size: 0 };
  private logZ = new Float64Array(0);
  private out: { logprobs: Float32Array; entropy: Float32Array } = {
    logprobs: new Float32Array(0),
    entropy: new Float32Array(0),
  };
  // backward scratch
  private dx: Slice = { off: 0, size: 0 };
  private dh: Slice = { off: 0, size: 0 };
  private dqkv: Slice = { off: 0, size: 0 };
  private dbig: Slice = { off: 0, size: 0 }; // [N×max(F, V)]
  private dS: Slice = { off: 0, size: 0 }; // [T×T], rows padded to ⌈T/4⌉·4 with the wasm ops
  private ws = 0; // GEMM workspace, byte offset
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

    this.memory = new WebAssembly.Memory({ initial: 1, maximum: 65536 });
    this.heap = new Float32Array(this.memory.buffer);
    if (options.kernel !== "js") {
      try {
        this.wasm = instantiateGemm(this.memory).exports;
        const F = D * config.mlpRatio;
        if (D % 4 === 0 && Number.isInteger(F) && F % 4 === 0) {
          this.ops = instantiateOps(this.memory);
          this.opsVocab = config.vocabSize % 4 === 0;
        }
      } catch {
        this.wasm = undefined; // no WebAssembly SIMD here: gemm-js does the matmuls
      }
    }
    this.paramBase = this.alloc(n);
    this.gradBase = this.alloc(n);
    this.activationBase = this.top;
    this.kvBase = this.top;
    const at = (name: string): Slice => {
      const p = layout.find((q) => q.name === name);
      if (!p) throw new Error(`no parameter ${name}`);
      return { off: this.paramBase.off + p.offset, size: p.size };
    };
    this.wte = at("wte");
    this.wpe = config.positional === "learned" ? at("wpe") : undefined;
    for (let l = 0; l < L; l++) {
      const p = (s: string) => at(`h${l}.${s}`);
      this.layers.push({
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
    this.lnfg = at("lnf.g");
    this.lnfb = at("lnf.b");
    this.init(options.seed ?? 0, options.initStd ?? 0.02);
  }

  /** Whether the matmuls run in wasm SIMD (false: the plain-JS fallback). */
  get usesWasm(): boolean {
    return this.wasm !== undefined;
  }

  /**
   * All parameters, flat (a view: writes change the model). The heap grows when a forward needs
   * more room than any before it, which detaches earlier views: fetch again after a new B×T.
   */
  get paramData(): Float32Array {
    return this.view(this.paramBase);
  }

  /** All gradients, flat, aligned with {@link paramData}. */
  get gradData(): Float32Array {
    return this.view(this.gradBase);
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

  // ── memory ────────────────────────────────────────────────────────────────────────────────

  private alloc(size: number): Slice {
    const off = (this.top + 3) & ~3; // 16-byte aligned
    this.top = off + size;
    this.ensureBytes(this.top * 4);
    return { off, size };
  }

  private ensureBytes(bytes: number): void {
    const have = this.memory.buffer.byteLength;
    if (bytes > have) {
      this.memory.grow(Math.ceil((bytes - have) / PAGE));
      this.heap = new Float32Array(this.memory.buffer); // grow detaches the old buffer
    }
  }

  private view(s: Slice): Float32Array {
    return this.heap.subarray(s.off, s.off + s.size);
  }

  /** heap[dst..+n) += heap[src..+n). */
  private addInto(dst: number, src: number, n: number): void {
    if (this.ops) {
      this.ops.vadd(dst * 4, src * 4, dst * 4, n);
      return;
    }
    const h = this.heap;
    for (let i = 0; i < n; i++) h[dst + i] = h[dst + i]! + h[src + i]!;
  }

  /** (Re)allocates the activations for a B×T batch; a no-op when the shape is unchanged. */
  private prepare(B: number, T: number): void {
    if (B === this.shape.B && T === this.shape.T) return;
    const { dModel: D, nHeads: H, vocabSize: V, mlpRatio } = this.config;
    const F = D * mlpRatio;
    const N = B * T;
    this.top = this.activationBase;
    this.acts = this.layers.map(() => ({
      x: this.alloc(N * D),
      ln1: this.alloc(N * D),
      ln1Mean: this.alloc(N),
      ln1Rstd: this.alloc(N),
      qkv: this.alloc(N * 3 * D),
      probs: this.alloc(B * H * T * ((T + 3) & ~3)), // rows padded to whole vectors (wasm ops)
      att: this.alloc(N * D),
      xMid: this.alloc(N * D),
      ln2: this.alloc(N * D),
      ln2Mean: this.alloc(N),
      ln2Rstd: this.alloc(N),
      u: this.alloc(N * F),
      g: this.alloc(N * F),
      gd: this.alloc(this.ops ? N * F : 0),
    }));
    this.xFinal = this.alloc(N * D);
    this.lnf = this.alloc(N * D);
    this.lnfMean = this.alloc(N);
    this.lnfRstd = this.alloc(N);
    this.logitsS = this.alloc(N * V);
    this.dx = this.alloc(N * D);
    this.dh = this.alloc(N * D);
    this.dqkv = this.alloc(N * 3 * D);
    this.dbig = this.alloc(N * Math.max(F, V));
    this.dS = this.alloc(T * ((T + 3) & ~3));
    const maxK = Math.max(N, V, F, D, T);
    const wsFloats = Math.ceil(gemmWorkspaceBytes(maxK) / 4) + 16;
    this.ws = this.alloc(wsFloats).off * 4;
    this.vocabStats = this.alloc(this.opsVocab ? 3 * N : 0);
    this.logZ = new Float64Array(N);
    this.out = { logprobs: new Float32Array(N), entropy: new Float32Array(N) };
    this.shape = { B, T };
    if (this.config.positional === "rope") {
      this.ropeTables(T);
      if (this.ops && (D / H / 2) % 4 === 0) {
        this.ropeHeap = {
          cos: this.alloc(this.ropeCos.length),
          sin: this.alloc(this.ropeSin.length),
        };
        this.heap.set(this.ropeCos, this.ropeHeap.cos.off);
        this.heap.set(this.ropeSin, this.ropeHeap.sin.off);
      } else this.ropeHeap = { cos: { off: 0, size: 0 }, sin: { off: 0, size: 0 } };
    }
  }

  /**
   * C[M×N] (+)= A·B with strided operands (float offsets into the heap):
   * A(i,k) = heap[a + i·sai + k·sak], B(k,j) = heap[b + k·sbk + j·sbj], C(i,j) = heap[c + i·ldc + j].
   */
  private mm(
    M: number,
    N: number,
    K: number,
    a: number,
    sai: number,
    sak: number,
    b: number,
    sbk: number,
    sbj: number,
    c: number,
    ldc: number,
    accumulate: boolean,
  ): void {
    const t0 = profile ? performance.now() : 0;
    if (this.wasm) {
      this.wasm.gemm(
        M,
        N,
        K,
        a * 4,
        sai,
        sak,
        b * 4,
        sbk,
        sbj,
        c * 4,
        ldc,
        accumulate ? 1 : 0,
        this.ws,
      );
    } else {
      const h = this.heap;
      gemmJs({
        M,
        N,
        K,
        A: h,
        aOff: a,
        sai,
        sak,
        B: h,
        bOff: b,
        sbk,
        sbj,
        C: h,
        cOff: c,
        ldc,
        accumulate,
      });
    }
    if (profile) this.chargeGemm(t0);
  }

  /** Profile: the time since t0 was a GEMM (or GEMV). */
  private chargeGemm(t0: number): void {
    if (!profile) return;
    const d = performance.now() - t0;
    profile.ms[gemmPhase] = (profile.ms[gemmPhase] ?? 0) + d;
    gemmSinceLap += d;
  }

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
    const h = this.heap;
    for (let i = 0; i < N; i++) h.copyWithin(y + i * nOut, bias.off, bias.off + nOut);
    if (this.ops && N <= GEMV_ROWS && nOut % 4 === 0) {
      // a few rows (decode): matrix–vector products, no packing
      const t0 = profile ? performance.now() : 0;
      this.ops.gemv_nn(N, nOut, nIn, x * 4, nIn, w.off * 4, nOut, y * 4, nOut, 1);
      if (profile) this.chargeGemm(t0);
    } else this.mm(N, nOut, nIn, x, nIn, 1, w.off, nOut, 1, y, nOut, true);
    lap("bias/residual");
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
    const g = this.gradBase.off - this.paramBase.off; // grad of a param = same offset + g
    this.mm(nIn, nOut, N, x, 1, nIn, dy, nOut, 1, w.off + g, nOut, true);
    const h = this.heap;
    const db = bias.off + g;
    if (this.ops && nOut % 4 === 0) this.ops.colsum(db * 4, dy * 4, N, nOut);
    else
      for (let i = 0; i < N; i++) {
        const r = dy + i * nOut;
        for (let j = 0; j < nOut; j++) h[db + j] = h[db + j]! + h[r + j]!;
      }
    this.mm(N, nIn, nOut, dy, nOut, 1, w.off, 1, nOut, dxOff, nIn, accumulateDx);
    lap("bias/residual");
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
    const h = this.heap;
    if (this.ops) {
      const o = this.ops;
      o.ln_fwd(x * 4, gain.off * 4, bias.off * 4, y * 4, mean.off * 4, rstd.off * 4, N, D);
      lap("layernorm");
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
    lap("layernorm");
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
    const h = this.heap;
    const g = this.gradBase.off - this.paramBase.off;
    const dg = gain.off + g;
    const db = bias.off + g;
    if (this.ops) {
      this.ops.ln_bwd(
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
      lap("layernorm");
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
    lap("layernorm");
  }

  /** RoPE tables for positions < T (see {@link ropeTable}). */
  private ropeTables(T: number): void {
    const t = ropeTable(this.config.dModel / this.config.nHeads, T);
    this.ropeCos = t.cos;
    this.ropeSin = t.sin;
  }

  /**
   * Rotates the pairs (v_i, v_{i+d/2}) of every head of q and k (the first 2D columns of qkv) by
   * the position's angle ("rotate-half" RoPE, as in GPT-NeoX/Llama). sign −1 applies the inverse
   * rotation Rᵀ, which is the backward: d(Rv)/dv = R, so dv = Rᵀ·d(Rv).
   */
  private rope(qkv: number, B: number, T: number, sign: 1 | -1): void {
    const { dModel: D, nHeads: H } = this.config;
    const hd = D / H;
    const half = hd / 2;
    if (this.ops && this.ropeHeap.cos.size > 0) {
      const { cos, sin } = this.ropeHeap;
      this.ops.rope(qkv * 4, cos.off * 4, sin.off * 4, B * T, T, 3 * D, 2 * H, half, sign);
      lap("rope");
      return;
    }
    const h = this.heap;
    const cs = this.ropeCos;
    const sn = this.ropeSin;
    for (let b = 0; b < B; b++)
      for (let t = 0; t < T; t++) {
        const row = qkv + (b * T + t) * 3 * D;
        for (let head = 0; head < 2 * H; head++) {
          const o = row + head * hd;
          for (let i = 0; i < half; i++) {
            const c = cs[t * half + i]!;
            const s = sign * sn[t * half + i]!;
            const x1 = h[o + i]!;
            const x2 = h[o + i + half]!;
            h[o + i] = x1 * c - x2 * s;
            h[o + i + half] = x2 * c + x1 * s;
          }
        }
      }
    lap("rope");
  }

  /**
   * Causal attention of every (sequence, head) with the wasm ops (rows of P padded to a multiple
   * of 4 floats), in row blocks of ATTN_BLOCK queries: block [i0, i1) only needs keys < i1, so the score and P·V
   * products skip the blocks above the diagonal (half the work for long rows). Probabilities are
   * kept in probs (0 above the diagonal, as in the plain path).
   */
  private attentionForward(A: LayerActs, B: number, T: number): void {
    const { dModel: D, nHeads: H } = this.config;
    const hd = D / H;
    const scale = 1 / Math.sqrt(hd);
    const ops = this.ops!;
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
          this.mm(rows, i1, hd, q + i0 * 3 * D, 3 * D, 1, k, 1, 3 * D, p + i0 * Tp, Tp, false);
          ops.attn_softmax((p + i0 * Tp) * 4, rows, Tp, i0 + 1, scale);
          // a = P·v
          this.mm(rows, hd, i1, p + i0 * Tp, Tp, 1, v, 3 * D, 1, a + i0 * D, D, false);
        }
      }
  }

  /** Backward of {@link attentionForward}: dq, dk, dv into dqkv, from datt in dh. */
  private attentionBackward(A: LayerActs, B: number, T: number): void {
    const { dModel: D, nHeads: H } = this.config;
    const hd = D / H;
    const scale = 1 / Math.sqrt(hd);
    const ops = this.ops!;
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
          this.mm(rows, i1, hd, da + i0 * D, D, 1, v, 1, D3, sb, Tp, false);
          if (i0 > 0) this.mm(i0, hd, rows, pb, 1, Tp, da + i0 * D, D, 1, dv, D3, true);
          this.mm(rows, hd, rows, pb + i0, 1, Tp, da + i0 * D, D, 1, dv + i0 * D3, D3, false);
          // P = softmax(S·s):  dS = s·P·(dP − Σ dP·P)
          ops.softmax_bwd(sb * 4, pb * 4, rows, Tp, (i1 + 3) & ~3, scale); // P is 0 past i1
          // S = q·kᵀ:  dq = dS·k,  dk = dSᵀ·q
          this.mm(rows, hd, i1, sb, Tp, 1, k, D3, 1, dq + i0 * D3, D3, false);
          if (i0 > 0) this.mm(i0, hd, rows, sb, 1, Tp, q + i0 * D3, D3, 1, dk, D3, true);
          this.mm(rows, hd, rows, sb + i0, 1, Tp, q + i0 * D3, D3, 1, dk + i0 * D3, D3, false);
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
    const { dModel: D, nHeads: H, vocabSize: V, mlpRatio, maxSeqLen } = this.config;
    if (tokens.length !== B * T)
      throw new RangeError(`tokens has ${tokens.length} entries, expected B·T = ${B * T}`);
    if (T > maxSeqLen) throw new RangeError(`sequence length ${T} exceeds maxSeqLen ${maxSeqLen}`);
    const F = D * mlpRatio;
    const N = B * T;
    const hd = D / H;
    this.prepare(B, T);
    this.tokens = tokens.slice();
    const h = this.heap;

    lapReset();
    // x⁰ = wte[tok] + wpe[pos]
    const x0 = this.acts.length > 0 ? this.acts[0]!.x.off : this.xFinal.off;
    for (let i = 0; i < N; i++) {
      const tok = tokens[i]!;
      if (tok < 0 || tok >= V)
        throw new RangeError(`token ${tok} outside the vocabulary [0, ${V})`);
      h.copyWithin(x0 + i * D, this.wte.off + tok * D, this.wte.off + (tok + 1) * D);
      if (this.wpe) {
        const p = this.wpe.off + (i % T) * D;
        for (let j = 0; j < D; j++) h[x0 + i * D + j] = h[x0 + i * D + j]! + h[p + j]!;
      }
    }

    lap("embedding");
    const scale = 1 / Math.sqrt(hd);
    for (let l = 0; l < this.layers.length; l++) {
      const P = this.layers[l]!;
      const A = this.acts[l]!;
      // attention sub-block
      this.layerNorm(A.x.off, P.ln1g, P.ln1b, A.ln1.off, A.ln1Mean, A.ln1Rstd, N);
      this.linear(A.ln1.off, P.wqkv, P.bqkv, A.qkv.off, N, D, 3 * D);
      if (this.config.positional === "rope") this.rope(A.qkv.off, B, T, 1);
      gemmPhase = "gemm (attention)";
      // (the head size too, as decode's attn_decode needs: both paths must round alike)
      if (this.ops && hd % 4 === 0) this.attentionForward(A, B, T);
      else
        for (let b = 0; b < B; b++)
          for (let head = 0; head < H; head++) {
            const q = A.qkv.off + b * T * 3 * D + head * hd;
            const k = q + D;
            const v = q + 2 * D;
            const p = A.probs.off + (b * H + head) * T * T;
            // S = q·kᵀ  [T×T]
            this.mm(T, T, hd, q, 3 * D, 1, k, 1, 3 * D, p, T, false);
            // P = softmax(S/√d_head) over j ≤ i (causal); entries j > i are 0
            for (let i = 0; i < T; i++) {
              const r = p + i * T;
              softmaxScaledPrefix(h, r, i + 1, scale);
              for (let j = i + 1; j < T; j++) h[r + j] = 0;
            }
            // a = P·v, written into this head's columns of att
            this.mm(T, hd, T, p, T, 1, v, 3 * D, 1, A.att.off + b * T * D + head * hd, D, false);
          }
      gemmPhase = "gemm";
      lap("attention");
      // x_mid = x + a·Wo + bo
      this.linear(A.att.off, P.wo, P.bo, A.xMid.off, N, D, D);
      this.addInto(A.xMid.off, A.x.off, N * D);
      lap("bias/residual");
      // MLP sub-block: x_next = x_mid + GELU(LN₂(x_mid)·W1 + b1)·W2 + b2
      this.layerNorm(A.xMid.off, P.ln2g, P.ln2b, A.ln2.off, A.ln2Mean, A.ln2Rstd, N);
      this.linear(A.ln2.off, P.w1, P.b1, A.u.off, N, D, F);
      if (this.ops)
        this.ops.gelu(A.u.off * 4, A.g.off * 4, opts.needCache ? A.gd.off * 4 : 0, N * F);
      else geluForward(h, A.u.off, A.g.off, N * F);
      lap("gelu");
      const next = l + 1 < this.layers.length ? this.acts[l + 1]!.x.off : this.xFinal.off;
      this.linear(A.g.off, P.w2, P.b2, next, N, F, D);
      this.addInto(next, A.xMid.off, N * D);
      lap("bias/residual");
    }

    // z = LN_f(x)·wteᵀ
    this.layerNorm(
      this.xFinal.off,
      this.lnfg,
      this.lnfb,
      this.lnf.off,
      this.lnfMean,
      this.lnfRstd,
      N,
    );
    this.mm(N, V, D, this.lnf.off, D, 1, this.wte.off, 1, D, this.logitsS.off, V, false);
    lap("head");

    // log-softmax of each row: logZ = logsumexp(z); H = logZ − Σ p·z. The probabilities p are
    // kept (in dbig, the backward's dz buffer) so that the backward needs no exp.
    const z = this.logitsS.off;
    const probs = this.dbig.off;
    const { logprobs, entropy } = this.out;
    if (this.ops && this.opsVocab) {
      // p for the backward in wasm (with per row max, Σ exp(z − max), Σ exp(z − max)·z in float32,
      // for the entropy); log Z itself in float64 as below and as generate.ts's logSumExp forms it,
      // so that a sampled token's logprob and this one are the same float
      const st = this.vocabStats.off;
      this.ops.softmax_rows(z * 4, probs * 4, st * 4, N, V);
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
    } else
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
        // row i predicts the token at position i+1 of the same sequence
        if (i % T !== T - 1) {
          logprobs[i + 1] = h[r + tokens[i + 1]!]! - lz;
          entropy[i + 1] = lz - sz / s;
        }
        if (i % T === 0) {
          logprobs[i] = 0;
          entropy[i] = 0;
        }
      }
    lap("softmax/vocab");
    this.cacheValid = opts.needCache === true;
    return { logits: this.view(this.logitsS), logprobs, entropy };
  }

  /** log π of each next token, [B×T]; position 0 of each row gets 0 (nothing predicts it). */
  tokenLogprobs(tokens: Int32Array, B: number, T: number): Float32Array {
    return this.forward(tokens, B, T).logprobs.slice();
  }

  // ── incremental decoding (KV cache) ───────────────────────────────────────────────────────
  //
  // Sequences are NOT padded: each keeps its own length, and its positions start at 0 at its first
  // token, exactly as when the training forward scores that sequence alone (or right-padded in a
  // batch, where causality makes the padding invisible). Every step goes through the same
  // operations as {@link forward} — the same GEMM (whose entries are plain sequential dot products,
  // so a row's result does not depend on how many rows share the call) or, for a few rows, the
  // GEMV and dot-product kernels that form each sum in that same order; the same LayerNorm, GELU,
  // attention softmax (attn_decode repeats attn_softmax step by step) and RoPE — so a sampled
  // token's logprob is bit-identical to the trainer's recomputation.
  //
  // The cache lives in its own heap region below the forward's activations, so forward() and
  // backward() may run between decode steps (scoring, or a test comparing the two). One cache per
  // model: prefill() replaces the previous one. Creating a cache larger than any before moves the
  // activations up, which discards a forward's saved activations (backward then asks for a new
  // forward): do not prefill between a forward(…, {needCache: true}) and its backward.

  /** Allocates (or reuses) the KV region for B sequences of up to `capacity` positions. */
  private reserveKv(B: number, capacity: number): KvState {
    const { dModel: D, vocabSize: V, mlpRatio, nHeads: H } = this.config;
    const F = D * mlpRatio;
    const savedTop = this.top;
    this.top = this.kvBase;
    const k: Slice[] = [];
    const v: Slice[] = [];
    const kStride = (capacity + 3) & ~3;
    for (let l = 0; l < this.layers.length; l++) {
      k.push(this.alloc(B * D * kStride));
      v.push(this.alloc(B * capacity * D));
    }
    const kv: KvState = {
      B,
      capacity,
      kStride,
      lengths: new Int32Array(B),
      k,
      v,
      x: this.alloc(B * D),
      ln: this.alloc(B * D),
      mean: this.alloc(B),
      rstd: this.alloc(B),
      qkv: this.alloc(B * 3 * D),
      att: this.alloc(B * D),
      xMid: this.alloc(B * D),
      u: this.alloc(B * F),
      g: this.alloc(B * F),
      scores: this.alloc(capacity + 4), // + 4: attn_decode pads to whole vectors
      logits: this.alloc(B * V),
      ws:
        this.alloc(Math.ceil(gemmWorkspaceBytes(Math.max(capacity, V, F, D, B)) / 4) + 16).off * 4,
      ropeCos: new Float32Array(0),
      ropeSin: new Float32Array(0),
      ropeHeap: undefined,
    };
    if (this.config.positional === "rope") {
      const t = ropeTable(D / H, capacity);
      kv.ropeCos = t.cos;
      kv.ropeSin = t.sin;
      if (this.ops && (D / H / 2) % 4 === 0) {
        kv.ropeHeap = { cos: this.alloc(t.cos.length), sin: this.alloc(t.sin.length) };
        this.heap.set(t.cos, kv.ropeHeap.cos.off);
        this.heap.set(t.sin, kv.ropeHeap.sin.off);
      }
    }
    const end = (this.top + 3) & ~3;
    if (end > this.activationBase) {
      // the region grew into the activations: move them up and make the next forward re-lay them
      this.activationBase = end;
      this.shape = { B: 0, T: 0 };
      this.cacheValid = false;
      this.top = end;
    } else {
      this.top = savedTop;
    }
    this.kv = kv;
    return kv;
  }

  /**
   * Starts incremental decoding of `prompts` (B sequences of different lengths, each ≥ 1 token):
   * runs them through {@link forward} (right-padded to the longest; causality keeps the padding
   * out of every real position), keeps each layer's keys and values in a fresh KV cache of
   * `capacity` positions per sequence (default maxSeqLen) and returns the logits that predict
   * each sequence's next token, [B×V] (a view, valid until the next prefill, decodeStep or
   * forward).
   */
  prefill(prompts: readonly (readonly number[])[], capacity?: number): Float32Array {
    const { dModel: D, vocabSize: V, maxSeqLen } = this.config;
    const B = prompts.length;
    if (B === 0) throw new RangeError("prefill needs at least one prompt");
    const T = Math.max(...prompts.map((p) => p.length));
    const cap = capacity ?? maxSeqLen;
    if (prompts.some((p) => p.length === 0)) throw new RangeError("every prompt needs ≥ 1 token");
    if (cap > maxSeqLen) throw new RangeError(`capacity ${cap} exceeds maxSeqLen ${maxSeqLen}`);
    if (T > cap) throw new RangeError(`a prompt of ${T} tokens exceeds the capacity ${cap}`);
    const kv = this.reserveKv(B, cap);
    // identical prompts (a group's attempts at one task, n > 1) run through the forward once and
    // share its keys, values and logits: a row's results do not depend on the other rows
    const row = new Int32Array(B); // the forward row of each sequence
    const unique: (readonly number[])[] = [];
    const seen = new Map<string, number>();
    prompts.forEach((p, b) => {
      const key = p.join(",");
      let u = seen.get(key);
      if (u === undefined) {
        u = unique.length;
        unique.push(p);
        seen.set(key, u);
      }
      row[b] = u;
    });
    const U = unique.length;
    const tokens = new Int32Array(U * T); // padding: token 0, never attended to by a real token
    unique.forEach((p, u) => {
      for (let t = 0; t < p.length; t++) tokens[u * T + t] = p[t]!;
    });
    try {
      this.forward(tokens, U, T);
    } catch (e) {
      this.kv = undefined; // e.g. a token outside the vocabulary: no half-made cache
      throw e;
    }
    const h = this.heap; // after the forward: it may have grown the memory
    const ks = kv.kStride;
    for (let l = 0; l < this.layers.length; l++) {
      const qkv = this.acts[l]!.qkv.off;
      for (let b = 0; b < B; b++) {
        const kb = kv.k[l]!.off + b * D * ks;
        for (let t = 0; t < prompts[b]!.length; t++) {
          const src = qkv + (row[b]! * T + t) * 3 * D;
          for (let d = 0; d < D; d++) h[kb + d * ks + t] = h[src + D + d]!;
          const dst = kv.v[l]!.off + (b * cap + t) * D;
          h.copyWithin(dst, src + 2 * D, src + 3 * D);
        }
      }
    }
    for (let b = 0; b < B; b++) {
      const n = prompts[b]!.length;
      const src = this.logitsS.off + (row[b]! * T + n - 1) * V;
      h.copyWithin(kv.logits.off + b * V, src, src + V);
      kv.lengths[b] = n;
    }
    return h.subarray(kv.logits.off, kv.logits.off + B * V);
  }

  /** Tokens cached per sequence of the current KV cache (a copy; empty without one). */
  get kvLengths(): Int32Array {
    return this.kv ? this.kv.lengths.slice() : new Int32Array(0);
  }

  /**
   * One decode step: appends `tokens[r]` to sequence `rows[r]` (default: every sequence, r = b)
   * at position kvLengths[rows[r]] and returns the logits predicting the token after it, [R×V]
   * with R = tokens.length (a view, valid until the next prefill, decodeStep or forward). Sequences left out
   * of `rows` (finished ones) cost nothing and keep their cache.
   */
  decodeStep(tokens: Int32Array, rows?: Int32Array): Float32Array {
    const kv = this.kv;
    if (!kv) throw new Error("decodeStep needs a prefill() first");
    const { dModel: D, nHeads: H, vocabSize: V, mlpRatio } = this.config;
    const F = D * mlpRatio;
    const hd = D / H;
    const half = hd / 2;
    const R = tokens.length;
    const cap = kv.capacity;
    if (rows && rows.length !== R)
      throw new RangeError(`rows has ${rows.length} entries but tokens has ${R}`);
    if (!rows && R !== kv.B) throw new RangeError(`expected ${kv.B} tokens (one per sequence)`);
    const seqOf = (r: number): number => (rows ? rows[r]! : r);
    const pos = new Int32Array(R);
    const seen = new Uint8Array(kv.B);
    for (let r = 0; r < R; r++) {
      const b = seqOf(r);
      if (b < 0 || b >= kv.B) throw new RangeError(`row ${b} outside the batch [0, ${kv.B})`);
      if (seen[b]) throw new RangeError(`sequence ${b} appears twice in one step`);
      seen[b] = 1;
      pos[r] = kv.lengths[b]!;
      if (pos[r]! >= cap) throw new RangeError(`sequence ${b} is full (capacity ${cap})`);
      const tok = tokens[r]!;
      if (tok < 0 || tok >= V)
        throw new RangeError(`token ${tok} outside the vocabulary [0, ${V})`);
    }
    const h = this.heap;
    const savedWs = this.ws;
    this.ws = kv.ws; // the forward's workspace is sized for its own shapes
    try {
      lapReset();
      // x⁰ = wte[tok] + wpe[pos]
      const x = kv.x.off;
      for (let r = 0; r < R; r++) {
        const tok = tokens[r]!;
        h.copyWithin(x + r * D, this.wte.off + tok * D, this.wte.off + (tok + 1) * D);
        if (this.wpe) {
          const p = this.wpe.off + pos[r]! * D;
          for (let j = 0; j < D; j++) h[x + r * D + j] = h[x + r * D + j]! + h[p + j]!;
        }
      }
      lap("embedding");
      const scale = 1 / Math.sqrt(hd);
      const sc = kv.scores.off;
      for (let l = 0; l < this.layers.length; l++) {
        const P = this.layers[l]!;
        this.layerNorm(x, P.ln1g, P.ln1b, kv.ln.off, kv.mean, kv.rstd, R);
        this.linear(kv.ln.off, P.wqkv, P.bqkv, kv.qkv.off, R, D, 3 * D);
        gemmPhase = "gemm (attention)";
        for (let r = 0; r < R; r++) {
          const b = seqOf(r);
          const t = pos[r]!;
          const row = kv.qkv.off + r * 3 * D;
          if (kv.ropeHeap) {
            // as rope(…, 1) does, with the same kernel: one row, its tables at position t
            const { cos, sin } = kv.ropeHeap;
            const tc = t * half * 4;
            this.ops!.rope(
              row * 4,
              cos.off * 4 + tc,
              sin.off * 4 + tc,
              1,
              1,
              3 * D,
              2 * H,
              half,
              1,
            );
          } else if (this.config.positional === "rope") {
            // as rope(…, 1) does for a row at position t
            for (let head = 0; head < 2 * H; head++) {
              const o = row + head * hd;
              for (let i = 0; i < half; i++) {
                const c = kv.ropeCos[t * half + i]!;
                const s = 1 * kv.ropeSin[t * half + i]!;
                const x1 = h[o + i]!;
                const x2 = h[o + i + half]!;
                h[o + i] = x1 * c - x2 * s;
                h[o + i + half] = x2 * c + x1 * s;
              }
            }
          }
          const ks = kv.kStride;
          const kb = kv.k[l]!.off + b * D * ks; // transposed: dim d of position t at d·ks + t
          const vb = kv.v[l]!.off + b * cap * D;
          h.copyWithin(vb + t * D, row + 2 * D, row + 3 * D);
          const n = t + 1;
          if (this.ops && hd % 4 === 0) {
            // the same as below, every head in one wasm call (scores, softmax, P·V)
            const t0 = profile ? performance.now() : 0;
            const a = (kv.att.off + r * D) * 4;
            // (the call writes the new key into the cache first)
            this.ops.attn_decode(
              row * 4,
              (row + D) * 4,
              kb * 4,
              ks,
              vb * 4,
              n,
              H,
              hd,
              D,
              a,
              sc * 4,
              scale,
            );
            if (profile) this.chargeGemm(t0);
            continue;
          }
          for (let d = 0; d < D; d++) h[kb + d * ks + t] = h[row + D + d]!;
          for (let head = 0; head < H; head++) {
            // s = q·Kᵀ over the n visible keys, softmax, a = P·V (as the forward's row t)
            this.mm(1, n, hd, row + head * hd, 3 * D, 1, kb + head * hd * ks, ks, 1, sc, n, false);
            softmaxScaledPrefix(h, sc, n, scale);
            this.mm(
              1,
              hd,
              n,
              sc,
              n,
              1,
              vb + head * hd,
              D,
              1,
              kv.att.off + r * D + head * hd,
              D,
              false,
            );
          }
        }
        gemmPhase = "gemm";
        lap("attention");
        this.linear(kv.att.off, P.wo, P.bo, kv.xMid.off, R, D, D);
        this.addInto(kv.xMid.off, x, R * D);
        this.layerNorm(kv.xMid.off, P.ln2g, P.ln2b, kv.ln.off, kv.mean, kv.rstd, R);
        this.linear(kv.ln.off, P.w1, P.b1, kv.u.off, R, D, F);
        lap("bias/residual");
        if (this.ops) this.ops.gelu(kv.u.off * 4, kv.g.off * 4, 0, R * F);
        else geluForward(h, kv.u.off, kv.g.off, R * F);
        lap("gelu");
        this.linear(kv.g.off, P.w2, P.b2, x, R, F, D);
        this.addInto(x, kv.xMid.off, R * D);
        lap("bias/residual");
      }
      this.layerNorm(x, this.lnfg, this.lnfb, kv.ln.off, kv.mean, kv.rstd, R);
      if (this.ops && R <= GEMV_ROWS) {
        const t0 = profile ? performance.now() : 0;
        this.ops.gemv_nt(R, V, D, kv.ln.off * 4, D, this.wte.off * 4, D, kv.logits.off * 4, V);
        if (profile) this.chargeGemm(t0);
      } else this.mm(R, V, D, kv.ln.off, D, 1, this.wte.off, 1, D, kv.logits.off, V, false);
      lap("head");
    } finally {
      this.ws = savedWs;
    }
    for (let r = 0; r < R; r++) kv.lengths[seqOf(r)] = pos[r]! + 1;
    return h.subarray(kv.logits.off, kv.logits.off + R * V);
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
    const { dModel: D, nHeads: H, vocabSize: V, mlpRatio } = this.config;
    const F = D * mlpRatio;
    const N = B * T;
    const hd = D / H;
    const h = this.heap;
    const gOff = this.gradBase.off - this.paramBase.off;
    lapReset();

    // logits (dz overwrites the probabilities the forward left in dbig): with p = softmax(z) of row i (which predicts token y = tokens[i+1]),
    //   ∂log p_y/∂z_j = 1[j = y] − p_j,   ∂H/∂z_j = −p_j·(log p_j + H)
    //   dz_j = gℓ·(1[j=y] − p_j) − gH·p_j·(log p_j + H)
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
      if (this.ops && this.opsVocab) {
        // dz_j = p_j·(a + c·z_j), a = −gℓ − gH·(H − log Z), c = −gH
        this.ops.scale_affine(d * 4, r * 4, V, -gl - gH * (Hi - lz), -gH);
        h[d + y] = h[d + y]! + gl;
        continue;
      }
      for (let j = 0; j < V; j++) {
        const p = h[d + j]!; // softmax, kept by the forward in this buffer
        h[d + j] = -gl * p - gH * p * (h[r + j]! - lz + Hi);
      }
      h[d + y] = h[d + y]! + gl;
    }
    lap("softmax/vocab");
    // z = LN_f·wteᵀ:  d(wte) += dzᵀ·LN_f,  dLN_f = dz·wte
    this.mm(V, D, N, dz, 1, V, this.lnf.off, D, 1, this.wte.off + gOff, D, true);
    this.mm(N, D, V, dz, V, 1, this.wte.off, D, 1, this.dh.off, D, false);
    h.fill(0, this.dx.off, this.dx.off + N * D);
    lap("head");
    this.layerNormBackward(
      this.xFinal.off,
      this.lnfg,
      this.lnfb,
      this.lnfMean,
      this.lnfRstd,
      this.dh.off,
      this.dx.off,
      N,
    );

    const scale = 1 / Math.sqrt(hd);
    for (let l = this.layers.length - 1; l >= 0; l--) {
      const P = this.layers[l]!;
      const A = this.acts[l]!;
      const dx = this.dx.off; // ∂L/∂x_next on entry; the residual passes it through unchanged
      // MLP: y = g·W2 + b2  →  dg = dy·W2ᵀ (into dbig), dW2 += gᵀ·dy
      const dg = this.dbig.off;
      this.linearBackward(A.g.off, P.w2, P.b2, dx, dg, N, F, D, false);
      // g = GELU(u)  →  du = dg·GELU'(u)
      if (this.ops) this.ops.vmul(dg * 4, A.gd.off * 4, N * F);
      else geluBackward(h, A.u.off, dg, N * F);
      lap("gelu");
      // u = LN₂·W1 + b1  →  dLN₂ = du·W1ᵀ
      this.linearBackward(A.ln2.off, P.w1, P.b1, dg, this.dh.off, N, D, F, false);
      // x_mid feeds both the residual and LN₂: dx_mid = dx + LN₂ᵀ(dLN₂)  (accumulated into dx)
      this.layerNormBackward(A.xMid.off, P.ln2g, P.ln2b, A.ln2Mean, A.ln2Rstd, this.dh.off, dx, N);

      // attention output: x_mid = x + att·Wo + bo  →  datt = dx_mid·Woᵀ (into dh)
      this.linearBackward(A.att.off, P.wo, P.bo, dx, this.dh.off, N, D, D, false);
      const dq = this.dqkv.off;
      gemmPhase = "gemm (attention)";
      if (this.ops && hd % 4 === 0) this.attentionBackward(A, B, T);
      else
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
            this.mm(T, T, hd, da, D, 1, v, 1, 3 * D, dS, T, false);
            this.mm(T, hd, T, p, 1, T, da, D, 1, dq + base + 2 * D, 3 * D, false);
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
            this.mm(T, hd, T, dS, T, 1, k, 3 * D, 1, dq + base, 3 * D, false);
            this.mm(T, hd, T, dS, 1, T, q, 3 * D, 1, dq + base + D, 3 * D, false);
          }
      gemmPhase = "gemm";
      lap("attention");
      if (this.config.positional === "rope") this.rope(dq, B, T, -1);
      // qkv = LN₁·Wqkv + bqkv  →  dLN₁ = dqkv·Wqkvᵀ
      this.linearBackward(A.ln1.off, P.wqkv, P.bqkv, dq, this.dh.off, N, D, 3 * D, false);
      // x feeds the residual and LN₁: dx = dx_mid + LN₁ᵀ(dLN₁)
      this.layerNormBackward(A.x.off, P.ln1g, P.ln1b, A.ln1Mean, A.ln1Rstd, this.dh.off, dx, N);
    }

    // x⁰ = wte[tok] + wpe[pos]:  d(wte)[tok] += dx,  d(wpe)[pos] += dx
    const dx = this.dx.off;
    for (let i = 0; i < N; i++) {
      const dw = this.wte.off + gOff + this.tokens[i]! * D;
      for (let j = 0; j < D; j++) h[dw + j] = h[dw + j]! + h[dx + i * D + j]!;
      if (this.wpe) {
        const dp = this.wpe.off + gOff + (i % T) * D;
        for (let j = 0; j < D; j++) h[dp + j] = h[dp + j]! + h[dx + i * D + j]!;
      }
    }
    lap("embedding");
  }
}

// ── the loss glue: datums → log π_θ → reference loss formulas → ∂L/∂log π_θ → backward ─────────

/** What lossAndGrad reads of a row: a Datum's per-token fields plus optional policy logprobs. */
export interface LossDatum {
  tokens: readonly number[];
  lossMask: readonly number[];
  advantages: readonly number[];
  samplingLogprobs: readonly number[];
  /** log π_old (the trainer's recomputation of the sampling policy); defaults to samplingLogprobs. */
  proximalLogprobs?: readonly number[] | undefined;
  /** log π_ref, needed when the loss has a KL term. */
  refLogprobs?: readonly number[] | undefined;
}

export interface LossAndGradResult {
  loss: number;
  metrics: Record<string, number>;
  /** log π_θ per row and token (position 0: 0), as computed for this step. */
  logprobs: number[][];
}

/**
 * One forward + backward over `datums`: computes log π_θ, the loss of algorithms/loss.ts
 * ({@link tokenLoss}, token by token, then the aggregation), and accumulates ∂L/∂θ into the model's
 * gradient buffer (call model.zeroGrad() between optimizer steps).
 *
 * Rows are padded to the longest with lossMask 0. Position 0 of a row never takes part (nothing
 * predicts it), whatever its mask says. `denominators` replaces the batch's own token count and
 * row count in the aggregation, for a batch split over several calls.
 *
 *   token-mean: sᵢ = 1/Σm,  seq-mean-token-sum: sᵢ = 1/N,  seq-mean-token-mean: sᵢ = 1/(N·Σ_t mᵢ)
 *   L = Σᵢ Σ_t sᵢ·m·ℓ_t,   ∂L/∂log π_θ(t) = sᵢ·m·∂ℓ_t/∂log π_θ,   ∂L/∂H_t = −sᵢ·m·c_H
 */
export function lossAndGrad(
  model: Gpt,
  datums: readonly LossDatum[],
  specInput: LossSpecInput,
  denominators?: { tokens: number; rows: number },
): LossAndGradResult {
  const spec = LossSpecSchema.parse(specInput);
  const B = datums.length;
  if (B === 0) return { loss: 0, metrics: { "loss/tokens": 0 }, logprobs: [] };
  datums.forEach((d, i) => {
    for (const key of [
      "lossMask",
      "advantages",
      "samplingLogprobs",
      "proximalLogprobs",
      "refLogprobs",
    ] as const) {
      const v = d[key];
      if (v !== undefined && v.length !== d.tokens.length)
        throw new RangeError(
          `datum ${i}: ${key} has ${v.length} entries but tokens has ${d.tokens.length}; they must align`,
        );
    }
  });
  const T = Math.max(...datums.map((d) => d.tokens.length));
  const tokens = new Int32Array(B * T);
  const mask = new Float64Array(B * T);
  datums.forEach((d, i) => {
    for (let t = 0; t < d.tokens.length; t++) {
      tokens[i * T + t] = d.tokens[t]!;
      mask[i * T + t] = t === 0 ? 0 : d.lossMask[t]!;
    }
  });
  const { logprobs, entropy } = model.forward(tokens, B, T, { needCache: true });

  // per-row mask sums and the aggregation's denominators
  const rowMask = new Float64Array(B);
  for (let i = 0; i < B; i++)
    for (let t = 0; t < T; t++) rowMask[i] = rowMask[i]! + mask[i * T + t]!;
  const maskSum = rowMask.reduce((a, b) => a + b, 0);
  const rowsWithTokens = rowMask.filter((m) => m > 0).length;
  const nTokens = denominators?.tokens ?? maskSum;
  const nRows = denominators?.rows ?? rowsWithTokens;
  const scaleOf = (i: number): number =>
    aggregationScale(spec.aggregation, rowMask[i]!, { tokens: nTokens, rows: nRows });

  const dLogprob = new Float64Array(B * T);
  const dEntropy = spec.entropyCoef > 0 ? new Float64Array(B * T) : undefined;
  let loss = 0;
  let ratioSum = 0;
  let klSum = 0;
  let entropySum = 0;
  let clipped = 0;
  let capped = 0;
  let maxAbsDiff = 0;
  const out: number[][] = [];
  for (let i = 0; i < B; i++) {
    const d = datums[i]!;
    const s = scaleOf(i);
    out.push(Array.from(logprobs.subarray(i * T, i * T + d.tokens.length)));
    for (let t = 1; t < d.tokens.length; t++) {
      const k = i * T + t;
      const m = mask[k]!;
      if (m === 0) continue;
      const tl = tokenLoss(spec, {
        logprob: logprobs[k]!,
        samplingLogprob: d.samplingLogprobs[t]!,
        proximalLogprob: d.proximalLogprobs?.[t],
        refLogprob: d.refLogprobs?.[t],
        advantage: d.advantages[t]!,
        entropy: entropy[k]!,
      });
      loss += s * m * tl.value;
      dLogprob[k] = s * m * tl.grad;
      if (dEntropy) dEntropy[k] = -s * m * spec.entropyCoef;
      ratioSum += tl.ratio;
      klSum += tl.kl;
      entropySum += entropy[k]!;
      if (tl.clipped) clipped++;
      if (
        spec.kind !== "cross_entropy" &&
        spec.tisCap !== undefined &&
        tl.tisWeight === spec.tisCap
      )
        capped++;
      maxAbsDiff = Math.max(maxAbsDiff, Math.abs(logprobs[k]! - d.samplingLogprobs[t]!));
    }
  }
  model.backward(dLogprob, dEntropy);
  const n = Math.max(maskSum, 1);
  return {
    loss,
    logprobs: out,
    metrics: {
      "loss/value": loss,
      "loss/tokens": maskSum,
      "loss/ratio_mean": maskSum ? ratioSum / n : 0,
      "loss/clip_fraction": maskSum ? clipped / n : 0,
      "loss/tis_capped_fraction": maskSum ? capped / n : 0,
      "loss/kl_mean": maskSum ? klSum / n : 0,
      "loss/entropy_mean": maskSum ? entropySum / n : 0,
      "logprob_diff/max_abs": maxAbsDiff,
    },
  };
}
