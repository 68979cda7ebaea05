/**
 * `local`: the training backend that runs in Node with nothing else — a small GPT (model.ts)
 * trained data-parallel on worker threads and served by an OpenAI-compatible sampler in vLLM's
 * shape (sampler.ts), so the gateway records its token ids and logprobs like any vLLM server's.
 *
 *   main thread      master weights, the summed gradient, AdamW (optim.ts), checkpoints
 *   train workers    one replica each (train-worker.ts); forwardBackward splits the batch's rows
 *                    between them (balanced by tokens), each returns ∂L/∂θ of its rows computed
 *                    with the whole batch's denominators, and the main thread adds them up
 *   sampler          its own workers and a copy of the weights as of the last saveForSampler()
 *
 * The reference policy (for a KL penalty) is the model the backend started from: the `checkpoint`
 * it was created from, or the seeded initialisation; a checkpoint records which, so a resumed run
 * rebuilds the same reference.
 */
import { resolve } from "node:path";
import type { LossSpec } from "../../algorithms/loss.js";
import { LossSpecSchema } from "../../algorithms/loss.js";
import type { Datum } from "../../types/index.js";
import { CheckpointError, saveCheckpoint } from "../checkpoint/checkpoint.js";
import { batchDenominators, checkDatums, checkTokenRows, type ModelLimits } from "../datums.js";
import {
  checkLossSupported,
  type ForwardBackwardOptions,
  type ForwardBackwardResult,
  type OptimParams,
  type OptimStepResult,
  type SamplerInfo,
  type TrainingBackend,
} from "../spi.js";
import {
  GptConfigSchema,
  LOCAL_CAPABILITIES,
  type LocalBackendConfig,
  type LocalBackendConfigInput,
  LocalBackendConfigSchema,
} from "./config.js";
import { Gpt, type GptConfig, type ParamInfo } from "./model.js";
import { AdamW, decayMask } from "./optim.js";
import type { LocalSampler } from "./sampler.js";
import { byteTokenizer } from "./tokenizer.js";
import type { ForwardBackwardReply, TrainRow, TrainWorkerData } from "./train-worker.js";
import { flatFromTensors, loadLocalCheckpoint, tensorsFromFlat } from "./weights.js";
import { WorkerClient } from "./worker-rpc.js";

/** Where the reference policy comes from (recorded in checkpoints). */
type ReferenceSource =
  | { source: "init"; seed: number; initStd: number }
  | { source: "checkpoint"; dir: string };

function describeConfigDiff(a: GptConfig, b: GptConfig): string {
  return (Object.keys(a) as (keyof GptConfig)[])
    .filter((k) => a[k] !== b[k])
    .map((k) => `${k}: ${a[k]} vs ${b[k]}`)
    .join(", ");
}

export class LocalBackend implements TrainingBackend {
  readonly name = "local";
  readonly capabilities = LOCAL_CAPABILITIES;
  readonly layout: ParamInfo[];
  /** The master weights (the ones the optimizer updates). */
  readonly params: Float32Array;
  private readonly grad: Float32Array;
  private optimizer: AdamW;
  private lastOptim: OptimParams | undefined;
  private gradPending = false;
  private workersHave = -1; // the params revision the train workers hold
  private revision = 0; // bumped at every change of `params`
  private referenceSent = false;
  private samplerParams: Float32Array;
  private version: number;
  private samplerServer: LocalSampler | undefined;
  private samplerStarting: Promise<LocalSampler> | undefined;
  private closed = false;

  private constructor(
    readonly config: LocalBackendConfig,
    readonly modelConfig: GptConfig,
    params: Float32Array,
    private reference: { params: Float32Array; source: ReferenceSource },
    private readonly workers: WorkerClient[],
    weightVersion: number,
  ) {
    this.layout = new Gpt(modelConfig, { kernel: "js" }).params;
    this.params = params;
    this.grad = new Float32Array(params.length);
    this.optimizer = new AdamW(params.length, decayMask(this.layout, params.length));
    this.samplerParams = params.slice();
    this.version = weightVersion;
  }

