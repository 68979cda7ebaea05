/**
 * Kernel spike: which compute path can train the local backend's transformer at ≥ 0.5–1× PyTorch
 * on the CPU? Measures GFLOP/s for every matmul of one training step of the B32×T32 d128 L2 H4
 * GPT (bench/kernels/shapes.json), in the layouts the step needs (A·B, Aᵀ·B, A·Bᵀ), for:
 *
 *   torch1/2/D PyTorch CPU (Debian python3-torch + OpenBLAS) with 1 thread, 2 threads (torch and
 *              OpenBLAS), and the defaults (torch 1 intra-op thread, OpenBLAS 2)   (torch_ref.py);
 *   torchA     the defaults with OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE unset (OpenBLAS autodetects)
 *   js         plain JS Float32Array kernel, 4×4 register tile      (src/.../kernels/gemm-js.ts)
 *   wasm       wasm SIMD f32x4, 5×8 tile, emitted from TypeScript    (src/.../kernels/gemm-wasm.ts)
 *   wasm2x16   the same with a 2×16 tile
 *   wasm×2     `wasm` split across 2 threads on shared memory        (src/.../kernels/gemm-pool.ts)
 *   wasm dp×2  2 threads each computing a whole product of its own (data-parallel micro-batches)
 *   clang      the same algorithm in C, clang-14 → wasm32+simd128    (bench/kernels/clang, ref only)
 *   native     C++ addon, 4-row loop, g++ -O3 -march=native           (bench/kernels/native, ref only)
 *   openblas   C++ addon calling cblas_sgemm, 1 thread                (ref only)
 *
 * Every kernel is checked against a float64 naive matmul (max abs diff). Then the matmul time of
 * one step is estimated per candidate (Σ count · 2MNK / GFLOP/s) next to torch's measured step.
 *
 *   node --import tsx bench/kernels/matmul.ts [--rounds 5] [--no-torch] [--json FILE]
 *                                             [--candidates wasm,wasm×2,...]
 *
 * The clang and native columns appear when bench/kernels/{clang,native}/build.sh have been run.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gemmJs } from "../../src/backends/local/kernels/gemm-js.js";
import { GemmPool } from "../../src/backends/local/kernels/gemm-pool.js";
import {
  type GemmExports,
  gemmWorkspaceBytes,
  instantiateGemm,
} from "../../src/backends/local/kernels/gemm-wasm.js";

const HERE = dirname(fileURLToPath(import.meta.url));

interface Shape {
  name: string;
  M: number;
  N: number;
  K: number;
  layout: "NN" | "TN" | "NT";
  batch: number;
  count: number;
}
interface TorchRun {
  info: Record<string, unknown>;
  matmul: (Shape & { gflops: number; max_abs_err?: number })[];
  train: { ms_median: number; ms_min: number; tokens_per_s: number; params: number };
}

const argv = process.argv.slice(2);
const flag = (name: string) => argv.includes(name);
const opt = (name: string, dflt: string) => {
  const i = argv.indexOf(name);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1]! : dflt;
};
const ROUNDS = Number(opt("--rounds", "5"));
const spec = JSON.parse(readFileSync(join(HERE, "shapes.json"), "utf8")) as {
  model: Record<string, number>;
  shapes: Shape[];
};
const shapes = spec.shapes;
const flops = (s: Shape) => 2 * s.M * s.N * s.K * s.batch;

// ---------------------------------------------------------------- torch reference
function torchRuns(): Record<string, TorchRun> | string {
  if (flag("--no-torch")) return "skipped (--no-torch)";
  const py = "/usr/bin/python3";
  if (!existsSync(py)) return "no /usr/bin/python3";
  const out: Record<string, TorchRun> = {};
  // the machine image may pin OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE; "A" runs without both
  const auto = { ...process.env };
  delete auto.OPENBLAS_CORETYPE;
  delete auto.OPENBLAS_L2_SIZE;
  const runs: [string, string, NodeJS.ProcessEnv][] = [
    ["1", "1", process.env],
    ["2", "2", process.env],
    ["D", "0", process.env],
    ["A", "0", auto],
  ];
  try {
    for (const [key, th, env] of runs) {
      const txt = execFileSync(py, [join(HERE, "torch_ref.py"), "--threads", th, "--json"], {
        encoding: "utf8",
        env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      out[key] = JSON.parse(txt) as TorchRun;
    }
  } catch (e) {
    return `torch unavailable: ${(e as Error).message.split("\n")[0]}`;
  }
  return out;
}

// ---------------------------------------------------------------- operands
// A(i,k), B(k,j) element strides for a layout, with A stored as used (M×K, or K×M for TN) and B
// stored K×N (or N×K for NT), each product contiguous.
function strides(s: Shape) {
  const { M, N, K, layout } = s;
  return {
    sai: layout === "TN" ? 1 : K,
    sak: layout === "TN" ? M : 1,
    sbk: layout === "NT" ? 1 : N,
    sbj: layout === "NT" ? K : 1,
  };
}

function rand(n: number, seed: number): Float32Array {
  const a = new Float32Array(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    a[i] = (x >>> 0) / 4294967296 - 0.5;
  }
  return a;
}

function naive(s: Shape, A: Float32Array, B: Float32Array): Float64Array {
  const { M, N, K, batch } = s;
  const { sai, sak, sbk, sbj } = strides(s);
  const C = new Float64Array(batch * M * N);
  for (let b = 0; b < batch; b++) {
    const ao = b * M * K;
    const bo = b * K * N;
    const co = b * M * N;
    for (let i = 0; i < M; i++)
      for (let j = 0; j < N; j++) {
        let acc = 0;
        for (let k = 0; k < K; k++) acc += A[ao + i * sai + k * sak]! * B[bo + k * sbk + j * sbj]!;
        C[co + i * N + j] = acc;
      }
  }
  return C;
}

const maxDiff = (a: ArrayLike<number>, b: Float64Array) => {
  let d = 0;
  for (let i = 0; i < b.length; i++) d = Math.max(d, Math.abs(a[i]! - b[i]!));
  return d;
};

// ---------------------------------------------------------------- candidates
interface Candidate {
  name: string;
  /** Products computed per run() relative to the shape (2 for data-parallel). */
  flopScale?: number;
  /** Prepares a runner for one shape; returns the run function and a reader of C. */
  prepare(s: Shape, A: Float32Array, B: Float32Array): { run(): void; result(): ArrayLike<number> };
}

