/**
 * bench/local-backend — the local training backend's model (src/backends/local/model.ts) against
 * PyTorch on the CPU, same architecture and same step.
 *
 *   node --import tsx bench/local-backend.ts [--reps 15] [--rounds 2] [--quick] [--no-torch]
 *                                            [--no-backend] [--out bench/results/local-backend.json]
 *
 * 1. Training tokens/s (B·T per step; a step = zeroGrad, lossAndGrad(cross_entropy), AdamW with
 *    lr 1e-3, β 0.9/0.95, weight decay 0.1 on the linear weights, grad-norm clip 1) for
 *    (a) B32×T32 and (b) B8×T256 (the whole context), both on DEFAULT_GPT_CONFIG (d128, 2 layers,
 *    4 heads, vocab 264, RoPE, maxSeqLen 256): ours single-threaded, PyTorch with 1 thread and
 *    with its default threads (bench/local-backend/torch_ref.py, run by /usr/bin/python3, the
 *    Debian torch with OpenBLAS), and LocalBackend (2 train workers, data parallel) when
 *    src/backends/local/backend.ts loads. The phase profile of our step (GEMMs, attention,
 *    LayerNorm, GELU, softmax over the vocabulary, ...) comes from Gpt.profile (profile.ts).
 * 2. Sampling tokens/s with the KV cache (generate.ts, temperature 1) at batch 1 and 32: prompt 16
 *    tokens, 64 new tokens per sequence, prefill included; PyTorch's loop of single-token forwards
 *    with a KV cache (like for like), and its naive loop without one (the whole sequence re-run
 *    per token).
 *
 * Each measurement: warm-up runs, then `--reps` timed repetitions, median. With `--rounds` > 1
 * ours and torch alternate round by round (the machine is shared and noisy: a neighbour moves
 * every number, so ratios are taken within a round) and the best round is reported.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { generate } from "../src/backends/local/generate.js";
import { type LossDatum, lossAndGrad } from "../src/backends/local/loss-and-grad.js";
import {
  DEFAULT_GPT_CONFIG,
  Gpt,
  type GptConfig,
  type PhaseProfile,
} from "../src/backends/local/model.js";
import { AdamW, decayMask } from "../src/backends/local/optim.js";
import { mulberry32 } from "../src/random.js";
import { markdownTable } from "./lib/stats.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** The Debian interpreter with python3-torch (override: RLLM_BENCH_PYTHON, e.g. to test the skip). */
const PYTHON = process.env.RLLM_BENCH_PYTHON ?? "/usr/bin/python3";
const TORCH_REF = join(ROOT, "bench/local-backend/torch_ref.py");

const argv = process.argv.slice(2);
const flag = (name: string) => argv.includes(`--${name}`);
function arg(name: string, dflt: number): number {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : dflt;
}
function sarg(name: string, dflt: string): string {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1]! : dflt;
}
const QUICK = flag("quick");
const REPS = arg("reps", QUICK ? 5 : 15);
const WARMUP = arg("warmup", QUICK ? 2 : 4);
const ROUNDS = arg("rounds", QUICK ? 1 : 2);
const OUT = sarg("out", join(ROOT, "bench/results/local-backend.json"));

const MODEL: GptConfig = { ...DEFAULT_GPT_CONFIG };

interface TrainJob {
  name: string;
  B: number;
  T: number;
  model: GptConfig;
}
interface SampleJob {
  name: string;
  batch: number;
  prompt: number;
  tokens: number;
  model: GptConfig;
  nocache: boolean;
}
const TRAIN: TrainJob[] = [
  { name: "(a) B32×T32", B: 32, T: 32, model: MODEL },
  { name: "(b) B8×T256", B: 8, T: 256, model: MODEL },
];
const SAMPLE: SampleJob[] = [
  { name: "batch 1", batch: 1, prompt: 16, tokens: 64, model: MODEL, nocache: true },
  { name: "batch 32", batch: 32, prompt: 16, tokens: 64, model: MODEL, nocache: true },
];

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1]!;
};

