/**
 * Incremental decoding of the local GPT with a KV cache: {@link KvDecoder.prefill} runs the
 * prompts through the model's forward and keeps every layer's keys and values; each
 * {@link KvDecoder.step} then runs one new token per sequence through the blocks, attending to the
 * cached positions, and returns the logits of the next token.
 *
 * Sequences are NOT padded: each keeps its own length, and its positions start at 0 at its first
 * token, exactly as when the training forward scores that sequence alone (or right-padded in a
 * batch, where causality makes the padding invisible). Every step goes through the same
 * operations as the forward — the same GEMM (whose entries are plain sequential dot products,
 * so a row's result does not depend on how many rows share the call) or, for a few rows, the
 * GEMV and dot-product kernels that form each sum in that same order; the same LayerNorm, GELU,
 * attention softmax (attn_decode repeats attn_softmax step by step) and RoPE — so a sampled
 * token's logprob is bit-identical to the trainer's recomputation.
 *
 * The cache lives in its own heap region below the forward's activations (heap.ts), so forward()
 * and backward() may run between decode steps (scoring, or a test comparing the two). One cache
 * per model: prefill() replaces the previous one. Creating a cache larger than any before moves
 * the activations up, which discards a forward's saved activations (backward then asks for a new
 * forward): do not prefill between a forward(…, {needCache: true}) and its backward.
 */
import { ropeRow, ropeTable, softmaxScaledPrefix } from "./functional.js";
import { GEMV_ROWS, type GptConfig, type GptWeights, type ModelHeap, type Slice } from "./heap.js";
import { gemmWorkspaceBytes } from "./kernels/gemm-wasm.js";
import type { PhaseTimer } from "./profile.js";

/** What the decoder uses of its model (the Gpt hands it these at construction). */
interface DecodeHost {
  readonly config: GptConfig;
  readonly mem: ModelHeap;
  readonly weights: GptWeights;
  readonly timer: PhaseTimer;
  /** The model's forward over [B×T] tokens; where each layer's qkv rows and the logits are. */
  forward(tokens: Int32Array, B: number, T: number): { qkv: readonly number[]; logits: number };
  /** The KV region grew into the activations: the forward must lay them out again. */
  activationsMoved(): void;
  /** The model's LayerNorm over N rows (y, mean, rstd written). */
  layerNorm(
    x: number,
    gain: Slice,
    bias: Slice,
    y: number,
    mean: Slice,
    rstd: Slice,
    N: number,
  ): void;
  /** The model's Y[N×out] = X[N×in]·W + bias. */
  linear(x: number, w: Slice, bias: Slice, y: number, N: number, nIn: number, nOut: number): void;
  /** g = GELU(u) over n floats. */
  gelu(u: number, g: number, n: number): void;
}

