/**
 * bench/torch-backend — the torch backend against the local backend on the CPU, on the SAME model:
 * a local GPT (the countdown recipe's architecture by default: dModel 128, 2 layers, 4 heads,
 * maxSeqLen 96, RoPE) and its export through exportLocalAsHf (a GPT-NeoX HF directory), loaded by
 * TorchBackend in float32 on the CPU. One run, rounds alternating which backend goes first.
 *
 *   node --import tsx bench/torch-backend.ts [--rounds 3] [--quick] [--threads 2] [--rows 64]
 *        [--steps 4] [--requests 64] [--n 4] [--max-tokens 40] [--d-model 128] [--layers 2]
 *        [--heads 4] [--max-seq-len 96] [--out bench/results/torch-backend.json]
 *
 * Per round and backend:
 *   (a) train      `--steps` × (forwardBackward(PPO) + optimStep) on one fixed batch: `--rows` rows
 *                  of 60–90 tokens (a countdown prompt, then random answer bytes, loss on the
 *                  answer); tokens/s counts every token of every row;
 *   (b) logprobs   computeLogprobs of the same batch; tokens/s as (a);
 *   (c) sampling   `--requests` concurrent POST /v1/completions to the backend's own sampler (the
 *                  same countdown prompts as token ids, n `--n`, max_tokens `--max-tokens`,
 *                  temperature 1, ignore_eos, so both generate exactly as many tokens); tokens/s
 *                  counts completion tokens over the wall time of the whole burst;
 *   (d) mismatch   for every sampled answer of (c): |sampler logprob − computeLogprobs| per token
 *                  (the trainer and the sampler hold the same weights: saveForSampler after (a)),
 *                  mean and max.
 * Each timed part also records the backend's CPU time (this process, its worker threads included —
 * the local backend and both HTTP front ends live in it — plus, for torch, the worker processes),
 * so tokens per CPU-second can be compared when the machine is shared; the CPU other processes
 * used meanwhile (the noise); and in local parts, what the idle torch workers used.
 *
 * Threads, decided once: `--threads N` (default 2, the cores here) gives the local backend N train
 * workers and N sampler workers, and the torch workers N intra-op threads (OMP_NUM_THREADS and
 * MKL_NUM_THREADS, set before they start); torch's own default on this machine is printed beside it.
 *
 * Output: per metric, each backend's median tokens/s over rounds, and torch/local ratios taken
 * within each round (median, min, max); written with every round's numbers to
 * bench/results/torch-backend.json. `--quick`: 1 round, 2 steps, 8 requests of n 2 and 16 tokens.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type LossSpec, LossSpecSchema } from "../src/algorithms/loss.js";
import { LocalBackend } from "../src/backends/local/backend.js";
import { renderChat } from "../src/backends/local/chat-format.js";
import { exportLocalAsHf } from "../src/backends/local/export-hf.js";
import type { TrainingBackend } from "../src/backends/spi.js";
import { TorchBackend } from "../src/backends/torch/backend.js";
import { resolvePython } from "../src/backends/torch/python-env.js";
import { mulberry32 } from "../src/random.js";
import { countdownPrompt, countdownRecipeTasks } from "../src/recipes/countdown.js";
import type { Datum } from "../src/types/index.js";
import { cpuMsOf, systemCpuMs } from "./lib/procs.js";
import { markdownTable } from "./lib/stats.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const argv = process.argv.slice(2);
const flag = (name: string) => argv.includes(`--${name}`);
function arg(name: string, dflt: number): number {
  const i = argv.indexOf(`--${name}`);
  if (i < 0) return dflt;
  const v = Number(argv[i + 1]);
  if (!Number.isInteger(v) || v < 1) {
    console.error(`--${name} takes an integer ≥ 1, got ${argv[i + 1]}`);
    process.exit(2);
  }
  return v;
}
const QUICK = flag("quick");
const ROUNDS = arg("rounds", QUICK ? 1 : 3);
const THREADS = arg("threads", 2);
const ROWS = arg("rows", 64);
const STEPS = arg("steps", QUICK ? 2 : 4);
const REQUESTS = arg("requests", QUICK ? 8 : 64);
const N = arg("n", QUICK ? 2 : 4);
const MAX_TOKENS = arg("max-tokens", QUICK ? 16 : 40);
const MODEL = {
  dModel: arg("d-model", 128),
  nLayers: arg("layers", 2),
  nHeads: arg("heads", 4),
  maxSeqLen: arg("max-seq-len", 96),
  positional: "rope" as const,
};
const oi = argv.indexOf("--out");
const OUT = oi >= 0 ? argv[oi + 1]! : join(ROOT, "bench/results/torch-backend.json");

const LOSS: LossSpec = LossSpecSchema.parse({ kind: "ppo" });
const OPTIM = { lr: 1e-4, beta1: 0.9, beta2: 0.95, weightDecay: 0, maxGradNorm: 1 };
/** Rows are this long at least and at most (prompt + answer), within the model's context. */
const ROW_MIN = Math.min(60, MODEL.maxSeqLen);
const ROW_MAX = Math.min(90, MODEL.maxSeqLen);

