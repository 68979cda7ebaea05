/**
 * Splits one GEMM across worker threads that share the wasm memory.
 *
 * The calling thread is one of the workers: with `threads = 2` it posts half of the product to
 * one helper and computes the other half itself, then waits. Each helper instantiates the same
 * compiled module on the same `WebAssembly.Memory({shared: true})`, so no data is copied; only
 * 17 integers of arguments go through a SharedArrayBuffer control block, and the handshake is
 * Atomics.store/notify plus a short spin before Atomics.wait on both sides (a futex wake-up costs
 * tens of microseconds; a spinning helper sees the request in well under one).
 *
 * Work is split along the larger of M and N (rows of C in multiples of MR, or columns in
 * multiples of NR), or across the batch for batched products.
 *
 * Spike measurements (2 vCPUs): handshake ~1–2 µs median when both cores are free; splitting each
 * model matmul gives ~1.6× one thread, two whole products side by side (`gemmBatched` with one
 * product per thread = data-parallel micro-batches) ~1.95×. Both collapse towards 1× when another
 * process holds a core (the caller then waits on a descheduled helper, p90 ~0.3 ms), so the
 * training step should split coarsely (per micro-batch), not per op.
 *
 * The helper's code is a self-contained string evaluated in the worker (`eval: true`), so it runs
 * the same from src/ under tsx and from the compiled dist/ without resolving a file.
 */
import { Worker } from "node:worker_threads";
import {
  buildGemmModule,
  DEFAULT_SHAPE,
  type GemmExports,
  type GemmKernelShape,
  gemmWorkspaceBytes,
} from "./gemm-wasm.js";

/** Control block layout (Int32 slots per helper). */
const SLOT = 32;
const SEQ = 0; // request counter, bumped by the caller
const DONE = 1; // completion counter, bumped by the helper
const OP = 2; // 1 = gemm, 2 = gemm_batched, -1 = exit
const ARGS = 3; // up to 17 i32 arguments

const OP_GEMM = 1;
const OP_BATCHED = 2;
const OP_EXIT = -1;

const HELPER_SOURCE = `
const { workerData } = require("node:worker_threads");
const { module, memory, ctrl, slot, spin } = workerData;
const c = new Int32Array(ctrl);
const inst = new WebAssembly.Instance(module, { env: { memory } });
const { gemm, gemm_batched } = inst.exports;
const base = slot * ${SLOT};
let seen = 0;
for (;;) {
  let s = Atomics.load(c, base + ${SEQ});
  for (let i = 0; s === seen && i < spin; i++) s = Atomics.load(c, base + ${SEQ});
  if (s === seen) { Atomics.wait(c, base + ${SEQ}, seen); continue; }
  seen = s;
  const op = c[base + ${OP}];
  if (op === ${OP_EXIT}) break;
  const a = base + ${ARGS};
  if (op === ${OP_GEMM}) {
    gemm(c[a], c[a + 1], c[a + 2], c[a + 3], c[a + 4], c[a + 5], c[a + 6], c[a + 7], c[a + 8],
      c[a + 9], c[a + 10], c[a + 11], c[a + 12]);
  } else {
    gemm_batched(c[a], c[a + 1], c[a + 2], c[a + 3], c[a + 4], c[a + 5], c[a + 6], c[a + 7],
      c[a + 8], c[a + 9], c[a + 10], c[a + 11], c[a + 12], c[a + 13], c[a + 14], c[a + 15],
      c[a + 16]);
  }
  Atomics.store(c, base + ${DONE}, seen);
  Atomics.notify(c, base + ${DONE});
}
`;

export interface GemmCall {
  M: number;
  N: number;
  K: number;
  /** Byte offsets into the shared memory. */
  A: number;
  B: number;
  C: number;
  /** Element strides: A(i,k) = A[i*sai + k*sak], B(k,j) = B[k*sbk + j*sbj], C row stride ldc. */
  sai: number;
  sak: number;
  sbk: number;
  sbj: number;
  ldc: number;
  accumulate?: boolean;
}