/** Repetitions scaled so that a slow case does not take minutes: at least 3. */
function repsFor(tokens: number): number {
  return Math.max(3, Math.round((REPS * 1024) / Math.max(tokens, 1024)));
}

function datumsFor(job: TrainJob, seed: number): LossDatum[] {
  const rand = mulberry32(seed);
  return Array.from({ length: job.B }, () => {
    const tokens = Array.from({ length: job.T }, () => Math.floor(rand() * job.model.vocabSize));
    const zeros = tokens.map(() => 0);
    return {
      tokens,
      lossMask: tokens.map((_, t) => (t === 0 ? 0 : 1)),
      advantages: zeros,
      samplingLogprobs: zeros,
    };
  });
}

const OPTIM = { lr: 1e-3, beta1: 0.9, beta2: 0.95, weightDecay: 0.1, maxGradNorm: 1 };

interface TrainResult {
  ms: number;
  msMin: number;
  tokensPerS: number;
  /** Median CPU time of the process per step (user + system) and the tokens/s it implies. */
  cpuMs?: number;
  tokensPerCpuS?: number;
}

/** Median wall and CPU (process.cpuUsage) ms over `n` calls of `fn`. */
function timeIt(n: number, fn: () => void): { ms: number; msMin: number; cpuMs: number } {
  const ts: number[] = [];
  const cs: number[] = [];
  for (let i = 0; i < n; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    fn();
    ts.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cs.push((c.user + c.system) / 1000);
  }
  return { ms: median(ts), msMin: Math.min(...ts), cpuMs: median(cs) };
}

/** Our training step, single-threaded: zeroGrad, lossAndGrad, AdamW. */
function oursTrain(job: TrainJob): TrainResult {
  const model = new Gpt(job.model, { seed: 0 });
  const datums = datumsFor(job, 1);
  const opt = new AdamW(model.numParams, decayMask(model.params, model.numParams));
  const step = () => {
    model.zeroGrad();
    lossAndGrad(model, datums, { kind: "cross_entropy" });
    opt.step(model.paramData, model.gradData, OPTIM);
  };
  for (let i = 0; i < WARMUP; i++) step();
  const { ms, msMin, cpuMs } = timeIt(repsFor(job.B * job.T), step);
  const n = job.B * job.T;
  return { ms, msMin, tokensPerS: (n / ms) * 1000, cpuMs, tokensPerCpuS: (n / cpuMs) * 1000 };
}

/** Per-phase ms of our step (mean over the repetitions), with the optimizer and the loss glue. */
function oursPhases(job: TrainJob): Record<string, number> {
  const model = new Gpt(job.model, { seed: 0 });
  const datums = datumsFor(job, 1);
  const opt = new AdamW(model.numParams, decayMask(model.params, model.numParams));
  const prof: PhaseProfile = { ms: {} };
  const n = repsFor(job.B * job.T);
  const reps: Record<string, number>[] = [];
  for (let i = 0; i < WARMUP + n; i++) {
    prof.ms = {};
    if (i === WARMUP) model.profile = prof;
    const t0 = performance.now();
    model.zeroGrad();
    lossAndGrad(model, datums, { kind: "cross_entropy" });
    const t1 = performance.now();
    opt.step(model.paramData, model.gradData, OPTIM);
    const t2 = performance.now();
    if (i < WARMUP) continue;
    const inModel = Object.values(prof.ms).reduce((a, b) => a + b, 0);
    reps.push({
      ...prof.ms,
      "loss glue + zeroGrad": t1 - t0 - inModel,
      "AdamW (optim.ts)": t2 - t1,
      total: t2 - t0,
    });
  }
  model.profile = undefined;
  return medianPhases(reps);
}

/**
 * Per phase, the median over the repetitions (each repetition's own split): a neighbour that
 * preempts us inflates whichever phase it lands in, and the median leaves those out. The total
 * is the median total, so the phases need not add up to it exactly.
 */
function medianPhases(reps: Record<string, number>[]): Record<string, number> {
  const keys = new Set(reps.flatMap((r) => Object.keys(r)));
  return Object.fromEntries([...keys].map((k) => [k, median(reps.map((r) => r[k] ?? 0))]));
}