const memory = new WebAssembly.Memory({ initial: 4096, maximum: 65536, shared: true }); // 256 MiB
const heap = new Float32Array(memory.buffer);
let bump = 0;
const alloc = (bytes: number) => {
  const p = bump;
  bump += Math.ceil(bytes / 64) * 64;
  if (bump > memory.buffer.byteLength) throw new Error("bench heap exhausted");
  return p;
};
const WS_BYTES = gemmWorkspaceBytes(1024) + 4096;
const wsBase = alloc(2 * WS_BYTES);

function wasmOperands(s: Shape, A: Float32Array, B: Float32Array) {
  const pA = alloc(A.length * 4);
  const pB = alloc(B.length * 4);
  const pC = alloc(s.batch * s.M * s.N * 4);
  heap.set(A, pA / 4);
  heap.set(B, pB / 4);
  return { pA, pB, pC, result: () => heap.subarray(pC / 4, pC / 4 + s.batch * s.M * s.N) };
}

function wasmCandidate(name: string, g: GemmExports): Candidate {
  return {
    name,
    prepare(s, A, B) {
      const o = wasmOperands(s, A, B);
      const { sai, sak, sbk, sbj } = strides(s);
      const { M, N, K } = s;
      const run =
        s.batch === 1
          ? () => g.gemm(M, N, K, o.pA, sai, sak, o.pB, sbk, sbj, o.pC, N, 0, wsBase)
          : () =>
              g.gemm_batched(
                s.batch,
                M * K,
                K * N,
                M * N,
                M,
                N,
                K,
                o.pA,
                sai,
                sak,
                o.pB,
                sbk,
                sbj,
                o.pC,
                N,
                0,
                wsBase,
              );
      return { run, result: o.result };
    },
  };
}

function poolCandidate(name: string, pool: GemmPool): Candidate {
  return {
    name,
    prepare(s, A, B) {
      const o = wasmOperands(s, A, B);
      const st = strides(s);
      const call = { M: s.M, N: s.N, K: s.K, A: o.pA, B: o.pB, C: o.pC, ldc: s.N, ...st };
      const run =
        s.batch === 1
          ? () => pool.gemm(call, true)
          : () =>
              pool.gemmBatched({
                ...call,
                count: s.batch,
                strideA: s.M * s.K,
                strideB: s.K * s.N,
                strideC: s.M * s.N,
              });
      return { run, result: o.result };
    },
  };
}