  /** Builds the model (from `checkpoint`, or initialised with `seed`) and starts the workers. */
  static async create(input: LocalBackendConfigInput = {}): Promise<LocalBackend> {
    const parsed = LocalBackendConfigSchema.safeParse(input);
    if (!parsed.success)
      throw new Error(
        `invalid local backend config: ${parsed.error.issues
          .map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`)
          .join("; ")}`,
      );
    const config = parsed.data;
    let modelConfig: GptConfig;
    let params: Float32Array;
    let weightVersion = 0;
    let source: ReferenceSource;
    let loaded: Awaited<ReturnType<typeof loadLocalCheckpoint>> | undefined;
    if (config.checkpoint) {
      loaded = await loadLocalCheckpoint(config.checkpoint);
      modelConfig = loaded.config;
      if (config.model) {
        const diff = describeConfigDiff(config.model as GptConfig, modelConfig);
        if (diff)
          throw new Error(
            `backend.model differs from the checkpoint's config (${diff}); drop backend.model to use the checkpoint's`,
          );
      }
      params = loaded.params;
      weightVersion = loaded.checkpoint.weightVersion;
      // a run started from a checkpoint is regularised towards that checkpoint (load() instead
      // restores the reference a resumed run had)
      source = { source: "checkpoint", dir: resolve(config.checkpoint) };
    } else {
      modelConfig = (config.model ?? GptConfigSchema.parse({})) as GptConfig;
      const m = new Gpt(modelConfig, { seed: config.seed, initStd: config.initStd, kernel: "js" });
      params = m.paramData.slice();
      source = { source: "init", seed: config.seed, initStd: config.initStd };
    }
    const data: TrainWorkerData = { config: modelConfig, kernel: config.kernel };
    const workers: WorkerClient[] = [];
    try {
      for (let i = 0; i < config.trainWorkers; i++)
        workers.push(await WorkerClient.start("train-worker", data));
    } catch (e) {
      await Promise.all(workers.map((w) => w.close()));
      throw e;
    }
    const reference = { params: params.slice(), source };
    const backend = new LocalBackend(
      config,
      modelConfig,
      params,
      reference,
      workers,
      weightVersion,
    );
    if (loaded?.checkpoint.optimizer) backend.restoreOptimizer(loaded);
    return backend;
  }

  private initParams(s: { seed: number; initStd: number }): Float32Array {
    return new Gpt(this.modelConfig, {
      seed: s.seed,
      initStd: s.initStd,
      kernel: "js",
    }).paramData.slice();
  }

  private restoreOptimizer(loaded: Awaited<ReturnType<typeof loadLocalCheckpoint>>): void {
    const opt = loaded.checkpoint.optimizer!;
    const where = `${loaded.checkpoint.manifest.createdAt} optimizer`;
    this.optimizer.state.m.set(flatFromTensors(this.layout, opt.m, where));
    this.optimizer.state.v.set(flatFromTensors(this.layout, opt.v, where));
    this.optimizer.state.step = opt.step;
    const h = opt.hyperparameters ?? {};
    if (typeof h.lr === "number") this.lastOptim = h as unknown as OptimParams;
  }

  /** A copy of the gradient accumulated since the last optimStep(). */
  get accumulatedGrad(): Float32Array {
    return this.grad.slice();
  }

  /** The weight version the sampler serves. */
  get weightVersion(): number {
    return this.version;
  }

  /** Optimizer steps taken. */
  get step(): number {
    return this.optimizer.state.step;
  }

  async sampler(): Promise<SamplerInfo> {
    const s = await this.startSampler();
    return { baseURL: s.baseURL, model: s.modelName, weightVersion: this.version, kind: "vllm" };
  }

  private startSampler(): Promise<LocalSampler> {
    this.assertOpen();
    if (this.samplerServer) return Promise.resolve(this.samplerServer);
    this.samplerStarting ??= (async () => {
      const { LocalSampler } = await import("./sampler.js");
      const c = this.config.sampler;
      const s = await LocalSampler.start({
        config: this.modelConfig,
        params: this.samplerParams,
        weightVersion: this.version,
        modelName: c.modelName,
        host: c.host,
        port: c.port,
        workers: c.workers,
        maxBatch: c.maxBatch,
        batchWindowMs: c.batchWindowMs,
      });
      this.samplerServer = s;
      return s;
    })();
    return this.samplerStarting;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error("the local backend is closed");
  }

  /** The model's limits, as the batch checks (../datums.ts) read them. */
  private get limits(): ModelLimits {
    return {
      vocabSize: this.modelConfig.vocabSize,
      maxSeqLen: this.modelConfig.maxSeqLen,
      contextHint: "raise model.maxSeqLen",
    };
  }

  /** Sends the master weights (and, when asked, the reference) to the train workers. */
  private async syncWorkers(needReference: boolean): Promise<void> {
    const jobs: Promise<unknown>[] = [];
    if (this.workersHave !== this.revision) {
      for (const w of this.workers)
        jobs.push(w.call("setParams", { params: this.params, which: "policy" }));
      this.workersHave = this.revision;
    }
    if (needReference && !this.referenceSent) {
      for (const w of this.workers)
        jobs.push(w.call("setParams", { params: this.reference.params, which: "reference" }));
      this.referenceSent = true;
    }
    await Promise.all(jobs);
  }

  /** Splits row indices between the workers, balancing tokens (longest first, to the lightest). */
  private split(lengths: readonly number[]): number[][] {
    const parts: number[][] = this.workers.map(() => []);
    const load = this.workers.map(() => 0);
    const order = lengths.map((_, i) => i).sort((a, b) => lengths[b]! - lengths[a]! || a - b);
    for (const i of order) {
      let w = 0;
      for (let j = 1; j < load.length; j++) if (load[j]! < load[w]!) w = j;
      parts[w]!.push(i);
      load[w] = load[w]! + lengths[i]!;
    }
    return parts;
  }

  async forwardBackward(
    datums: Datum[],
    lossInput: LossSpec,
    options: ForwardBackwardOptions = {},
  ): Promise<ForwardBackwardResult> {
    this.assertOpen();
    const loss = LossSpecSchema.parse(lossInput);
    checkLossSupported(this.name, this.capabilities, loss);
    const proximal = options.proximal ?? "sampling";
    checkDatums(datums, this.limits, Array.isArray(proximal) ? proximal : undefined);
    // the whole batch's denominators, so the split between workers changes nothing
    const denominators = options.denominators ?? batchDenominators(datums);
    await this.syncWorkers(loss.kl !== undefined);
    const parts = this.split(datums.map((d) => d.tokens.length));
    const replies = await Promise.all(
      parts.map((idx, w) => {
        if (idx.length === 0) return undefined;
        const trainRows: TrainRow[] = idx.map((i) => ({
          tokens: datums[i]!.tokens,
          lossMask: datums[i]!.lossMask,
          advantages: datums[i]!.advantages,
          samplingLogprobs: datums[i]!.samplingLogprobs,
          proximalLogprobs: Array.isArray(proximal) ? proximal[i] : undefined,
        }));
        return this.workers[w]!.call<ForwardBackwardReply>("forwardBackward", {
          rows: trainRows,
          loss,
          denominators,
          microBatchTokens: this.config.microBatchTokens,
          proximalFromCurrent: proximal === "current",
        });
      }),
    );
    let total = 0;
    let maxAbsDiff = 0;
    const sums: Record<string, number> = {};
    for (const r of replies) {
      if (!r) continue;
      const g = this.grad;
      const rg = r.grad;
      for (let i = 0; i < g.length; i++) g[i] = g[i]! + rg[i]!;
      total += r.loss;
      maxAbsDiff = Math.max(maxAbsDiff, r.maxAbsDiff);
      for (const [k, v] of Object.entries(r.sums)) sums[k] = (sums[k] ?? 0) + v;
    }
    this.gradPending = true;
    const n = sums["loss/tokens"] ?? 0;
    const metrics: Record<string, number> = {};
    for (const [k, v] of Object.entries(sums))
      metrics[k] = k === "loss/tokens" || k === "loss/value" ? v : n > 0 ? v / n : 0;
    metrics["logprob_diff/max_abs"] = maxAbsDiff;
    metrics["loss/rows"] = datums.length;
    return { loss: total, metrics };
  }

  async optimStep(optim: OptimParams): Promise<OptimStepResult> {
    this.assertOpen();
    const r = this.optimizer.step(this.params, this.grad, optim);
    this.grad.fill(0);
    this.gradPending = false;
    this.lastOptim = { ...optim };
    this.revision++;
    return { gradNorm: r.gradNorm, step: r.step, metrics: { "optim/grad_norm": r.gradNorm } };
  }

  async computeLogprobs(datums: Pick<Datum, "tokens">[]): Promise<number[][]> {
    this.assertOpen();
    checkTokenRows(datums, this.limits);
    await this.syncWorkers(false);
    const parts = this.split(datums.map((d) => d.tokens.length));
    const out: number[][] = new Array(datums.length);
    await Promise.all(
      parts.map(async (idx, w) => {
        if (idx.length === 0) return;
        const lp = await this.workers[w]!.call<Float32Array[]>("computeLogprobs", {
          rows: idx.map((i) => datums[i]!.tokens),
          microBatchTokens: this.config.microBatchTokens,
        });
        idx.forEach((i, j) => {
          out[i] = Array.from(lp[j]!);
        });
      }),
    );
    return out;
  }

  async saveForSampler(): Promise<{ weightVersion: number }> {
    this.assertOpen();
    this.version++;
    this.samplerParams = this.params.slice();
    if (this.samplerServer || this.samplerStarting) {
      const s = await this.startSampler();
      await s.setWeights(this.samplerParams, this.version);
    }
    return { weightVersion: this.version };
  }

  async save(dir: string): Promise<void> {
    this.assertOpen();
    if (this.gradPending)
      throw new Error(
        "save(): gradients were accumulated since the last optimStep(); call optimStep() first (a checkpoint holds no gradients)",
      );
    const { m, v, step } = this.optimizer.state;
    await saveCheckpoint(dir, {
      tensors: tensorsFromFlat(this.layout, this.params),
      config: { ...this.modelConfig },
      tokenizer: { ...byteTokenizer.describe() },
      weightVersion: this.version,
      optimizer: {
        step,
        hyperparameters: { ...(this.lastOptim ?? {}) },
        m: tensorsFromFlat(this.layout, m),
        v: tensorsFromFlat(this.layout, v),
      },
      extra: { backend: "local", reference: this.reference.source },
    });
  }

  async load(dir: string): Promise<void> {
    this.assertOpen();
    const loaded = await loadLocalCheckpoint(dir);
    const diff = describeConfigDiff(this.modelConfig, loaded.config);
    if (diff)
      throw new CheckpointError(
        `${dir} holds a model with another config (${diff}); create a backend from it instead`,
      );
    this.params.set(loaded.params);
    this.grad.fill(0);
    this.gradPending = false;
    this.optimizer = new AdamW(this.params.length, decayMask(this.layout, this.params.length));
    if (loaded.checkpoint.optimizer) this.restoreOptimizer(loaded);
    this.revision++;
    const ref = loaded.checkpoint.extra.reference as ReferenceSource | undefined;
    if (ref && JSON.stringify(ref) !== JSON.stringify(this.reference.source)) {
      this.reference = {
        source: ref,
        params:
          ref.source === "init"
            ? this.initParams(ref)
            : (await loadLocalCheckpoint(ref.dir)).params,
      };
      this.referenceSent = false;
    }
    this.version = loaded.checkpoint.weightVersion;
    this.samplerParams = this.params.slice();
    if (this.samplerServer) await this.samplerServer.setWeights(this.samplerParams, this.version);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const s = this.samplerServer ?? (await this.samplerStarting?.catch(() => undefined));
    await Promise.all([s?.close(), ...this.workers.map((w) => w.close())]);
  }
}