interface SampleResult {
  ms: number;
  tokensPerS: number;
  cpuMs: number;
  tokensPerCpuS: number;
}

function oursSample(job: SampleJob): SampleResult {
  const model = new Gpt(job.model, { seed: 0 });
  const rand = mulberry32(2);
  const prompts = Array.from({ length: job.batch }, () =>
    Array.from({ length: job.prompt }, () => Math.floor(rand() * job.model.vocabSize)),
  );
  const run = (seed: number) =>
    generate(model, { prompts, maxTokens: job.tokens, temperature: 1, seed });
  for (let i = 0; i < Math.max(1, WARMUP >> 1); i++) run(i);
  let seed = 100;
  const { ms, cpuMs } = timeIt(Math.max(3, Math.round(REPS / 3)), () => {
    const seqs = run(seed++);
    const n = seqs.reduce((a, s) => a + s.tokenIds.length, 0);
    if (n !== job.batch * job.tokens) throw new Error(`generated ${n} tokens, expected more`);
  });
  const n = job.batch * job.tokens;
  return { ms, tokensPerS: (n / ms) * 1000, cpuMs, tokensPerCpuS: (n / cpuMs) * 1000 };
}

/** Per-phase ms of one generate() call at this batch (mean over the repetitions). */
function samplePhases(job: SampleJob): Record<string, number> {
  const model = new Gpt(job.model, { seed: 0 });
  const rand = mulberry32(2);
  const prompts = Array.from({ length: job.batch }, () =>
    Array.from({ length: job.prompt }, () => Math.floor(rand() * job.model.vocabSize)),
  );
  generate(model, { prompts, maxTokens: job.tokens, seed: 0 });
  const prof: PhaseProfile = { ms: {} };
  const reps: Record<string, number>[] = [];
  model.profile = prof;
  for (let i = 0; i < Math.max(3, Math.round(REPS / 3)); i++) {
    prof.ms = {};
    const t0 = performance.now();
    generate(model, { prompts, maxTokens: job.tokens, seed: i });
    const total = performance.now() - t0;
    const inModel = Object.values(prof.ms).reduce((a, b) => a + b, 0);
    reps.push({ ...prof.ms, "sampling + rest": total - inModel, total });
  }
  model.profile = undefined;
  return medianPhases(reps);
}

// ── LocalBackend (2 train workers, data parallel) ─────────────────────────────────────────────

/**
 * LocalBackend's training tokens/s (src/backends/local/backend.ts, trainWorkers 2): the same
 * datums and step (forwardBackward cross_entropy + optimStep). Returns a reason string instead of
 * a number when the backend is missing or fails (never a made-up number).
 */
async function localBackendTrain(job: TrainJob): Promise<TrainResult | string> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import(
      // a variable specifier: the file is written concurrently and may not exist yet
      ["..", "src", "backends", "local", "backend.js"].join("/")
    )) as Record<string, unknown>;
  } catch (e) {
    return `backend.ts not loadable: ${(e as Error).message.split("\n")[0]}`;
  }
  // biome-ignore lint/suspicious/noExplicitAny: the backend's API is not imported statically
  const LocalBackend = mod.LocalBackend as any;
  if (!LocalBackend?.create) return "backend.ts has no LocalBackend.create";
  // biome-ignore lint/suspicious/noExplicitAny: see above
  let b: any;
  try {
    const { dModel, nLayers, nHeads, maxSeqLen } = job.model;
    b = await LocalBackend.create({
      model: { dModel, nLayers, nHeads, maxSeqLen },
      seed: 0,
      trainWorkers: 2,
    });
    const datums = datumsFor(job, 1).map((d, i) => ({
      ...d,
      weightVersion: 0,
      groupId: `g${i}`,
    }));
    const step = async () => {
      await b.forwardBackward(datums, { kind: "cross_entropy" });
      await b.optimStep(OPTIM);
    };
    for (let i = 0; i < WARMUP; i++) await step();
    const ts: number[] = [];
    for (let i = 0; i < repsFor(job.B * job.T); i++) {
      const t0 = performance.now();
      await step();
      ts.push(performance.now() - t0);
    }
    const ms = median(ts);
    return { ms, msMin: Math.min(...ts), tokensPerS: ((job.B * job.T) / ms) * 1000 };
  } catch (e) {
    return `LocalBackend failed: ${(e as Error).message.split("\n")[0]}`;
  } finally {
    await b?.close?.().catch(() => undefined);
  }
}