type Name = "local" | "torch";
const NAMES: readonly Name[] = ["local", "torch"];
type Metric = "train" | "logprobs" | "sampling";
const METRICS: readonly Metric[] = ["train", "logprobs", "sampling"];

/** One timed part: tokens, wall ms, the backend's CPU ms, other processes' CPU ms. */
interface Timed {
  tokens: number;
  wallMs: number;
  cpuMs: number;
  otherCpuMs: number;
  /** In a local part: the CPU the (idle) torch workers used meanwhile. */
  idleChildrenCpuMs?: number;
}
interface Mismatch {
  tokens: number;
  meanAbs: number;
  maxAbs: number;
}
type Round = Record<Name, Record<Metric, Timed> & { mismatch: Mismatch }>;

// ── CPU accounting ───────────────────────────────────────────────────────────────────────────

/** This process's children and theirs (the torch workers), from /proc; [] off Linux. */
function descendants(pid: number): number[] {
  let kids: number[] = [];
  try {
    for (const t of readdirSync(`/proc/${pid}/task`)) {
      const s = readFileSync(`/proc/${pid}/task/${t}/children`, "utf8").trim();
      if (s) kids = kids.concat(s.split(/\s+/).map(Number));
    }
  } catch {
    return [];
  }
  return kids.flatMap((k) => [k, ...descendants(k)]);
}

/** CPU ms used so far by this process (worker threads included) and by its descendants. */
function cpuNow(): { own: number; children: number } {
  const u = process.cpuUsage();
  const children = descendants(process.pid).reduce((a, p) => a + (cpuMsOf(p) || 0), 0);
  return { own: (u.user + u.system) / 1000, children };
}

/**
 * Times `fn` (which returns the tokens it processed). The backend's CPU is this process's (the
 * local backend lives in it, and both samplers' HTTP front ends) plus, for torch, the workers';
 * during a local part the torch workers' CPU is kept apart (`idleChildrenCpuMs`: they should idle).
 */
async function timed(backend: Name, fn: () => Promise<number>): Promise<Timed> {
  const sys0 = systemCpuMs().busy;
  const c0 = cpuNow();
  const t0 = performance.now();
  const tokens = await fn();
  const wallMs = performance.now() - t0;
  const c1 = cpuNow();
  const own = c1.own - c0.own;
  const children = c1.children - c0.children;
  const cpuMs = backend === "torch" ? own + children : own;
  const otherCpuMs = Math.max(0, systemCpuMs().busy - sys0 - own - children);
  return backend === "torch"
    ? { tokens, wallMs, cpuMs, otherCpuMs }
    : { tokens, wallMs, cpuMs, otherCpuMs, idleChildrenCpuMs: children };
}

// ── the batch and the prompts ────────────────────────────────────────────────────────────────

/** The countdown prompts (chat-rendered token ids) of the batch's rows and of the requests. */
const PROMPTS = countdownRecipeTasks("train", Math.max(ROWS, REQUESTS)).map((t) =>
  renderChat([{ role: "user", content: countdownPrompt(t) }], { addGenerationPrompt: true }),
);

