/**
 * `torch`: the training backend over a Python worker (python/, `rllm_worker`) that trains any
 * Hugging Face causal LM — full fine-tuning or LoRA, on a CPU or a GPU — and serves it through the
 * same OpenAI/vLLM-shaped sampler as the local backend.
 *
 *   trainer worker   the model, the optimizer and checkpoints (python/PROTOCOL.md's trainer role)
 *   sampler worker   started by the first sampler(): generation with continuous batching; its
 *                    weights are the trainer's as of the last saveForSampler()
 *
 * The loss maths is src/algorithms/loss.ts's, ported whole (the worker's loss.py): this class
 * checks datums and the loss spec, packs the batch into the exchange files (tensors.ts) and fills
 * in what the trainer owns — the batch's denominators, which proximal logprobs to use.
 *
 * Decided here, once:
 *   - a section needs `model` or `checkpoint`; a checkpoint (rllm.json, checkpoint.ts) gives the
 *     weights, the optimizer state and the weight version, and `model` may only repeat its base;
 *   - the reference policy of a KL penalty is the worker's: LoRA's the base model (adapter
 *     disabled), full fine-tuning's the weights the backend was created from; checkpoints record it;
 *   - saveForSampler exports the trainable weights (LoRA: the adapter) into the trainer's exchange
 *     dir; a sampler that starts later loads the latest export; load() publishes the loaded
 *     weights the same way when a sampler runs, else a sampler that starts later loads the
 *     checkpoint directory itself (no export of a model nobody serves yet);
 *   - save() with gradients accumulated since the last optimStep() is refused (a checkpoint holds
 *     no gradients), as on the local backend;
 *   - with `sampler.engine` vllm or sglang no sampler worker starts: the first sampler() connects
 *     to the servers (external.ts) and pushes the trainer's weights when they are not the base
 *     model's (a checkpoint), and saveForSampler() advances the version only once every server
 *     serves it; sampler().model is then the current version's name (its LoRA adapter).
 */
import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import { type LossSpec, LossSpecSchema } from "../../algorithms/loss.js";
import type { Datum } from "../../types/index.js";
import { CheckpointError } from "../checkpoint/checkpoint.js";
import {
  batchDenominators,
  checkDatums,
  checkTokenRows,
  type ModelLimits,
  withOptimDefaults,
} from "../datums.js";
import {
  type BackendContext,
  checkLossSupported,
  type ForwardBackwardOptions,
  type ForwardBackwardResult,
  type OptimParams,
  type OptimStepResult,
  type SamplerInfo,
  type TrainingBackend,
} from "../spi.js";
import { readTorchManifest, saveTorchCheckpoint, type TorchManifest } from "./checkpoint.js";
import {
  type LoraConfig,
  TORCH_CAPABILITIES,
  type TorchBackendConfig,
  type TorchBackendConfigInput,
  TorchBackendConfigSchema,
} from "./config.js";
import { ExternalSampler } from "./external.js";
import type { TorchSampler } from "./generator.js";
import {
  type InitResult,
  launchSampler,
  localModelDir,
  parseInit,
  resolveDevice,
  resolveDtype,
  startWorker,
} from "./serve.js";
import { callWithTensors, expectTensor, flatRows, float32, int32, splitRows } from "./tensors.js";
import type { WorkerHello, WorkerProcess } from "./worker.js";

/** Where the backend's weights came from: what init loads, what checkpoints record. */
interface Origin {
  kind: "full" | "lora";
  /** The model the run is based on (absolute directory or Hub id). */
  baseModel: string;
  /** What init loads: the base, or a full checkpoint's directory. */
  model: string;
  /** A LoRA checkpoint's adapter directory, or null. */
  adapter: string | null;
  lora: LoraConfig | null;
}

/** Equal LoRA settings (key order aside: the config's transform puts alpha last). */
function sameLora(a: LoraConfig | null, b: LoraConfig | null): boolean {
  if (a === null || b === null) return a === b;
  return (
    a.rank === b.rank &&
    a.alpha === b.alpha &&
    a.dropout === b.dropout &&
    JSON.stringify(a.targetModules) === JSON.stringify(b.targetModules)
  );
}