export interface BatchedGemmCall extends GemmCall {
  count: number;
  /** Element strides between consecutive products. */
  strideA: number;
  strideB: number;
  strideC: number;
}

export interface GemmPoolOptions {
  threads: number;
  memory: WebAssembly.Memory;
  /** Byte offset of `threads` workspaces of `workspaceBytes` each. */
  workspace: number;
  /** Per-thread workspace size; must cover {@link gemmWorkspaceBytes} for the largest K. */
  workspaceBytes: number;
  shape?: GemmKernelShape;
  /** Spin iterations (Atomics.load) before sleeping in Atomics.wait, both sides. */
  spin?: number;
  /** Products smaller than this many multiply-adds run on the calling thread alone. */
  minParallelMacs?: number;
}

export class GemmPool {
  readonly threads: number;
  private readonly ctrl: Int32Array;
  private readonly workers: Worker[] = [];
  private readonly local: GemmExports;
  private readonly shape: GemmKernelShape;
  private readonly spin: number;
  private readonly minMacs: number;
  private readonly opts: GemmPoolOptions;
  private closed = false;
  private readonly online: Promise<void>[] = [];

  private constructor(opts: GemmPoolOptions, module: WebAssembly.Module) {
    this.opts = opts;
    this.threads = Math.max(1, opts.threads | 0);
    this.shape = opts.shape ?? DEFAULT_SHAPE;
    this.spin = opts.spin ?? 20000;
    this.minMacs = opts.minParallelMacs ?? 64 * 64 * 64;
    this.ctrl = new Int32Array(new SharedArrayBuffer(4 * SLOT * this.threads));
    const inst = new WebAssembly.Instance(module, { env: { memory: opts.memory } });
    this.local = inst.exports as unknown as GemmExports;
    for (let t = 1; t < this.threads; t++) {
      const w = new Worker(HELPER_SOURCE, {
        eval: true,
        workerData: {
          module,
          memory: opts.memory,
          ctrl: this.ctrl.buffer,
          slot: t,
          spin: this.spin,
        },
      });
      this.workers.push(w);
      this.online.push(
        new Promise<void>((resolve, reject) => {
          w.once("online", () => resolve());
          w.once("error", reject);
        }),
      );
    }
  }

  /** Compiles the kernel module and starts `threads - 1` helpers; resolves once they are up. */
  static async create(opts: GemmPoolOptions): Promise<GemmPool> {
    if (!(opts.memory.buffer instanceof SharedArrayBuffer) && opts.threads > 1)
      throw new Error("GemmPool with threads > 1 needs a shared WebAssembly.Memory");
    const shape = opts.shape ?? DEFAULT_SHAPE;
    const module = await WebAssembly.compile(
      buildGemmModule(shape, {
        initial: 1,
        maximum: 65536,
        shared: opts.memory.buffer instanceof SharedArrayBuffer,
      }),
    );
    const pool = new GemmPool(opts, module);
    await Promise.all(pool.online);
    // helpers must not keep the process alive (unref only now: an unref'd worker's "online"
    // event would not keep the event loop running while we await it)
    for (const w of pool.workers) w.unref();
    // round-trip a no-op through every helper so the first real call does not pay start-up
    pool.gemm({ M: 0, N: 0, K: 0, A: 0, B: 0, C: 0, sai: 0, sak: 0, sbk: 0, sbj: 0, ldc: 0 }, true);
    return pool;
  }

  private ws(t: number): number {
    return this.opts.workspace + t * this.opts.workspaceBytes;
  }

