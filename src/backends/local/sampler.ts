/**
 * The local backend's sampler: the embedded GPT in worker threads (sampler-worker.ts, one model
 * replica each) behind the shared OpenAI/vLLM front end (backends/serving/server.ts), so the
 * gateway (upstream kind `vllm`) treats it exactly as it treats vLLM.
 *
 *   const s = await LocalSampler.start({ config, params });      // s.baseURL → http://127.0.0.1:P/v1
 *   await s.setWeights(newParams, 2);                            // hot swap, no restart
 *
 * Each worker is a {@link GeneratorLane}: it runs one batched generate() call at a time and posts
 * every decode step's tokens on its progress port as they are sampled. The front end does the
 * rest (routes, request checks, batching, response shapes); see server.ts for what it answers.
 *
 * Logprobs: the reported logprob of a sampled token is log-softmax of the raw logits (temperature
 * 1, no top-k/top-p) — what the trainer recomputes as log π_θ — not the logprob under the
 * temperature-scaled, truncated distribution that was sampled from.
 */
import { MessageChannel, type MessagePort } from "node:worker_threads";
import type {
  GenerateBatch,
  GenerateResult,
  GenerateStep,
  Generator,
  GeneratorLane,
} from "../serving/generator.js";
import type { SamplerMetrics } from "../serving/scheduler.js";
import { checkBatchingOptions, SamplerServer } from "../serving/server.js";
import type { ServedCheckpoint } from "../spi.js";
import { renderChat } from "./chat-format.js";
import type { LocalBackendConfig } from "./config.js";
import { type GptConfig, gptParamLayout } from "./model.js";
import type { ProgressMessage, SamplerBatch, SamplerWorkerData } from "./sampler-worker.js";
import { byteTokenizer } from "./tokenizer.js";
import { WorkerClient } from "./worker-rpc.js";

export interface LocalSamplerOptions {
  config: GptConfig;
  /** Flat parameters (the layout of `gptParamLayout(config)`); copied to every worker. */
  params: Float32Array;
  weightVersion?: number;
  /** The served model name (default "rllm-local"); requests naming another model get 404. */
  modelName?: string;
  host?: string;
  /** 0 (default): an ephemeral port. */
  port?: number;
  /** Worker threads, each with its own model replica (default 1). */
  workers?: number;
  /** Most sequences (prompts × n) in one batched generate call (default 64). */
  maxBatch?: number;
  /** How long the first request of an idle queue waits for others to batch with (default 2). */
  batchWindowMs?: number;
}

/** One sampler worker thread as a lane of the front end. */
class WorkerLane implements GeneratorLane {
  alive = true;
  private readonly steps = new Map<number, (step: GenerateStep) => void>();
  private batchSeq = 0;

  private constructor(
    readonly client: WorkerClient,
    readonly port: MessagePort,
    /** The weights the worker will have for the next call posted to it. */
    public weightVersion: number,
  ) {
    port.on("message", ({ batchId, ...step }: ProgressMessage) => this.steps.get(batchId)?.(step));
    port.unref();
  }

  static async start(data: Omit<SamplerWorkerData, "progress">): Promise<WorkerLane> {
    const { port1, port2 } = new MessageChannel();
    let client: WorkerClient;
    try {
      client = await WorkerClient.start("sampler-worker", { ...data, progress: port2 }, [port2]);
    } catch (e) {
      port1.close();
      throw e;
    }
    return new WorkerLane(client, port1, data.weightVersion);
  }

  async generate(
    batch: GenerateBatch,
    onStep: (step: GenerateStep) => void,
  ): Promise<GenerateResult> {
    const batchId = ++this.batchSeq;
    this.steps.set(batchId, onStep);
    try {
      return await this.client.call<GenerateResult>("generate", {
        batchId,
        ...batch,
      } satisfies SamplerBatch);
    } catch (e) {
      // a handler's error keeps its own name; a dead worker's is WorkerCallError
      if (e instanceof Error && e.name === "WorkerCallError") this.alive = false;
      throw e;
    } finally {
      this.steps.delete(batchId);
    }
  }

  /** Calls run in order on a worker: everything posted after this sees the new weights. */
  setWeights(params: Float32Array, weightVersion: number): Promise<unknown> {
    this.weightVersion = weightVersion;
    return this.client.call("setWeights", { params, weightVersion });
  }