function modelId(model: string): string {
  return existsSync(model) ? resolve(model) : model;
}

/** The origin of a fresh section, or of one that starts from checkpoint `m` at `dir`. */
function originOf(config: TorchBackendConfig, dir?: string, m?: TorchManifest): Origin {
  const lora = config.lora ?? null;
  if (!m || !dir) {
    if (!config.model)
      throw new Error(
        "the torch backend needs backend.model (a Hugging Face model directory or Hub id) or backend.checkpoint (a directory a torch run saved)",
      );
    const base = modelId(config.model);
    return { kind: lora ? "lora" : "full", baseModel: base, model: base, adapter: null, lora };
  }
  if (config.model && modelId(config.model) !== m.baseModel)
    throw new Error(
      `backend.model (${config.model}) is not the base model of checkpoint ${dir} (${m.baseModel}); drop backend.model to use the checkpoint's`,
    );
  if (config.lora && !sameLora(config.lora, m.lora))
    throw new Error(
      `backend.lora (${JSON.stringify(config.lora)}) differs from checkpoint ${dir}'s (${m.lora ? JSON.stringify(m.lora) : "full fine-tuning"}); drop backend.lora to continue the checkpoint`,
    );
  return m.kind === "full"
    ? { kind: "full", baseModel: m.baseModel, model: dir, adapter: null, lora: null }
    : { kind: "lora", baseModel: m.baseModel, model: m.baseModel, adapter: dir, lora: m.lora };
}

/** `init` on the trainer: `model` (and the origin's LoRA settings and adapter) on its device. */
async function initTrainer(
  trainer: WorkerProcess,
  config: TorchBackendConfig,
  o: Pick<Origin, "lora" | "adapter">,
  model: string,
): Promise<InitResult> {
  const device = resolveDevice(config.device, trainer.hello!);
  const params = {
    model,
    device,
    dtype: resolveDtype(config.dtype, device),
    seed: config.seed,
    lora: o.lora,
    adapter: o.adapter,
    gradientCheckpointing: config.gradientCheckpointing,
    microBatchTokens: config.microBatchTokens,
    logprobChunkTokens: config.logprobChunkTokens,
  };
  const timeoutMs = config.timeouts.callS * 1000;
  return parseInit(await trainer.call("init", params, { timeoutMs }), "trainer");
}

export class TorchBackend implements TrainingBackend {
  readonly name = "torch";
  readonly capabilities = TORCH_CAPABILITIES;
  private version: number;
  private optimizerStep: number;
  private gradPending = false;
  /**
   * What a sampler that starts now loads: a model (and adapter) directory as it stands — the
   * origin, or a checkpoint load() read — or the latest export_weights directory on top of the
   * origin.
   */
  private samplerWeights:
    | { from: "model"; model: string; adapter: string | null }
    | { from: "export"; dir: string; kind: "full" | "lora" };
  /**
   * The KL reference as the worker holds it: LoRA's is the base (the adapter disabled), full
   * fine-tuning's the model init loaded; load() of a checkpoint with another one re-inits on it.
   */
  private reference: string;
  private exports = 0;
  private samplerServer: TorchSampler | undefined;
  private samplerStarting: Promise<TorchSampler> | undefined;
  /** vLLM/SGLang servers instead of the in-process sampler (`sampler.engine`), once connected. */
  private externalStarting: Promise<ExternalSampler> | undefined;
  private closed = false;

  private constructor(
    readonly config: TorchBackendConfig,
    private readonly ctx: BackendContext,
    private readonly trainer: WorkerProcess,
    /** The model as the worker loaded it (vocabulary, context, dtype, device, eos ids). */
    readonly info: InitResult,
    private readonly origin: Origin,
    weightVersion: number,
    step: number,
  ) {
    this.version = weightVersion;
    this.optimizerStep = step;
    this.samplerWeights = { from: "model", model: origin.model, adapter: origin.adapter };
    this.reference = origin.kind === "lora" ? origin.baseModel : origin.model;
  }