/**
 * Data-parallel on 2 threads: each thread computes its own full product on its own operands
 * (as when each worker trains on half the micro-batch); one handshake per pair of products.
 * Reported GFLOP/s count both products, so it compares directly with the single-thread columns.
 */
function dataParallelCandidate(name: string, pool: GemmPool): Candidate {
  return {
    name,
    flopScale: 2,
    prepare(s, A, B) {
      const dup = (x: Float32Array) => {
        const y = new Float32Array(2 * x.length);
        y.set(x);
        y.set(x, x.length);
        return y;
      };
      const o = wasmOperands({ ...s, batch: 2 * s.batch }, dup(A), dup(B));
      const st = strides(s);
      const call = {
        M: s.M,
        N: s.N,
        K: s.K,
        A: o.pA,
        B: o.pB,
        C: o.pC,
        ldc: s.N,
        ...st,
        count: 2 * s.batch,
        strideA: s.M * s.K,
        strideB: s.K * s.N,
        strideC: s.M * s.N,
      };
      return {
        run: () => pool.gemmBatched(call),
        result: () => o.result().subarray(0, s.batch * s.M * s.N),
      };
    },
  };
}

const jsCandidate: Candidate = {
  name: "js",
  prepare(s, A, B) {
    const C = new Float32Array(s.batch * s.M * s.N);
    const st = strides(s);
    const run = () => {
      for (let b = 0; b < s.batch; b++)
        gemmJs({
          M: s.M,
          N: s.N,
          K: s.K,
          A,
          aOff: b * s.M * s.K,
          B,
          bOff: b * s.K * s.N,
          C,
          cOff: b * s.M * s.N,
          ldc: s.N,
          ...st,
        });
    };
    return { run, result: () => C };
  },
};

function clangCandidate(): Candidate | string {
  const file = join(HERE, "clang/build/gemm.wasm");
  if (!existsSync(file)) return "clang: not built (bench/kernels/clang/build.sh)";
  const mem = new WebAssembly.Memory({ initial: 1024, maximum: 32768 });
  const inst = new WebAssembly.Instance(new WebAssembly.Module(readFileSync(file)), {
    env: { memory: mem },
  });
  const g = inst.exports as unknown as {
    gemm: (...a: number[]) => void;
  };
  const f32 = () => new Float32Array(mem.buffer);
  let cbump = 8 << 20; // above clang's data + stack
  const calloc = (bytes: number) => {
    const p = cbump;
    cbump += Math.ceil(bytes / 64) * 64;
    return p;
  };
  return {
    name: "clang",
    prepare(s, A, B) {
      const pA = calloc(A.length * 4);
      const pB = calloc(B.length * 4);
      const pC = calloc(s.batch * s.M * s.N * 4);
      f32().set(A, pA / 4);
      f32().set(B, pB / 4);
      const { sai, sak, sbk, sbj } = strides(s);
      const { M, N, K } = s;
      const run = () => {
        for (let b = 0; b < s.batch; b++)
          g.gemm(
            M,
            N,
            K,
            pA + 4 * b * M * K,
            sai,
            sak,
            pB + 4 * b * K * N,
            sbk,
            sbj,
            pC + 4 * b * M * N,
            N,
            0,
          );
      };
      return { run, result: () => f32().subarray(pC / 4, pC / 4 + s.batch * M * N) };
    },
  };
}

function nativeCandidates(): Candidate[] | string {
  const file = join(HERE, "native/build/gemm_addon.node");
  if (!existsSync(file)) return "native: not built (bench/kernels/native/build.sh)";
  process.env.OPENBLAS_NUM_THREADS = "1"; // read when libopenblas loads with the addon
  const addon = createRequire(import.meta.url)(file) as Record<
    "openblas" | "native",
    (layout: number, M: number, N: number, K: number, ...arr: Float32Array[]) => void
  >;
  const code = { NN: 0, TN: 1, NT: 2 } as const;
  return (["native", "openblas"] as const).map((which) => ({
    name: which,
    prepare(s: Shape, A: Float32Array, B: Float32Array) {
      const C = new Float32Array(s.batch * s.M * s.N);
      const views = Array.from({ length: s.batch }, (_, b) => [
        A.subarray(b * s.M * s.K, (b + 1) * s.M * s.K),
        B.subarray(b * s.K * s.N, (b + 1) * s.K * s.N),
        C.subarray(b * s.M * s.N, (b + 1) * s.M * s.N),
      ]);
      const run = () => {
        for (const [a, bb, c] of views) addon[which](code[s.layout], s.M, s.N, s.K, a!, bb!, c!);
      };
      return { run, result: () => C };
    },
  }));
}