// ── PyTorch ─────────────────────────────────────────────────────────────────────────────────

interface TorchTimes {
  ms: number;
  tokens_per_s: number;
  cpu_ms: number;
  tokens_per_cpu_s: number;
}
interface TorchOut {
  info: Record<string, unknown>;
  train: ({ name: string; ms_min: number } & TorchTimes)[];
  sample: { name: string; cache?: TorchTimes; nocache?: TorchTimes }[];
}

const TORCH_MISSING = `PyTorch is not importable by ${PYTHON}: \`apt install python3-torch libopenblas0-pthread\``;

function torchAvailable(): string | undefined {
  const r = spawnSync(PYTHON, ["-c", "import torch"], { encoding: "utf8" });
  if (r.error || r.status !== 0) return TORCH_MISSING;
  return undefined;
}

function runTorch(
  threads: number,
  train: TrainJob[],
  sample: SampleJob[],
  reps = REPS,
): TorchOut | string {
  const spec = {
    train: train.map((j) => ({ ...j, reps: repsFor(j.B * j.T) })),
    sample,
    warmup: WARMUP,
    reps,
  };
  // per-job repetitions: the script takes one count, so slow jobs run in their own process
  const outs: TorchOut[] = [];
  const groups: { train: unknown[]; sample: unknown[]; reps: number }[] = [];
  for (const j of spec.train) groups.push({ train: [j], sample: [], reps: j.reps });
  if (sample.length > 0) groups.push({ train: [], sample, reps });
  for (const g of groups) {
    const r = spawnSync(PYTHON, [TORCH_REF, "--threads", String(threads)], {
      input: JSON.stringify({ ...g, warmup: WARMUP }),
      encoding: "utf8",
      maxBuffer: 1 << 24,
    });
    if (r.status !== 0) return `torch_ref.py failed: ${(r.stderr || "").trim().split("\n").pop()}`;
    const o = JSON.parse(r.stdout) as TorchOut & { error?: string };
    if (o.error) return o.error;
    outs.push(o);
  }
  return {
    info: outs[0]!.info,
    train: outs.flatMap((o) => o.train),
    sample: outs.flatMap((o) => o.sample),
  };
}

// ── main ────────────────────────────────────────────────────────────────────────────────────

const fmt = (x: number | undefined, d = 0) =>
  x === undefined || !Number.isFinite(x)
    ? "–"
    : x.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d });

const torchMissing = flag("no-torch") ? "skipped (--no-torch)" : torchAvailable();
if (torchMissing) console.log(`torch column skipped: ${torchMissing}`);

interface Round {
  ours: TrainResult[];
  torch1?: TorchOut | string;
  sampleOurs: SampleResult[];
}
const rounds: Round[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const ours = TRAIN.map(oursTrain);
  const sampleOurs = SAMPLE.map(oursSample);
  const torch1 = torchMissing ? undefined : runTorch(1, TRAIN, SAMPLE);
  rounds.push({ ours, torch1, sampleOurs });
  console.log(
    `round ${r + 1}/${ROUNDS}: ours ${ours.map((o) => `${fmt(o.tokensPerS)} tok/s`).join(", ")}` +
      (typeof torch1 === "object"
        ? `; torch(1) ${torch1.train.map((o) => `${fmt(o.tokens_per_s)} tok/s`).join(", ")}`
        : ""),
  );
}
const torchDefault = torchMissing ? undefined : runTorch(0, TRAIN, SAMPLE);
const torch2 = torchMissing ? undefined : runTorch(2, TRAIN, []);
const backend = flag("no-backend")
  ? TRAIN.map(() => "skipped (--no-backend)")
  : await Promise.all(TRAIN.map((j) => j).map(async (j) => await localBackendTrain(j)));