  /** Starts the trainer worker on the section's model or checkpoint. */
  static async create(
    input: TorchBackendConfigInput,
    ctx: BackendContext = { log: () => {} },
  ): Promise<TorchBackend> {
    const parsed = TorchBackendConfigSchema.safeParse(input);
    if (!parsed.success)
      throw new Error(
        `invalid torch backend config: ${parsed.error.issues
          .map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`)
          .join("; ")}`,
      );
    const config = parsed.data;
    const dir = config.checkpoint ? resolve(config.checkpoint) : undefined;
    const manifest = dir ? await readTorchManifest(dir) : undefined;
    const origin = originOf(config, dir, manifest);
    const trainer = await startWorker(config, "trainer", ctx);
    try {
      const timeoutMs = config.timeouts.callS * 1000;
      const info = await initTrainer(trainer, config, origin, origin.model);
      let step = 0;
      if (dir)
        step = num((await trainer.call("load", { dir }, { timeoutMs })).step, "load", "step");
      return new TorchBackend(
        config,
        ctx,
        trainer,
        info,
        origin,
        manifest?.weightVersion ?? 0,
        step,
      );
    } catch (e) {
      await trainer.close();
      throw e;
    }
  }

  /** The trainer worker's hello: what it runs on; under torchrun, `world` (every rank's pid). */
  get trainerHello(): WorkerHello {
    return this.trainer.hello!;
  }

  /** The weight version the sampler serves. */
  get weightVersion(): number {
    return this.version;
  }

  /** Optimizer steps taken. */
  get step(): number {
    return this.optimizerStep;
  }

  private get timeoutMs(): number {
    return this.config.timeouts.callS * 1000;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error("the torch backend is closed");
  }

  async sampler(): Promise<SamplerInfo> {
    if (this.config.sampler.engine !== "torch") return (await this.startExternal()).info();
    const s = await this.startSampler();
    return { baseURL: s.baseURL, model: s.modelName, weightVersion: this.version, kind: "vllm" };
  }

  /**
   * Connects to the configured vLLM/SGLang servers; when the trainer's weights are not the base
   * model's (a checkpoint, an export) they are pushed first, so no server serves stale weights.
   */
  private startExternal(): Promise<ExternalSampler> {
    this.assertOpen();
    const sampler = this.config.sampler;
    if (sampler.engine === "torch") throw new Error("startExternal: the sampler is in process");
    this.externalStarting ??= (async () => {
      const o = this.origin;
      const ext = await ExternalSampler.connect(sampler, {
        exchange: this.trainer.exchange,
        modelDir: localModelDir(o.kind === "full" ? o.model : o.baseModel),
        kind: o.kind,
        version: this.version,
        log: this.ctx.log,
      });
      try {
        const w = this.samplerWeights;
        if (
          this.version > 0 ||
          w.from === "export" ||
          w.adapter !== null ||
          w.model !== o.baseModel
        )
          await ext.publish(this.trainer, this.version, this.timeoutMs);
      } catch (e) {
        await ext.close();
        throw e;
      }
      return ext;
    })();
    this.externalStarting.catch(() => {
      this.externalStarting = undefined;
    });
    return this.externalStarting;
  }

  private startSampler(): Promise<TorchSampler> {
    this.assertOpen();
    if (this.samplerServer) return Promise.resolve(this.samplerServer);
    this.samplerStarting ??= (async () => {
      const o = this.origin;
      const w = this.samplerWeights;
      const s = await launchSampler(this.config, this.ctx, {
        ...(w.from === "model"
          ? { model: w.model, adapter: w.adapter }
          : { model: o.model, adapter: o.adapter }),
        servingDir: localModelDir(o.kind === "full" ? o.model : o.baseModel),
        weightVersion: this.version,
      });
      try {
        // the trainer's weights as of the last saveForSampler() (read now: one may have run
        // while the sampler started)
        const e = this.samplerWeights;
        if (e.from === "export") await s.setWeights(e.dir, e.kind, this.version);
      } catch (err) {
        await s.close();
        throw err;
      }
      this.samplerServer = s;
      return s;
    })();
    this.samplerStarting.catch(() => {
      this.samplerStarting = undefined; // a later sampler() tries again
    });
    return this.samplerStarting;
  }

  /** The model's limits, as the batch checks (../datums.ts) read them. */
  private get limits(): ModelLimits {
    return {
      vocabSize: this.info.vocabSize,
      maxSeqLen: this.info.maxSeqLen,
      contextHint: "use a model with a longer max_position_embeddings",
    };
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
    const given = Array.isArray(proximal) ? proximal : undefined;
    checkDatums(datums, this.limits, given);
    if (datums.length === 0) return { loss: 0, metrics: { "loss/tokens": 0, "loss/rows": 0 } };
    const flat = (key: "tokens" | "lossMask" | "advantages" | "samplingLogprobs") =>
      flatRows(datums.map((d) => d[key])).values;
    const { lengths } = flatRows(datums.map((d) => d.tokens));
    const { result } = await callWithTensors(
      this.trainer,
      "forward_backward",
      {
        loss,
        denominators: options.denominators ?? batchDenominators(datums),
        proximal: given ? "given" : proximal,
      },
      {
        tokens: int32(flat("tokens")),
        lengths: int32(lengths),
        loss_mask: float32(flat("lossMask")),
        advantages: float32(flat("advantages")),
        sampling_logprobs: float32(flat("samplingLogprobs")),
        ...(given ? { proximal_logprobs: float32(flatRows(given).values) } : {}),
      },
      { timeoutMs: this.timeoutMs },
    );
    this.gradPending = true;
    return {
      loss: num(result.loss, "forward_backward", "loss"),
      metrics: numbers(result.metrics, "forward_backward"),
    };
  }

  async optimStep(optim: OptimParams): Promise<OptimStepResult> {
    this.assertOpen();
    const r = await this.trainer.call(
      "optim_step",
      { ...withOptimDefaults(optim) },
      {
        timeoutMs: this.timeoutMs,
      },
    );
    this.gradPending = false;
    const gradNorm = num(r.gradNorm, "optim_step", "gradNorm");
    this.optimizerStep = num(r.step, "optim_step", "step");
    return { gradNorm, step: this.optimizerStep, metrics: { "optim/grad_norm": gradNorm } };
  }

  async computeLogprobs(datums: Pick<Datum, "tokens">[]): Promise<number[][]> {
    this.assertOpen();
    checkTokenRows(datums, this.limits);
    if (datums.length === 0) return [];
    const { values, lengths } = flatRows(datums.map((d) => d.tokens));
    const { tensors } = await callWithTensors(
      this.trainer,
      "compute_logprobs",
      {},
      { tokens: int32(values), lengths: int32(lengths) },
      { timeoutMs: this.timeoutMs },
    );
    if (!tensors) throw new Error("the worker's compute_logprobs reply names no tensors");
    return splitRows(expectTensor(tensors, "logprobs", "F32", "compute_logprobs"), lengths);
  }

  /** Exports the trainer's weights as `version` and loads them into a running sampler. */
  private async publish(version: number): Promise<void> {
    if (this.config.sampler.engine !== "torch") {
      // pushed to every server first; the version advances only once all of them serve it
      await (await this.startExternal()).publish(this.trainer, version, this.timeoutMs);
      this.version = version;
      return;
    }
    const dir = join(this.trainer.exchange, `weights-${++this.exports}`);
    const r = await this.trainer.call("export_weights", { dir }, { timeoutMs: this.timeoutMs });
    const kind = r.kind === "lora" ? "lora" : "full";
    await this.useSamplerWeights({ from: "export", dir, kind }, version);
    if (this.samplerServer || this.samplerStarting) {
      const s = await this.startSampler();
      await s.setWeights(dir, kind, version);
    }
  }

  /** Records what a sampler loads from now on (removing a superseded export) and its version. */
  private async useSamplerWeights(
    w: TorchBackend["samplerWeights"],
    version: number,
  ): Promise<void> {
    const previous = this.samplerWeights;
    this.samplerWeights = w;
    this.version = version;
    if (previous.from === "export") await rm(previous.dir, { recursive: true, force: true });
  }

  async saveForSampler(): Promise<{ weightVersion: number }> {
    this.assertOpen();
    await this.publish(this.version + 1);
    return { weightVersion: this.version };
  }

  async save(dir: string): Promise<void> {
    this.assertOpen();
    if (this.gradPending)
      throw new Error(
        "save(): gradients were accumulated since the last optimStep(); call optimStep() first (a checkpoint holds no gradients)",
      );
    const o = this.origin;
    await saveTorchCheckpoint(
      dir,
      {
        weightVersion: this.version,
        step: this.optimizerStep,
        kind: o.kind,
        baseModel: o.baseModel,
        lora: o.lora,
        dtype: this.info.dtype,
        reference: { model: this.reference },
      },
      async (tmp) => {
        const r = await this.trainer.call("save", { dir: tmp }, { timeoutMs: this.timeoutMs });
        return Array.isArray(r.files) ? r.files.map(String) : [];
      },
    );
  }

  async load(dir: string): Promise<void> {
    this.assertOpen();
    const root = resolve(dir);
    const m = await readTorchManifest(root);
    const o = this.origin;
    if (m.kind !== o.kind || !sameLora(m.lora, o.lora) || m.baseModel !== o.baseModel)
      throw new CheckpointError(
        `${root} holds a ${m.kind} fine-tune of ${m.baseModel}${m.lora ? ` (LoRA ${JSON.stringify(m.lora)})` : ""}; this backend trains a ${o.kind} fine-tune of ${o.baseModel}${o.lora ? ` (LoRA ${JSON.stringify(o.lora)})` : ""}: create a backend from it instead`,
      );
    if (m.reference.model !== this.reference) await this.reinitOn(m.reference.model, root);
    const r = await this.trainer.call("load", { dir: root }, { timeoutMs: this.timeoutMs });
    this.optimizerStep = num(r.step, "load", "step");
    this.gradPending = false;
    // a running sampler needs an export; one that starts later loads the checkpoint as it is
    if (this.samplerServer || this.samplerStarting || this.externalStarting)
      await this.publish(m.weightVersion);
    else
      await this.useSamplerWeights(
        m.kind === "full"
          ? { from: "model", model: root, adapter: null }
          : { from: "model", model: m.baseModel, adapter: root },
        m.weightVersion,
      );
  }

  /**
   * A full fine-tune resumed from a checkpoint whose KL reference is not this backend's (a run
   * created from its own latest step): init again on that reference, so the worker's frozen
   * reference is the run's, as on the local backend; load() then restores the weights.
   */
  private async reinitOn(reference: string, checkpoint: string): Promise<void> {
    if (isAbsolute(reference) && !existsSync(reference))
      throw new CheckpointError(
        `${checkpoint}'s KL reference policy ${reference} no longer exists; restore it, or create a backend from the checkpoint (which then is its own reference)`,
      );
    await initTrainer(this.trainer, this.config, this.origin, reference);
    this.reference = reference;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const s = this.samplerServer ?? (await this.samplerStarting?.catch(() => undefined));
    const ext = await this.externalStarting?.catch(() => undefined);
    await Promise.all([s?.close(), ext?.close(), this.trainer.close()]);
  }
}

/** A number of a reply; JSON's null is how the worker sends NaN and ±Infinity. */
function num(v: unknown, method: string, key: string): number {
  if (v === null) return Number.NaN;
  if (typeof v !== "number")
    throw new Error(`the worker's ${method} reply has ${key} ${JSON.stringify(v)}, not a number`);
  return v;
}

/** A reply's metrics, every value a number. */
function numbers(v: unknown, method: string): Record<string, number> {
  if (typeof v !== "object" || v === null)
    throw new Error(`the worker's ${method} reply has no metrics object`);
  const out: Record<string, number> = {};
  for (const [k, x] of Object.entries(v)) out[k] = num(x, method, `metric ${k}`);
  return out;
}