/** `ROWS` rows: a countdown prompt, then answer bytes (digits, operators, spaces) to 60–90 tokens. */
function trainRows(): { tokens: number[]; answerFrom: number }[] {
  const rand = mulberry32(7);
  const alphabet = [..."0123456789+-*= ()\n"].map((c) => c.charCodeAt(0));
  return PROMPTS.slice(0, ROWS).map((prompt) => {
    const len = Math.max(prompt.length + 1, ROW_MIN + Math.floor(rand() * (ROW_MAX - ROW_MIN + 1)));
    const tokens = [...prompt];
    while (tokens.length < Math.min(len, MODEL.maxSeqLen))
      tokens.push(alphabet[Math.floor(rand() * alphabet.length)]!);
    return { tokens, answerFrom: prompt.length };
  });
}

/** PPO datums of the rows; sampling logprobs are the initial model's (the ratio starts at 1). */
function datums(rows: ReturnType<typeof trainRows>, logprobs: number[][]): Datum[] {
  const rand = mulberry32(11);
  return rows.map((r, i) => {
    const advantage = rand() < 0.5 ? -1 : 1;
    return {
      tokens: r.tokens,
      lossMask: r.tokens.map((_, t) => (t >= r.answerFrom ? 1 : 0)),
      advantages: r.tokens.map((_, t) => (t >= r.answerFrom ? advantage : 0)),
      samplingLogprobs: logprobs[i]!.map((lp, t) => (t >= r.answerFrom ? lp : 0)),
      weightVersion: 0,
      groupId: `g${i >> 2}`,
    };
  });
}

// ── the measured parts ───────────────────────────────────────────────────────────────────────

async function train(b: TrainingBackend, batch: Datum[], steps: number): Promise<number> {
  for (let s = 0; s < steps; s++) {
    await b.forwardBackward(batch, LOSS);
    await b.optimStep(OPTIM);
  }
  return steps * batch.reduce((a, d) => a + d.tokens.length, 0);
}

interface Sample {
  prompt: number[];
  ids: number[];
  logprobs: number[];
}