const phases = TRAIN.map(oursPhases);
const samplePhasesOut = SAMPLE.map(samplePhases);

/** The best (highest) value over the rounds, ignoring missing ones. */
const bestOf = (xs: (number | undefined)[]): number | undefined => {
  const v = xs.filter((x): x is number => x !== undefined && Number.isFinite(x));
  return v.length > 0 ? Math.max(...v) : undefined;
};
const torchT = (o: TorchOut | string | undefined, i: number) =>
  typeof o === "object" ? o.train[i] : undefined;
const torchInfo = (o: TorchOut | string | undefined) =>
  typeof o === "object"
    ? `torch ${o.info.torch}, torch.get_num_threads() = ${o.info.torch_num_threads}, OpenBLAS core ${o.info.openblas_corename} (${o.info.openblas_num_threads} threads), OPENBLAS_CORETYPE=${o.info.OPENBLAS_CORETYPE ?? "unset"}, OPENBLAS_L2_SIZE=${o.info.OPENBLAS_L2_SIZE ?? "unset"}`
    : (o ?? torchMissing ?? "–");
const ratio = (a: number | undefined, b: number | undefined) =>
  a !== undefined && b !== undefined && b > 0 ? (a / b).toFixed(2) : "–";

console.log(
  "\n## Training tokens/s (median per round, best round; CPU time = process user+sys per step)\n",
);
const trainRows = TRAIN.map((job, i) => {
  const ours = bestOf(rounds.map((r) => r.ours[i]!.tokensPerS));
  const oursCpu = bestOf(rounds.map((r) => r.ours[i]!.tokensPerCpuS));
  const oursMs = Math.min(...rounds.map((r) => r.ours[i]!.ms));
  const t1 = bestOf(rounds.map((r) => torchT(r.torch1, i)?.tokens_per_s));
  const t1Cpu = bestOf(rounds.map((r) => torchT(r.torch1, i)?.tokens_per_cpu_s));
  const td = torchT(torchDefault, i)?.tokens_per_s;
  const t2 = torchT(torch2, i)?.tokens_per_s;
  const be = backend[i]!;
  const perRound = rounds.map((r) =>
    ratio(r.ours[i]!.tokensPerS, torchT(r.torch1, i)?.tokens_per_s),
  );
  return {
    job,
    ours,
    oursCpu,
    t1,
    t1Cpu,
    td,
    t2,
    be,
    row: [
      job.name,
      `${fmt(ours)} (${fmt(oursMs, 1)} ms)`,
      fmt(t1),
      ratio(ours, t1),
      perRound.join(" / "),
      ratio(oursCpu, t1Cpu),
      fmt(td),
      ratio(ours, td),
      fmt(t2),
      typeof be === "string" ? "n/a" : `${fmt(be.tokensPerS)} (${fmt(be.ms, 1)} ms)`,
      typeof be === "string" ? "–" : ratio(be.tokensPerS, t2),
    ],
  };
});
console.log(
  markdownTable(
    [
      "config",
      "ours, 1 thread",
      "torch, 1 thread",
      "ours/torch(1)",
      "per round",
      "ours/torch(1) by CPU time",
      "torch default",
      "ours/torch(default)",
      "torch 2 threads",
      "LocalBackend 2 workers",
      "LocalBackend/torch(2)",
    ],
    trainRows.map((r) => r.row),
  ),
);
for (const [i, be] of backend.entries())
  if (typeof be === "string") console.log(`LocalBackend ${TRAIN[i]!.name}: ${be}`);
console.log(`\ntorch (1 thread): ${torchInfo(rounds[0]?.torch1)}`);
console.log(`torch (default):  ${torchInfo(torchDefault)}`);
console.log(`torch (2):        ${torchInfo(torch2)}`);

console.log("\n## Sampling tokens/s (prompt 16, 64 new tokens per sequence, prefill included)\n");
const torchS = (o: TorchOut | string | undefined, i: number) =>
  typeof o === "object" ? o.sample[i] : undefined;