  /** C (+)= op(A)·op(B), split across the pool. `force` splits even tiny products. */
  gemm(c: GemmCall, force = false): void {
    const acc = c.accumulate ? 1 : 0;
    const T = this.threads;
    if (T === 1 || (!force && c.M * c.N * c.K < this.minMacs)) {
      this.local.gemm(
        c.M,
        c.N,
        c.K,
        c.A,
        c.sai,
        c.sak,
        c.B,
        c.sbk,
        c.sbj,
        c.C,
        c.ldc,
        acc,
        this.ws(0),
      );
      return;
    }
    const { mr, nr } = this.shape;
    const byRows = c.M / mr >= c.N / nr;
    const unit = byRows ? mr : nr;
    const extent = byRows ? c.M : c.N;
    const units = Math.ceil(extent / unit);
    const parts: [number, number][] = [];
    for (let t = 0; t < T; t++) {
      const lo = Math.min(extent, Math.round((units * t) / T) * unit);
      const hi = Math.min(extent, Math.round((units * (t + 1)) / T) * unit);
      parts.push([lo, hi - lo]);
    }
    const args = (t: number): number[] => {
      const [lo, n] = parts[t]!;
      if (byRows)
        return [
          n,
          c.N,
          c.K,
          c.A + 4 * lo * c.sai,
          c.sai,
          c.sak,
          c.B,
          c.sbk,
          c.sbj,
          c.C + 4 * lo * c.ldc,
          c.ldc,
          acc,
          this.ws(t),
        ];
      return [
        c.M,
        n,
        c.K,
        c.A,
        c.sai,
        c.sak,
        c.B + 4 * lo * c.sbj,
        c.sbk,
        c.sbj,
        c.C + 4 * lo,
        c.ldc,
        acc,
        this.ws(t),
      ];
    };
    for (let t = 1; t < T; t++) this.post(t, OP_GEMM, args(t));
    const a0 = args(0);
    this.local.gemm(
      a0[0]!,
      a0[1]!,
      a0[2]!,
      a0[3]!,
      a0[4]!,
      a0[5]!,
      a0[6]!,
      a0[7]!,
      a0[8]!,
      a0[9]!,
      a0[10]!,
      a0[11]!,
      a0[12]!,
    );
    for (let t = 1; t < T; t++) this.join(t);
  }

  /** `count` independent products, split across the pool by product. */
  gemmBatched(c: BatchedGemmCall): void {
    const acc = c.accumulate ? 1 : 0;
    const T = Math.min(this.threads, c.count);
    const run = (t: number): number[] => {
      const lo = Math.round((c.count * t) / T);
      const hi = Math.round((c.count * (t + 1)) / T);
      return [
        hi - lo,
        c.strideA,
        c.strideB,
        c.strideC,
        c.M,
        c.N,
        c.K,
        c.A + 4 * lo * c.strideA,
        c.sai,
        c.sak,
        c.B + 4 * lo * c.strideB,
        c.sbk,
        c.sbj,
        c.C + 4 * lo * c.strideC,
        c.ldc,
        acc,
        this.ws(t),
      ];
    };
    for (let t = 1; t < T; t++) this.post(t, OP_BATCHED, run(t));
    const a = run(0);
    this.local.gemm_batched(
      a[0]!,
      a[1]!,
      a[2]!,
      a[3]!,
      a[4]!,
      a[5]!,
      a[6]!,
      a[7]!,
      a[8]!,
      a[9]!,
      a[10]!,
      a[11]!,
      a[12]!,
      a[13]!,
      a[14]!,
      a[15]!,
      a[16]!,
    );
    for (let t = 1; t < T; t++) this.join(t);
  }

  private post(t: number, op: number, args: number[]): void {
    const base = t * SLOT;
    this.ctrl[base + OP] = op;
    this.ctrl.set(args, base + ARGS);
    Atomics.add(this.ctrl, base + SEQ, 1);
    Atomics.notify(this.ctrl, base + SEQ);
  }

  private join(t: number): void {
    const base = t * SLOT;
    const want = Atomics.load(this.ctrl, base + SEQ);
    let d = Atomics.load(this.ctrl, base + DONE);
    for (let i = 0; d !== want && i < this.spin; i++) d = Atomics.load(this.ctrl, base + DONE);
    while (d !== want) {
      Atomics.wait(this.ctrl, base + DONE, d);
      d = Atomics.load(this.ctrl, base + DONE);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (let t = 1; t < this.threads; t++) this.post(t, OP_EXIT, []);
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}

export { gemmWorkspaceBytes };