// ---------------------------------------------------------------- timing
/** Seconds per call: calibrated repetitions, best of the rounds passed so far. */
function timeOnce(run: () => void, flop: number): number {
  const reps = Math.max(2, Math.min(2000, Math.round(2e7 / flop)));
  const t = performance.now();
  for (let i = 0; i < reps; i++) run();
  return (performance.now() - t) / 1000 / reps;
}

async function main() {
  const notes: string[] = [];
  const torch = torchRuns();
  if (typeof torch === "string") notes.push(`torch: ${torch}`);

  const pool2 = await GemmPool.create({
    threads: 2,
    memory,
    workspace: wsBase,
    workspaceBytes: WS_BYTES,
  });
  const cands: Candidate[] = [
    jsCandidate,
    wasmCandidate("wasm", instantiateGemm(memory).exports),
    wasmCandidate("wasm2x16", instantiateGemm(memory, { mr: 2, nr: 16, unroll: 1 }).exports),
    poolCandidate("wasm×2", pool2),
    dataParallelCandidate("wasm dp×2", pool2),
  ];
  const clang = clangCandidate();
  if (typeof clang === "string") notes.push(clang);
  else cands.push(clang);
  const natives = nativeCandidates();
  if (typeof natives === "string") notes.push(natives);
  else cands.push(...natives);

  const only = opt("--candidates", "");
  if (only) {
    const keep = new Set(only.split(","));
    for (let i = cands.length - 1; i >= 0; i--) if (!keep.has(cands[i]!.name)) cands.splice(i, 1);
  }
  // prepare every (shape, candidate) and check it
  const prepared = shapes.map((s, si) => {
    const A = rand(s.batch * s.M * s.K, 17 + si);
    const B = rand(s.batch * s.K * s.N, 91 + si);
    const ref = naive(s, A, B);
    return cands.map((c) => {
      const p = c.prepare(s, A, B);
      p.run();
      const err = maxDiff(p.result(), ref);
      return { ...p, err, scale: c.flopScale ?? 1, best: Number.POSITIVE_INFINITY };
    });
  });
  // warm up (wasm tier-up, JIT), then interleave rounds so background load hits all alike
  for (const row of prepared) for (const p of row) for (let i = 0; i < 3; i++) p.run();
  for (let r = 0; r < ROUNDS; r++)
    shapes.forEach((s, si) => {
      for (const p of prepared[si]!) p.best = Math.min(p.best, timeOnce(p.run, flops(s) * p.scale));
    });

  // 2-thread handshake cost: an empty product split across the pool
  const sync = (() => {
    const call = { M: 2, N: 32, K: 1, A: wsBase, B: wsBase, C: wsBase + 4096, sai: 1, sak: 1 };
    const c = { ...call, sbk: 1, sbj: 1, ldc: 32 };
    const samples: number[] = [];
    for (let i = 0; i < 20000; i++) {
      const t = performance.now();
      pool2.gemm(c, true);
      samples.push((performance.now() - t) * 1000);
    }
    const meanUs = samples.reduce((a, b) => a + b, 0) / samples.length;
    samples.sort((a, b) => a - b);
    return {
      medianUs: samples[samples.length >> 1]!,
      p90Us: samples[(samples.length * 0.9) | 0]!,
      p99Us: samples[(samples.length * 0.99) | 0]!,
      meanUs,
    };
  })();
  await pool2.close();

  // ---------------------------------------------------------------- report
  const t1 = typeof torch === "string" ? undefined : torch["1"];
  const t2 = typeof torch === "string" ? undefined : torch["2"];
  const tD = typeof torch === "string" ? undefined : torch["D"];
  const tA = typeof torch === "string" ? undefined : torch["A"];
  const cols = ["torch1", "torch2", "torchD", "torchA", ...cands.map((c) => c.name)];
  const gf = (si: number, col: string): number | undefined => {
    if (col === "torch1") return t1?.matmul[si]?.gflops;
    if (col === "torch2") return t2?.matmul[si]?.gflops;
    if (col === "torchD") return tD?.matmul[si]?.gflops;
    if (col === "torchA") return tA?.matmul[si]?.gflops;
    const p = prepared[si]![cands.findIndex((c) => c.name === col)]!;
    return (flops(shapes[si]!) * p.scale) / p.best / 1e9;
  };
  const pad = (x: string, n: number) => x.padStart(n);
  const label = (s: Shape) =>
    `${s.name} ${s.layout} ${s.batch > 1 ? `${s.batch}×` : ""}${s.M}×${s.K}·${s.K}×${s.N}`;
  const W = 44;
  console.log("\nGFLOP/s per matmul (best of rounds; ×N = count per step)");
  console.log(`${"shape".padEnd(W)} ${pad("n", 2)} ${cols.map((c) => pad(c, 10)).join("")}`);
  shapes.forEach((s, si) => {
    const v = cols.map((c) => {
      const x = gf(si, c);
      return pad(x === undefined ? "-" : x.toFixed(1), 10);
    });
    console.log(`${label(s).padEnd(W)} ${pad(String(s.count), 2)} ${v.join("")}`);
  });

  // step estimate: matmul seconds per training step
  const stepFlop = shapes.reduce((a, s) => a + flops(s) * s.count, 0);
  const msPerStep = (col: string) => {
    let sec = 0;
    for (const [si, s] of shapes.entries()) {
      const x = gf(si, col);
      if (x === undefined) return undefined;
      sec += (flops(s) * s.count) / (x * 1e9);
    }
    return sec * 1e3;
  };
  console.log(
    `\nmatmul work per step: ${(stepFlop / 1e9).toFixed(3)} GFLOP; matmul ms/step (Σ count·flop / GFLOP/s):`,
  );
  const est: Record<string, number | undefined> = {};
  for (const c of cols) {
    est[c] = msPerStep(c);
    const v = est[c];
    const eff = v === undefined ? "" : `  (${(stepFlop / (v / 1e3) / 1e9).toFixed(1)} GFLOP/s avg)`;
    const rel =
      v !== undefined && est.torch1 !== undefined ? `  ${(est.torch1 / v).toFixed(2)}× torch1` : "";
    console.log(
      `  ${c.padEnd(9)} ${v === undefined ? "-" : v.toFixed(1).padStart(7)} ms${eff}${rel}`,
    );
  }
  for (const [k, t] of [
    ["1", t1],
    ["2", t2],
    ["D", tD],
    ["A", tA],
  ] as const) {
    if (!t) continue;
    const mm = est[`torch${k}`]!;
    console.log(
      `torch${k}: step ${t.train.ms_median.toFixed(1)} ms median (${t.train.ms_min.toFixed(1)} min), ` +
        `${t.train.tokens_per_s.toFixed(0)} tok/s; of which matmul ≈ ${mm.toFixed(1)} ms, ` +
        `rest ≈ ${(t.train.ms_median - mm).toFixed(1)} ms  [${JSON.stringify(t.info)}]`,
    );
  }
  console.log(
    `\n2-thread handshake (empty split call): median ${sync.medianUs.toFixed(1)} µs, ` +
      `p90 ${sync.p90Us.toFixed(1)} µs, p99 ${sync.p99Us.toFixed(1)} µs, mean ${sync.meanUs.toFixed(1)} µs`,
  );
  for (const [k, t] of Object.entries({ torch1: t1, torch2: t2, torchD: tD, torchA: tA })) {
    if (!t) continue;
    const worst = Math.max(...t.matmul.map((m) => m.max_abs_err ?? 0));
    console.log(`${k} max |C - float64| over shapes: ${worst.toExponential(2)}`);
  }
  console.log("\nmax |C - naive(float64)| per candidate (worst over shapes):");
  cands.forEach((c, ci) => {
    const worst = Math.max(...prepared.map((row) => row[ci]!.err));
    console.log(`  ${c.name.padEnd(9)} ${worst.toExponential(2)}`);
  });
  for (const n of notes) console.log(`note: ${n}`);

  const jsonOut = opt("--json", join(HERE, "results/matmul.json"));
  mkdirSync(dirname(jsonOut), { recursive: true });
  writeFileSync(
    jsonOut,
    JSON.stringify(
      {
        date: new Date().toISOString(),
        node: process.version,
        shapes: shapes.map((s, si) => ({
          ...s,
          gflops: Object.fromEntries(cols.map((c) => [c, gf(si, c)])),
        })),
        stepFlop,
        matmulMsPerStep: est,
        torch: typeof torch === "string" ? torch : { 1: t1, 2: t2, default: tD, autodetect: tA },
        sync,
        maxAbsErr: Object.fromEntries(
          cands.map((c, ci) => [c.name, Math.max(...prepared.map((row) => row[ci]!.err))]),
        ),
      },
      null,
      2,
    ),
  );
  console.log(`\nwrote ${jsonOut}`);
}

await main();