const sampleRows = SAMPLE.map((job, i) => {
  const ours = bestOf(rounds.map((r) => r.sampleOurs[i]!.tokensPerS));
  const oursCpu = bestOf(rounds.map((r) => r.sampleOurs[i]!.tokensPerCpuS));
  const oursMs = Math.min(...rounds.map((r) => r.sampleOurs[i]!.ms));
  const tc = bestOf(rounds.map((r) => torchS(r.torch1, i)?.cache?.tokens_per_s));
  const tcCpu = bestOf(rounds.map((r) => torchS(r.torch1, i)?.cache?.tokens_per_cpu_s));
  const tn = bestOf(rounds.map((r) => torchS(r.torch1, i)?.nocache?.tokens_per_s));
  const td = torchS(torchDefault, i)?.cache?.tokens_per_s;
  return {
    job,
    ours,
    oursCpu,
    tc,
    tcCpu,
    tn,
    td,
    row: [
      job.name,
      `${fmt(ours)} (${fmt(oursMs, 1)} ms)`,
      fmt(tc),
      ratio(ours, tc),
      ratio(oursCpu, tcCpu),
      fmt(td),
      fmt(tn),
      ratio(ours, tn),
    ],
  };
});
console.log(
  markdownTable(
    [
      "batch",
      "ours (KV cache), 1 thread",
      "torch 1 thread, KV cache",
      "ours/torch(cache)",
      "by CPU time",
      "torch default, KV cache",
      "torch 1 thread, no cache",
      "ours/torch(no cache)",
    ],
    sampleRows.map((r) => r.row),
  ),
);

console.log(
  "\n## Where our time goes (ms per call, median per phase over the repetitions; Gpt.profile)\n",
);
const keys = [...new Set([...phases, ...samplePhasesOut].flatMap((p) => Object.keys(p)))].sort(
  (a, b) => (a === "total" ? 1 : b === "total" ? -1 : a.localeCompare(b)),
);
console.log(
  markdownTable(
    ["phase", ...TRAIN.map((j) => `train ${j.name}`), ...SAMPLE.map((j) => `generate ${j.name}`)],
    keys.map((k) => [
      k,
      ...[...phases, ...samplePhasesOut].map((p) => {
        const v = p[k];
        if (v === undefined) return "–";
        const pct = k === "total" ? "" : ` (${((100 * v) / p.total!).toFixed(0)}%)`;
        return `${fmt(v, 2)}${pct}`;
      }),
    ]),
  ),
);

mkdirSync(dirname(OUT), { recursive: true });
writeFileSync(
  OUT,
  `${JSON.stringify(
    {
      date: new Date().toISOString(),
      node: process.version,
      model: MODEL,
      optim: OPTIM,
      reps: REPS,
      warmup: WARMUP,
      rounds,
      torchDefault,
      torch2,
      backend,
      phases: Object.fromEntries(TRAIN.map((j, i) => [j.name, phases[i]])),
      samplePhases: Object.fromEntries(SAMPLE.map((j, i) => [j.name, samplePhasesOut[i]])),
      summary: {
        train: trainRows.map((r) => ({
          name: r.job.name,
          B: r.job.B,
          T: r.job.T,
          oursTokensPerS: r.ours,
          oursTokensPerCpuS: r.oursCpu,
          torch1TokensPerS: r.t1,
          torch1TokensPerCpuS: r.t1Cpu,
          torchDefaultTokensPerS: r.td,
          torch2TokensPerS: r.t2,
          localBackend: r.be,
        })),
        sample: sampleRows.map((r) => ({
          name: r.job.name,
          oursTokensPerS: r.ours,
          oursTokensPerCpuS: r.oursCpu,
          torch1CacheTokensPerS: r.tc,
          torch1CacheTokensPerCpuS: r.tcCpu,
          torch1NoCacheTokensPerS: r.tn,
          torchDefaultCacheTokensPerS: r.td,
        })),
      },
    },
    null,
    2,
  )}\n`,
);
console.log(`\nwritten: ${OUT}`);