/** `REQUESTS` concurrent completions; returns every answer with its sampler logprobs. */
async function sample(b: TrainingBackend, seed: number, requests: number): Promise<Sample[]> {
  const { baseURL, model } = await b.sampler();
  const one = async (i: number): Promise<Sample[]> => {
    const res = await fetch(`${baseURL}/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model,
        prompt: PROMPTS[i]!,
        n: N,
        max_tokens: MAX_TOKENS,
        temperature: 1,
        seed: seed * 10_000 + i,
        ignore_eos: true,
        logprobs: 0,
        return_token_ids: true,
      }),
    });
    const body = (await res.json()) as {
      choices?: {
        token_ids: number[];
        logprobs: { token_logprobs: number[] };
      }[];
    };
    if (!res.ok || !body.choices)
      throw new Error(`${b.name} sampler: HTTP ${res.status} ${JSON.stringify(body)}`);
    const prompt = PROMPTS[i]!;
    return body.choices.map((c) => ({
      prompt,
      ids: c.token_ids,
      logprobs: c.logprobs.token_logprobs,
    }));
  };
  const all = await Promise.all(Array.from({ length: requests }, (_, i) => one(i)));
  return all.flat();
}

/** |sampler logprob − trainer logprob| over every sampled token. */
async function mismatch(b: TrainingBackend, samples: Sample[]): Promise<Mismatch> {
  const lps = await b.computeLogprobs(samples.map((s) => ({ tokens: [...s.prompt, ...s.ids] })));
  let sum = 0;
  let max = 0;
  let n = 0;
  samples.forEach((s, i) => {
    s.logprobs.forEach((lp, j) => {
      const d = Math.abs(lp - lps[i]![s.prompt.length + j]!);
      sum += d;
      max = Math.max(max, d);
      n++;
    });
  });
  return { tokens: n, meanAbs: sum / n, maxAbs: max };
}

// ── set-up ───────────────────────────────────────────────────────────────────────────────────

/** torch's intra-op threads on this machine without OMP_NUM_THREADS (what a user gets). */
function torchDefaultThreads(): string {
  const env = { ...process.env };
  delete env.OMP_NUM_THREADS;
  delete env.MKL_NUM_THREADS;
  const r = spawnSync(
    resolvePython(undefined),
    ["-c", "import torch; print(torch.get_num_threads())"],
    { encoding: "utf8", env },
  );
  return r.status === 0 ? r.stdout.trim() : `unknown (${r.stderr.trim().split("\n").pop()})`;
}

async function setUp(dir: string): Promise<Record<Name, TrainingBackend>> {
  const local = await LocalBackend.create({
    model: MODEL,
    seed: 0,
    trainWorkers: THREADS,
    sampler: { workers: THREADS, maxBatch: 256 },
  });
  const hf = join(dir, "hf");
  await exportLocalAsHf({ config: local.modelConfig, params: local.params }, hf);
  process.env.OMP_NUM_THREADS = String(THREADS);
  process.env.MKL_NUM_THREADS = String(THREADS);
  try {
    const torch = await TorchBackend.create({
      model: hf,
      device: "cpu",
      dtype: "float32",
      sampler: { maxBatch: 256 },
    });
    return { local, torch };
  } catch (e) {
    await local.close();
    throw e;
  }
}

// ── the run ──────────────────────────────────────────────────────────────────────────────────

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const perS = (t: Timed) => (t.tokens / t.wallMs) * 1000;
const perCpuS = (t: Timed) => (t.tokens / t.cpuMs) * 1000;

async function round(
  r: number,
  backends: Record<Name, TrainingBackend>,
  batch: Datum[],
): Promise<Round> {
  const order = r % 2 === 0 ? NAMES : [...NAMES].reverse();
  const out = { local: {}, torch: {} } as Record<Name, Partial<Round[Name]>>;
  for (const n of order) out[n]!.train = await timed(n, () => train(backends[n], batch, STEPS));
  // the samplers serve what the trainers hold, for (d)
  for (const n of order) await backends[n].saveForSampler();
  const tokens = batch.reduce((a, d) => a + d.tokens.length, 0);
  for (const n of order)
    out[n]!.logprobs = await timed(n, async () => {
      await backends[n].computeLogprobs(batch);
      return tokens;
    });
  for (const n of order) {
    let samples: Sample[] = [];
    out[n]!.sampling = await timed(n, async () => {
      samples = await sample(backends[n], r + 1, REQUESTS);
      return samples.reduce((a, s) => a + s.ids.length, 0);
    });
    out[n]!.mismatch = await mismatch(backends[n], samples);
  }
  return out as Round;
}

function report(rounds: Round[], info: Record<string, unknown>): void {
  const summary: Record<string, unknown> = {};
  const rows = METRICS.map((m) => {
    const ratios = rounds.map((r) => perS(r.torch[m]) / perS(r.local[m]));
    const cpuRatios = rounds.map((r) => perCpuS(r.torch[m]) / perCpuS(r.local[m]));
    const other = Math.max(
      ...rounds.flatMap((r) => NAMES.map((n) => r[n][m].otherCpuMs / r[n][m].wallMs)),
    );
    const med = (n: Name, f: (t: Timed) => number) => median(rounds.map((r) => f(r[n][m])));
    summary[m] = {
      localTokensPerS: med("local", perS),
      torchTokensPerS: med("torch", perS),
      ratio: { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) },
      ratioByCpu: median(cpuRatios),
      othersCoresMax: other,
    };
    return [
      m === "train"
        ? "(a) forwardBackward + optimStep"
        : m === "logprobs"
          ? "(b) computeLogprobs"
          : "(c) sampling (HTTP)",
      med("local", perS).toFixed(0),
      med("torch", perS).toFixed(0),
      median(ratios).toFixed(2),
      `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`,
      median(cpuRatios).toFixed(2),
      other.toFixed(2),
    ];
  });
  console.log(
    `\n## torch/local on the same model (${rounds.length} round${rounds.length > 1 ? "s" : ""})\n`,
  );
  console.log(
    markdownTable(
      [
        "metric",
        "local tok/s",
        "torch tok/s",
        "torch/local",
        "min–max",
        "by CPU time",
        "others' cores (max)",
      ],
      rows,
    ),
  );
  const idle = Math.max(
    ...rounds.flatMap((r) =>
      METRICS.map((m) => (r.local[m].idleChildrenCpuMs ?? 0) / r.local[m].wallMs),
    ),
  );
  summary.idleTorchCoresMax = idle;
  console.log(`\nidle torch workers during the local parts: ${idle.toFixed(2)} cores at most`);
  const mm = (n: Name) => ({
    meanAbs: median(rounds.map((r) => r[n].mismatch.meanAbs)),
    maxAbs: Math.max(...rounds.map((r) => r[n].mismatch.maxAbs)),
    tokens: rounds.reduce((a, r) => a + r[n].mismatch.tokens, 0),
  });
  summary.mismatch = { local: mm("local"), torch: mm("torch") };
  console.log("\n(d) sampler vs trainer logprobs, abs difference per sampled token:\n");
  console.log(
    markdownTable(
      ["backend", "mean abs δ (median of rounds)", "max abs δ", "tokens"],
      NAMES.map((n) => [
        n,
        mm(n).meanAbs.toExponential(2),
        mm(n).maxAbs.toExponential(2),
        String(mm(n).tokens),
      ]),
    ),
  );
  mkdirSync(dirname(OUT), { recursive: true });
  writeFileSync(OUT, `${JSON.stringify({ ...info, summary, rounds }, null, 2)}\n`);
  console.log(`\nwritten: ${OUT}`);
}

const dir = mkdtempSync(join(tmpdir(), "rllm-bench-torch-"));
const backends = await setUp(dir);
try {
  const rows = trainRows();
  const initial = await backends.local.computeLogprobs(rows);
  const crossCheck = await backends.torch.computeLogprobs(rows);
  const exportDiff = Math.max(
    ...initial.flatMap((row, i) =>
      row.map((lp, t) => (t === 0 ? 0 : Math.abs(lp - crossCheck[i]![t]!))),
    ),
  );
  const batch = datums(rows, initial);
  const tokens = batch.reduce((a, d) => a + d.tokens.length, 0);
  const info = {
    model: MODEL,
    threads: THREADS,
    torchDefaultThreads: torchDefaultThreads(),
    rows: ROWS,
    tokensPerBatch: tokens,
    steps: STEPS,
    requests: REQUESTS,
    n: N,
    maxTokens: MAX_TOKENS,
    loss: LOSS,
    optim: OPTIM,
    exportMaxAbsLogprobDiff: exportDiff,
  };
  console.log(
    `model d${MODEL.dModel} × ${MODEL.nLayers} layers × ${MODEL.nHeads} heads, context ${MODEL.maxSeqLen}, RoPE; ` +
      `batch ${ROWS} rows, ${tokens} tokens (${ROW_MIN}–${ROW_MAX} a row), PPO, ${STEPS} steps a round; ` +
      `sampling ${REQUESTS} concurrent requests × n ${N} × ${MAX_TOKENS} tokens, T = 1`,
  );
  console.log(
    `threads: local ${THREADS} train workers and ${THREADS} sampler workers; torch ${THREADS} intra-op threads ` +
      `(OMP_NUM_THREADS; its default here: ${info.torchDefaultThreads}); cores: ${readdirSync("/sys/devices/system/cpu").filter((f) => /^cpu\d+$/.test(f)).length}`,
  );
  console.log(
    `export check: max |local − torch| logprob on the batch ${exportDiff.toExponential(2)}`,
  );
  // warm-up: one step, one logprob pass, one small burst each (starts the samplers)
  for (const n of NAMES) {
    await train(backends[n], batch, 1);
    await backends[n].computeLogprobs(batch);
    await sample(backends[n], 0, Math.min(REQUESTS, 4));
  }
  const rounds: Round[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    rounds.push(await round(r, backends, batch));
    const last = rounds[r]!;
    console.error(
      `round ${r + 1}/${ROUNDS}: ${METRICS.map((m) => `${m} ${NAMES.map((n) => `${n} ${perS(last[n][m]).toFixed(0)}`).join(" / ")}`).join("; ")} tok/s`,
    );
  }
  report(rounds, info);
} finally {
  await Promise.all(NAMES.map((n) => backends[n].close()));
  rmSync(dir, { recursive: true, force: true });
}
