/**
 * The local model's memory: one WebAssembly.Memory holds every parameter, gradient, KV cache and
 * activation, addressed by float offsets ({@link Slice}), so that the wasm kernels read and write
 * them in place. A bump allocator lays it out in regions, low to high:
 *
 *   parameters | gradients | KV cache (decode.ts) | activations of the last forward
 *
 * The activations are re-laid from their base whenever the batch shape changes; a KV cache larger
 * than any before moves that base up. Growing the memory detaches earlier views, so {@link f32}
 * must be read again after an allocation.
 *
 * Matrix products go through {@link ModelHeap.mm}: the wasm SIMD GEMM (kernels/gemm-wasm.ts)
 * where WebAssembly SIMD is available, else the plain-JS one (kernels/gemm-js.ts).
 */
import { gemmJs } from "./kernels/gemm-js.js";
import { type GemmExports, instantiateGemm } from "./kernels/gemm-wasm.js";
import { instantiateOps, type OpsExports } from "./kernels/ops-wasm.js";

/** The architecture whose parameters the heap holds (see model.ts for what each knob shapes). */
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

/** One block's parameters, as heap slices. */
export interface LayerParams {
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

/** Every parameter tensor of the model, as heap slices. */
export interface GptWeights {
  wte: Slice;
  /** Learned positions (positional "learned" only). */
  wpe: Slice | undefined;
  layers: LayerParams[];
  lnfg: Slice;
  lnfb: Slice;
}

import type { PhaseTimer } from "./profile.js";

/** A slice of the heap: `size` floats from float offset `off`. */
export interface Slice {
  off: number;
  size: number;
}

/** An empty slice (a buffer not allocated yet, or not needed by this configuration). */
export const NO_SLICE: Slice = { off: 0, size: 0 };

/** Up to this many rows, linear layers and the head use the wasm GEMV (decode steps). */
export const GEMV_ROWS = 4;

const PAGE = 65536;

/** 16-byte alignment of a float offset. */
const align4 = (off: number): number => (off + 3) & ~3;

export class ModelHeap {
  readonly memory = new WebAssembly.Memory({ initial: 1, maximum: 65536 });
  /** The whole memory as floats; replaced when the memory grows. */
  f32 = new Float32Array(this.memory.buffer);
  /** The wasm GEMM (undefined: no WebAssembly SIMD here, or kernel "js"). */
  readonly gemm: GemmExports | undefined;
  /** The wasm elementwise and row-wise ops (undefined: not requested, or no SIMD). */
  readonly ops: OpsExports | undefined;
  /** Byte offset of the GEMM workspace the next {@link mm} uses. */
  ws = 0;
  private top = 0; // bump allocator, in floats
  /** Where the KV region starts (fixed once the parameters and gradients are laid out). */
  private kvBase = 0;
  /** Where the activations start; moves up when the KV region grows. */
  private activationBase = 0;

  /**
   * @param kernel "wasm" tries the wasm GEMM (and the wasm ops with `wantOps`), "js" uses neither.
   * @param timer charged with the time of each GEMM.
   */
  constructor(
    kernel: "wasm" | "js",
    wantOps: boolean,
    readonly timer: PhaseTimer,
  ) {
    if (kernel === "js") return;
    try {
      this.gemm = instantiateGemm(this.memory).exports;
      if (wantOps) this.ops = instantiateOps(this.memory);
    } catch {
      this.gemm = undefined; // no WebAssembly SIMD here: gemm-js does the matmuls
    }
  }

  /** `size` floats at the top of the heap, 16-byte aligned. */
  alloc(size: number): Slice {
    const off = align4(this.top);
    this.top = off + size;
    this.ensureBytes(this.top * 4);
    return { off, size };
  }

  private ensureBytes(bytes: number): void {
    const have = this.memory.buffer.byteLength;
    if (bytes > have) {
      this.memory.grow(Math.ceil((bytes - have) / PAGE));
      this.f32 = new Float32Array(this.memory.buffer); // grow detaches the old buffer
    }
  }

  view(s: Slice): Float32Array {
    return this.f32.subarray(s.off, s.off + s.size);
  }

  /** Ends the fixed region (parameters, gradients): the KV and activation regions start here. */
  endFixed(): void {
    this.kvBase = this.top;
    this.activationBase = this.top;
  }

  /** Frees the activations: the next allocations lay them out again from their base. */
  startActivations(): void {
    this.top = this.activationBase;
  }

  /**
   * Lays out the KV region with `build` (whose allocations start at the region's base). Returns
   * what it built and whether the region outgrew its room and moved the activations up (then
   * every activation slice is stale).
   */
  allocKv<T>(build: () => T): { value: T; movedActivations: boolean } {
    const savedTop = this.top;
    this.top = this.kvBase;
    const value = build();
    const end = align4(this.top);
    if (end > this.activationBase) {
      this.activationBase = end;
      this.top = end;
      return { value, movedActivations: true };
    }
    this.top = savedTop;
    return { value, movedActivations: false };
  }

  /** heap[dst..+n) += heap[src..+n). */
  addInto(dst: number, src: number, n: number): void {
    if (this.ops) {
      this.ops.vadd(dst * 4, src * 4, dst * 4, n);
      return;
    }
    const h = this.f32;
    for (let i = 0; i < n; i++) h[dst + i] = h[dst + i]! + h[src + i]!;
  }

  /**
   * C[M×N] (+)= A·B with strided operands (float offsets into the heap):
   * A(i,k) = heap[a + i·sai + k·sak], B(k,j) = heap[b + k·sbk + j·sbj], C(i,j) = heap[c + i·ldc + j].
   */
  mm(
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
    const t0 = this.timer.gemmStart();
    if (this.gemm) {
      this.gemm.gemm(
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
      const h = this.f32;
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
    this.timer.gemmDone(t0);
  }
}