/**
 * The KV cache: per layer, the keys (after RoPE) and values of every cached position of each of
 * B sequences, plus the scratch of one decode step for up to B rows. Values are [B × capacity × D]
 * (heads side by side in D, as in the forward's qkv rows); keys are stored transposed,
 * [B × D × kStride] (dim d of position t at d·kStride + t), so a decode step's scores read 4
 * consecutive keys as one vector.
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

export class KvDecoder {
  private kv: KvState | undefined;

  constructor(private readonly host: DecodeHost) {}

  /** Tokens cached per sequence of the current KV cache (a copy; empty without one). */
  lengths(): Int32Array {
    return this.kv ? this.kv.lengths.slice() : new Int32Array(0);
  }

  /** Allocates (or reuses) the KV region for B sequences of up to `capacity` positions. */
  private reserve(B: number, capacity: number): KvState {
    const { config, mem } = this.host;
    const { dModel: D, vocabSize: V, mlpRatio, nHeads: H } = config;
    const F = D * mlpRatio;
    const { value: kv, movedActivations } = mem.allocKv((): KvState => {
      const k: Slice[] = [];
      const v: Slice[] = [];
      const kStride = (capacity + 3) & ~3;
      for (let l = 0; l < config.nLayers; l++) {
        k.push(mem.alloc(B * D * kStride));
        v.push(mem.alloc(B * capacity * D));
      }
      const kv: KvState = {
        B,
        capacity,
        kStride,
        lengths: new Int32Array(B),
        k,
        v,
        x: mem.alloc(B * D),
        ln: mem.alloc(B * D),
        mean: mem.alloc(B),
        rstd: mem.alloc(B),
        qkv: mem.alloc(B * 3 * D),
        att: mem.alloc(B * D),
        xMid: mem.alloc(B * D),
        u: mem.alloc(B * F),
        g: mem.alloc(B * F),
        scores: mem.alloc(capacity + 4), // + 4: attn_decode pads to whole vectors
        logits: mem.alloc(B * V),
        ws:
          mem.alloc(Math.ceil(gemmWorkspaceBytes(Math.max(capacity, V, F, D, B)) / 4) + 16).off * 4,
        ropeCos: new Float32Array(0),
        ropeSin: new Float32Array(0),
        ropeHeap: undefined,
      };
      if (config.positional === "rope") {
        const t = ropeTable(D / H, capacity);
        kv.ropeCos = t.cos;
        kv.ropeSin = t.sin;
        if (mem.ops && (D / H / 2) % 4 === 0) {
          kv.ropeHeap = { cos: mem.alloc(t.cos.length), sin: mem.alloc(t.sin.length) };
          mem.f32.set(t.cos, kv.ropeHeap.cos.off);
          mem.f32.set(t.sin, kv.ropeHeap.sin.off);
        }
      }
      return kv;
    });
    if (movedActivations) this.host.activationsMoved();
    this.kv = kv;
    return kv;
  }

  /**
   * Starts incremental decoding of `prompts` (B sequences of different lengths, each ≥ 1 token):
   * runs them through the forward (right-padded to the longest; causality keeps the padding
   * out of every real position), keeps each layer's keys and values in a fresh KV cache of
   * `capacity` positions per sequence (default maxSeqLen) and returns the logits that predict
   * each sequence's next token, [B×V] (a view, valid until the next prefill, step or forward).
   */
  prefill(prompts: readonly (readonly number[])[], capacity?: number): Float32Array {
    const { config, mem } = this.host;
    const { dModel: D, vocabSize: V, maxSeqLen } = config;
    const B = prompts.length;
    if (B === 0) throw new RangeError("prefill needs at least one prompt");
    const T = Math.max(...prompts.map((p) => p.length));
    const cap = capacity ?? maxSeqLen;
    if (prompts.some((p) => p.length === 0)) throw new RangeError("every prompt needs ≥ 1 token");
    if (cap > maxSeqLen) throw new RangeError(`capacity ${cap} exceeds maxSeqLen ${maxSeqLen}`);
    if (T > cap) throw new RangeError(`a prompt of ${T} tokens exceeds the capacity ${cap}`);
    const kv = this.reserve(B, cap);
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
    let fwd: { qkv: readonly number[]; logits: number };
    try {
      fwd = this.host.forward(tokens, U, T);
    } catch (e) {
      this.kv = undefined; // e.g. a token outside the vocabulary: no half-made cache
      throw e;
    }
    const h = mem.f32; // after the forward: it may have grown the memory
    const ks = kv.kStride;
    for (let l = 0; l < config.nLayers; l++) {
      const qkv = fwd.qkv[l]!;
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
      const src = fwd.logits + (row[b]! * T + n - 1) * V;
      h.copyWithin(kv.logits.off + b * V, src, src + V);
      kv.lengths[b] = n;
    }
    return h.subarray(kv.logits.off, kv.logits.off + B * V);
  }

  /**
   * One decode step: appends `tokens[r]` to sequence `rows[r]` (default: every sequence, r = b)
   * at position lengths()[rows[r]] and returns the logits predicting the token after it, [R×V]
   * with R = tokens.length (a view, valid until the next prefill, step or forward). Sequences
   * left out of `rows` (finished ones) cost nothing and keep their cache.
   */
  step(tokens: Int32Array, rows?: Int32Array): Float32Array {
    const kv = this.kv;
    if (!kv) throw new Error("decodeStep needs a prefill() first");
    const { config, mem, timer } = this.host;
    const { wte, wpe, layers, lnfg, lnfb } = this.host.weights;
    const { dModel: D, vocabSize: V, mlpRatio } = config;
    const F = D * mlpRatio;
    const R = tokens.length;
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
      if (pos[r]! >= kv.capacity)
        throw new RangeError(`sequence ${b} is full (capacity ${kv.capacity})`);
      const tok = tokens[r]!;
      if (tok < 0 || tok >= V)
        throw new RangeError(`token ${tok} outside the vocabulary [0, ${V})`);
    }
    const h = mem.f32;
    const savedWs = mem.ws;
    mem.ws = kv.ws; // the forward's workspace is sized for its own shapes
    try {
      timer.start();
      // x⁰ = wte[tok] + wpe[pos]
      const x = kv.x.off;
      for (let r = 0; r < R; r++) {
        const tok = tokens[r]!;
        h.copyWithin(x + r * D, wte.off + tok * D, wte.off + (tok + 1) * D);
        if (wpe) {
          const p = wpe.off + pos[r]! * D;
          for (let j = 0; j < D; j++) h[x + r * D + j] = h[x + r * D + j]! + h[p + j]!;
        }
      }
      timer.lap("embedding");
      for (let l = 0; l < layers.length; l++) {
        const P = layers[l]!;
        this.host.layerNorm(x, P.ln1g, P.ln1b, kv.ln.off, kv.mean, kv.rstd, R);
        this.host.linear(kv.ln.off, P.wqkv, P.bqkv, kv.qkv.off, R, D, 3 * D);
        timer.gemmPhase = "gemm (attention)";
        for (let r = 0; r < R; r++) this.attendRow(kv, l, r, seqOf(r), pos[r]!);
        timer.gemmPhase = "gemm";
        timer.lap("attention");
        // x_mid = x + a·Wo + bo;  x_next = x_mid + GELU(LN₂(x_mid)·W1 + b1)·W2 + b2
        this.host.linear(kv.att.off, P.wo, P.bo, kv.xMid.off, R, D, D);
        mem.addInto(kv.xMid.off, x, R * D);
        this.host.layerNorm(kv.xMid.off, P.ln2g, P.ln2b, kv.ln.off, kv.mean, kv.rstd, R);
        this.host.linear(kv.ln.off, P.w1, P.b1, kv.u.off, R, D, F);
        timer.lap("bias/residual");
        this.host.gelu(kv.u.off, kv.g.off, R * F);
        this.host.linear(kv.g.off, P.w2, P.b2, x, R, F, D);
        mem.addInto(x, kv.xMid.off, R * D);
        timer.lap("bias/residual");
      }
      // z = LN_f(x)·wteᵀ
      this.host.layerNorm(x, lnfg, lnfb, kv.ln.off, kv.mean, kv.rstd, R);
      if (mem.ops && R <= GEMV_ROWS) {
        const t0 = timer.gemmStart();
        mem.ops.gemv_nt(R, V, D, kv.ln.off * 4, D, wte.off * 4, D, kv.logits.off * 4, V);
        timer.gemmDone(t0);
      } else mem.mm(R, V, D, kv.ln.off, D, 1, wte.off, 1, D, kv.logits.off, V, false);
      timer.lap("head");
    } finally {
      mem.ws = savedWs;
    }
    for (let r = 0; r < R; r++) kv.lengths[seqOf(r)] = pos[r]! + 1;
    return h.subarray(kv.logits.off, kv.logits.off + R * V);
  }

  /**
   * Attention of step row r (sequence b, position t) in layer l: RoPE on its q and k, its key and
   * value into the cache, then per head a = softmax(q·Kᵀ/√d_head)·V over the t + 1 cached
   * positions (as the forward's row t), into row r of att.
   */
  private attendRow(kv: KvState, l: number, r: number, b: number, t: number): void {
    const { config, mem } = this.host;
    const { dModel: D, nHeads: H } = config;
    const hd = D / H;
    const half = hd / 2;
    const scale = 1 / Math.sqrt(hd);
    const h = mem.f32;
    const ops = mem.ops;
    const sc = kv.scores.off;
    const cap = kv.capacity;
    const row = kv.qkv.off + r * 3 * D;
    if (kv.ropeHeap) {
      // as the forward's rope(…, 1) does, with the same kernel: one row, its tables at position t
      const { cos, sin } = kv.ropeHeap;
      const tc = t * half * 4;
      ops!.rope(row * 4, cos.off * 4 + tc, sin.off * 4 + tc, 1, 1, 3 * D, 2 * H, half, 1);
    } else if (config.positional === "rope")
      ropeRow(h, row, 2 * H, hd, kv.ropeCos, kv.ropeSin, t, 1);
    const ks = kv.kStride;
    const kb = kv.k[l]!.off + b * D * ks; // transposed: dim d of position t at d·ks + t
    const vb = kv.v[l]!.off + b * cap * D;
    h.copyWithin(vb + t * D, row + 2 * D, row + 3 * D);
    const n = t + 1;
    if (ops && hd % 4 === 0) {
      // the same as below, every head in one wasm call (scores, softmax, P·V); the call writes
      // the new key into the cache first
      const t0 = this.host.timer.gemmStart();
      const a = (kv.att.off + r * D) * 4;
      ops.attn_decode(row * 4, (row + D) * 4, kb * 4, ks, vb * 4, n, H, hd, D, a, sc * 4, scale);
      this.host.timer.gemmDone(t0);
      return;
    }
    for (let d = 0; d < D; d++) h[kb + d * ks + t] = h[row + D + d]!;
    for (let head = 0; head < H; head++) {
      // s = q·Kᵀ over the n visible keys, softmax, a = P·V (as the forward's row t)
      mem.mm(1, n, hd, row + head * hd, 3 * D, 1, kb + head * hd * ks, ks, 1, sc, n, false);
      softmaxScaledPrefix(h, sc, n, scale);
      const a = kv.att.off + r * D + head * hd;
      mem.mm(1, hd, n, sc, n, 1, vb + head * hd, D, 1, a, D, false);
    }
  }
}
