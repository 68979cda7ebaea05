/**
 * Continuous batching over a {@link Generator}'s lanes. A request waits up to `batchWindowMs` (or
 * until a lane is free) in a queue; the queue is then grouped by the settings one generate call
 * shares — max_tokens, temperature, top_p, top_k, stop strings, stop token ids — and each group (up
 * to `maxBatch` sequences) becomes one batch on one idle lane; groups with different settings go
 * to other lanes or wait their turn. What may differ inside a batch: prompts, n, seed, logprobs,
 * streaming, return_token_ids. A group larger than the idle lanes' share is split across them.
 */
import type { GenerateResult, GenerateStep, Generator, GeneratorLane } from "./generator.js";
import { HttpError } from "./http.js";
import type { Choice, Job } from "./job.js";

/** Counters of what the sampler did, for tests and monitoring. */
export interface SamplerMetrics {
  /** Generation requests admitted (after validation). */
  requests: number;
  /** Batched generate() calls made on the lanes. */
  batches: number;
  /** Sequences generated (each choice of each request). */
  sequences: number;
  /** Largest batch so far, in sequences. */
  maxBatchSequences: number;
}

interface Batch {
  refs: { job: Job; choice: Choice }[];
  jobs: Job[];
}

export class BatchScheduler {
  private readonly pending: Job[] = [];
  private readonly batches = new Set<Batch>();
  private readonly busy = new Set<GeneratorLane>();
  private pumpTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly stats: SamplerMetrics = {
    requests: 0,
    batches: 0,
    sequences: 0,
    maxBatchSequences: 0,
  };

  constructor(
    private readonly generator: Generator,
    private readonly maxBatch: number,
    private readonly batchWindowMs: number,
  ) {}

  get metrics(): Readonly<SamplerMetrics> {
    return { ...this.stats };
  }

  /** Queues a validated request; it is answered (or failed) when its batch ends. */
  enqueue(job: Job): void {
    if (this.generator.lanes.every((l) => !l.alive)) {
      job.fail(new HttpError(503, "every sampler worker has died; restart the sampler"));
      return;
    }
    this.stats.requests++;
    job.version = this.generator.weightVersion; // what an error before dispatch reports
    this.pending.push(job);
    if (this.pumpTimer === undefined)
      this.pumpTimer = setTimeout(() => {
        this.pumpTimer = undefined;
        this.pump();
      }, this.batchWindowMs);
  }

  /** Fails every queued and running request with `err`; nothing is dispatched after this. */
  close(err: HttpError): void {
    this.closed = true;
    clearTimeout(this.pumpTimer);
    for (const j of this.pending.splice(0)) j.fail(err);
    for (const b of this.batches) for (const j of b.jobs) j.fail(err);
    this.batches.clear();
  }

  /** Hands the queue to idle lanes, one batch of same-settings requests each. */
  private pump(): void {
    for (let i = this.pending.length - 1; i >= 0; i--)
      if (this.pending[i]!.cancelled) this.pending.splice(i, 1);
    const idle = this.generator.lanes.filter((l) => !this.busy.has(l) && l.alive);
    if (idle.length === 0 || this.pending.length === 0 || this.closed) return;
    const groups = new Map<string, Job[]>();
    for (const j of this.pending) {
      const g = groups.get(j.key);
      if (g) g.push(j);
      else groups.set(j.key, [j]);
    }
    const chunks: Job[][] = [];
    for (const jobs of groups.values()) {
      let cur: Job[] = [];
      let seqs = 0;
      for (const j of jobs) {
        if (cur.length > 0 && seqs + j.choices.length > this.maxBatch) {
          chunks.push(cur);
          cur = [];
          seqs = 0;
        }
        cur.push(j);
        seqs += j.choices.length;
      }
      chunks.push(cur);
    }
    // more idle lanes than batches: split the largest batches across them
    while (chunks.length < idle.length) {
      let at = -1;
      for (let i = 0; i < chunks.length; i++)
        if (chunks[i]!.length > 1 && (at < 0 || chunks[i]!.length > chunks[at]!.length)) at = i;
      if (at < 0) break;
      const c = chunks[at]!;
      chunks.splice(at, 1, c.slice(0, Math.ceil(c.length / 2)), c.slice(Math.ceil(c.length / 2)));
    }
    for (let i = 0; i < Math.min(idle.length, chunks.length); i++) {
      const jobs = chunks[i]!;
      for (const j of jobs) this.pending.splice(this.pending.indexOf(j), 1);
      this.dispatch(idle[i]!, jobs);
    }
  }

  private dispatch(lane: GeneratorLane, jobs: Job[]): void {
    const batch: Batch = { refs: [], jobs };
    const prompts: number[][] = [];
    const seeds: number[] = [];
    let topLogprobs = 0;
    for (const job of jobs) {
      for (const c of job.choices) {
        batch.refs.push({ job, choice: c });
        prompts.push(job.init.prompts[c.promptIndex]!);
        seeds.push(c.seed);
      }
      topLogprobs = Math.max(topLogprobs, job.init.topLogprobs);
      job.start(lane.weightVersion);
    }
    const n = batch.refs.length;
    this.busy.add(lane);
    this.stats.batches++;
    this.stats.sequences += n;
    this.stats.maxBatchSequences = Math.max(this.stats.maxBatchSequences, n);
    this.batches.add(batch);
    const s = jobs[0]!.init.sampling;
    lane
      .generate({ ...s, prompts, seeds, topLogprobs }, (step) => this.onStep(batch, step))
      .then(
        (r) => this.onResult(batch, r),
        (e: unknown) => {
          const msg = e instanceof Error ? e.message : String(e);
          for (const j of jobs) j.fail(new HttpError(500, `generation failed: ${msg}`));
        },
      )
      .finally(() => {
        this.busy.delete(lane);
        this.batches.delete(batch);
        this.pump();
      });
  }

  private onStep(b: Batch, m: GenerateStep): void {
    if (!this.batches.has(b)) return;
    const touched = new Set<Job>();
    for (let i = 0; i < m.seqs.length; i++) {
      const ref = b.refs[m.seqs[i]!];
      if (!ref || ref.choice.finish || m.pos[i] !== ref.choice.ids.length) continue;
      ref.job.addToken(ref.choice, m.tokens[i]!, m.logprobs[i]!, m.top?.[i] ?? null);
      touched.add(ref.job);
    }
    for (const j of touched) {
      if (j.done) continue;
      if (j.finished) j.finish();
      else j.progress();
    }
  }

  private onResult(b: Batch, r: GenerateResult): void {
    if (!this.batches.has(b)) return;
    b.refs.forEach((ref, s) => {
      ref.job.reconcile(ref.choice, r.sequences[s]!);
    });
    for (const j of b.jobs) j.finish();
  }
}