  async close(): Promise<void> {
    this.port.close();
    await this.client.close();
  }
}

/** The worker lanes as one generator: the weights of requests admitted now, and setWeights. */
class WorkerGenerator implements Generator {
  constructor(
    readonly lanes: WorkerLane[],
    public weightVersion: number,
  ) {}
}

export class LocalSampler {
  private closed = false;

  private constructor(
    readonly config: GptConfig,
    private readonly generator: WorkerGenerator,
    private readonly server: SamplerServer,
  ) {}

  static async start(opts: LocalSamplerOptions): Promise<LocalSampler> {
    const workers = opts.workers ?? 1;
    if (!Number.isInteger(workers) || workers < 1)
      throw new RangeError(`workers must be an integer ≥ 1, got ${workers}`);
    checkBatchingOptions(opts);
    checkParams(opts.config, opts.params, "LocalSampler.start");
    const weightVersion = opts.weightVersion ?? 0;
    const started = await Promise.allSettled(
      Array.from({ length: workers }, () =>
        WorkerLane.start({ config: opts.config, params: opts.params, weightVersion }),
      ),
    );
    const lanes = started.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
    const generator = new WorkerGenerator(lanes, weightVersion);
    try {
      const failed = started.find((r) => r.status === "rejected");
      if (failed) throw failed.reason;
      const server = await SamplerServer.start({
        generator,
        tokenizer: byteTokenizer,
        renderChat,
        maxSeqLen: opts.config.maxSeqLen,
        modelName: opts.modelName ?? "rllm-local",
        ...(opts.host !== undefined ? { host: opts.host } : {}),
        ...(opts.port !== undefined ? { port: opts.port } : {}),
        ...(opts.maxBatch !== undefined ? { maxBatch: opts.maxBatch } : {}),
        ...(opts.batchWindowMs !== undefined ? { batchWindowMs: opts.batchWindowMs } : {}),
      });
      return new LocalSampler(opts.config, generator, server);
    } catch (e) {
      await Promise.all(lanes.map((l) => l.close()));
      throw e;
    }
  }

  get modelName(): string {
    return this.server.modelName;
  }

  /** `http://host:port/v1`, what an OpenAI client takes as its base URL. */
  get baseURL(): string {
    return this.server.baseURL;
  }

  get port(): number {
    return this.server.port;
  }

  /** The weights requests admitted from now on are served with. */
  get weightVersion(): number {
    return this.generator.weightVersion;
  }

  get metrics(): Readonly<SamplerMetrics> {
    return this.server.metrics;
  }

  /**
   * Loads new weights into every worker. Batches already running finish on the old weights;
   * every batch started after this resolves uses the new ones. The server keeps serving.
   */
  async setWeights(params: Float32Array, weightVersion: number): Promise<void> {
    if (this.closed) throw new Error("the sampler is closed");
    checkParams(this.config, params, "setWeights");
    const live = this.generator.lanes.filter((l) => l.alive);
    await Promise.all(live.map((l) => l.setWeights(params, weightVersion)));
    this.generator.weightVersion = weightVersion;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.server.close();
    await Promise.all(this.generator.lanes.map((l) => l.close()));
  }
}

function checkParams(config: GptConfig, params: Float32Array, where: string): void {
  const want = gptParamLayout(config).reduce((a, p) => a + p.size, 0);
  if (params.length !== want)
    throw new RangeError(
      `${where} got ${params.length} parameters; the model config needs ${want} (the flat layout of gptParamLayout(config))`,
    );
}

/**
 * Serves `params` (weights of `config`) as a ServedCheckpoint with the backend section's sampler
 * settings: what `rllm eval --backend local` and `rllm model serve` start.
 */
export async function serveLocalWeights(
  config: GptConfig,
  params: Float32Array,
  weightVersion: number,
  sc: LocalBackendConfig["sampler"],
): Promise<ServedCheckpoint> {
  const sampler = await LocalSampler.start({
    config,
    params,
    weightVersion,
    modelName: sc.modelName,
    workers: sc.workers,
    maxBatch: sc.maxBatch,
    batchWindowMs: sc.batchWindowMs,
    host: sc.host,
    port: sc.port,
  });
  return {
    baseURL: sampler.baseURL,
    model: sampler.modelName,
    weightVersion,
    kind: "vllm",
    close: () => sampler.close(),
  };
}
