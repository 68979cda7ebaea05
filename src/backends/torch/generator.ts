/**
 * The torch backend's sampler: a sampler worker (python/PROTOCOL.md, role "sampler") behind the
 * shared OpenAI/vLLM front end (backends/serving/server.ts), with the model directory's own
 * tokenizer and chat template (hf/serving.ts).
 *
 *   const s = await TorchSampler.start({ worker, servingDir, maxSeqLen, weightVersion, ... });
 *   s.baseURL                                    // http://127.0.0.1:P/v1
 *   await s.setWeights(dir, "lora", 3);          // what the trainer's export_weights wrote
 *
 * Lanes: `lanes` {@link TorchLane}s share the one worker; each runs one `generate` call at a time
 * and the worker merges every running call into one decode batch, so a request joins the running
 * batch instead of waiting for it to end. A lane's steps are the worker's `step` events for its
 * call; its result is the reply's tensors (the truth; steps may be missed).
 *
 * Stop strings are found here, on text: the worker is token-in/token-out. Each sequence's tokens
 * are decoded as they arrive (the tokenizer's decodeStream); the first token after which the text
 * contains a stop string ends the sequence there — its later tokens are dropped, the worker is
 * told (`stop_sequences`) so it stops spending compute on it, and stopReason is the string. A stop
 * token that ends the sequence at the same token or earlier wins, as in the front end's rule
 * (a stop token, then a stop string).
 *
 * Weight versions: set_weights goes down the same socket before any later generate, and the
 * worker applies it before admitting those, so the version a lane reports for its next batch is
 * the last one sent; each reply carries the version it actually ran with.
 */
import type {
  ChatRenderer,
  GenerateBatch,
  GenerateResult,
  GenerateStep,
  Generator,
  GeneratorLane,
  SampledSequence,
  ServingTokenizer,
  TopEntries,
} from "../serving/generator.js";
import { checkBatchingOptions, SamplerServer } from "../serving/server.js";
import type { TorchSamplerConfig } from "./config.js";
import { callWithTensors, expectTensor, flatRows, int32, int64, type Tensors } from "./tensors.js";
import type { WorkerProcess } from "./worker.js";

/** The first stop string the text of a sequence shows, found token by token. */
class StopWatch {
  private readonly decoder: ReturnType<ServingTokenizer["decodeStream"]>;
  private text = "";
  private readonly longest: number;
  /** Tokens seen; the hit's token is index `count - 1` when found. */
  count = 0;
  hit: { stop: string; tokens: number } | undefined;

  constructor(
    tokenizer: ServingTokenizer,
    private readonly stops: readonly string[],
  ) {
    this.decoder = tokenizer.decodeStream();
    this.longest = Math.max(0, ...stops.map((s) => s.length));
  }

  /** Feeds token `pos`; true when a stop string completed at it (or already had). */
  push(pos: number, token: number): boolean {
    if (this.hit) return true;
    if (pos !== this.count) return false; // a missed step: the result is rescanned
    this.count++;
    const from = Math.max(0, this.text.length - this.longest + 1);
    this.text += this.decoder.push([token]);
    const tail = this.text.slice(from);
    for (const stop of this.stops)
      if (tail.includes(stop)) {
        this.hit = { stop, tokens: this.count };
        return true;
      }
    return false;
  }
}

/** One generate call at a time on the shared worker. */
export class TorchLane implements GeneratorLane {
  constructor(private readonly owner: TorchGenerator) {}

  get alive(): boolean {
    return this.owner.worker.alive;
  }

  get weightVersion(): number {
    return this.owner.weightVersion;
  }

  generate(batch: GenerateBatch, onStep: (step: GenerateStep) => void): Promise<GenerateResult> {
    return this.owner.generate(batch, onStep);
  }
}

export class TorchGenerator implements Generator {
  readonly lanes: TorchLane[];

  constructor(
    readonly worker: WorkerProcess,
    private readonly tokenizer: ServingTokenizer,
    private readonly maxSeqLen: number,
    /** Ids ≥ this are never sampled: the tokenizer's size (a model's embedding may be larger). */
    private readonly vocabLimit: number,
    readonly callTimeoutMs: number,
    public weightVersion: number,
    lanes: number,
  ) {
    this.lanes = Array.from({ length: lanes }, () => new TorchLane(this));
  }

  async generate(
    batch: GenerateBatch,
    onStep: (step: GenerateStep) => void,
  ): Promise<GenerateResult> {
    const watches = batch.prompts.map(() => new StopWatch(this.tokenizer, batch.stopSequences));
    const watching = batch.stopSequences.length > 0;
    const { values, lengths } = flatRows(batch.prompts);
    const { result, tensors } = await callWithTensors(
      this.worker,
      "generate",
      {
        maxTokens: batch.maxTokens,
        temperature: batch.temperature,
        topP: batch.topP,
        topK: batch.topK,
        stopTokenIds: batch.stopTokenIds,
        topLogprobs: batch.topLogprobs,
        maxSeqLen: this.maxSeqLen,
        vocabLimit: this.vocabLimit,
      },
      { tokens: int32(values), lengths: int32(lengths), seeds: int64(batch.seeds) },
      {
        timeoutMs: this.callTimeoutMs,
        onEvent: (e) => {
          if (e.event !== "step") return;
          const step = toStep(e);
          if (watching) this.watchStops(step, watches, e.id as number);
          if (step.seqs.length > 0) onStep(step);
        },
      },
    );
    const sequences = readSequences(result, tensors, batch);
    if (watching)
      sequences.forEach((s, i) => {
        applyStop(s, watches[i]!);
      });
    if (!Number.isInteger(result.weightVersion))
      throw new Error(
        `the worker's generate reply has weightVersion ${JSON.stringify(result.weightVersion)}, not an integer`,
      );
    return { weightVersion: result.weightVersion as number, sequences };
  }

  /** Drops the tokens of sequences past their stop string; tells the worker of new hits. */
  private watchStops(step: GenerateStep, watches: StopWatch[], request: number): void {
    const ended: number[] = [];
    const keep: number[] = [];
    step.seqs.forEach((s, i) => {
      const w = watches[s];
      if (!w) return;
      const wasHit = w.hit !== undefined;
      if (wasHit && step.pos[i]! >= w.hit!.tokens) return; // after the stop: dropped
      keep.push(i);
      if (!wasHit && w.push(step.pos[i]!, step.tokens[i]!)) ended.push(s);
    });
    if (keep.length < step.seqs.length) {
      const pick = <T>(xs: T[]) => keep.map((i) => xs[i]!);
      step.seqs = pick(step.seqs);
      step.pos = pick(step.pos);
      step.tokens = pick(step.tokens);
      step.logprobs = pick(step.logprobs);
      if (step.top) step.top = pick(step.top);
    }
    if (ended.length > 0)
      // the request may end before this arrives: the worker's error then changes nothing
      this.worker
        .call("stop_sequences", { request, seqs: ended }, { timeoutMs: this.callTimeoutMs })
        .catch(() => undefined);
  }
}

function toStep(e: Record<string, unknown>): GenerateStep {
  const top = e.top as [number, number][][] | null | undefined;
  return {
    seqs: e.seqs as number[],
    pos: e.pos as number[],
    tokens: e.tokens as number[],
    logprobs: e.logprobs as number[],
    top: top ? top.map((entries) => entries.map(([id, lp]) => [id, lp] as [number, number])) : null,
  };
}

/** The reply's tensors and endings as one SampledSequence per prompt. */
function readSequences(
  result: Record<string, unknown>,
  tensors: Tensors | null,
  batch: GenerateBatch,
): SampledSequence[] {
  if (!tensors) throw new Error("the worker's generate reply names no tensors");
  const ids = expectTensor(tensors, "token_ids", "I32", "generate");
  const lengths = expectTensor(tensors, "lengths", "I32", "generate");
  const logprobs = expectTensor(tensors, "logprobs", "F32", "generate");
  const finish = result.finish as { reason: "stop" | "length"; stopToken: number | null }[];
  if (
    lengths.length !== batch.prompts.length ||
    !Array.isArray(finish) ||
    finish.length !== lengths.length
  )
    throw new Error(
      `the worker's generate reply has ${lengths.length} sequences and ${Array.isArray(finish) ? finish.length : "no"} endings for ${batch.prompts.length} prompts`,
    );
  const k = batch.topLogprobs;
  const topIds = k > 0 ? expectTensor(tensors, "top_ids", "I32", "generate") : undefined;
  const topLps = k > 0 ? expectTensor(tensors, "top_logprobs", "F32", "generate") : undefined;
  const out: SampledSequence[] = [];
  let at = 0;
  for (let s = 0; s < lengths.length; s++) {
    const n = lengths[s]!;
    let top: TopEntries[] | null = null;
    if (topIds && topLps) {
      top = [];
      for (let t = at; t < at + n; t++)
        top.push(Array.from({ length: k }, (_, j) => [topIds[t * k + j]!, topLps[t * k + j]!]));
    }
    const f = finish[s]!;
    out.push({
      tokenIds: Array.from(ids.subarray(at, at + n)),
      logprobs: Array.from(logprobs.subarray(at, at + n)),
      top,
      finishReason: f.reason,
      stopReason: f.reason === "stop" ? f.stopToken : null,
    });
    at += n;
  }
  return out;
}

/** Trims `s` at the stop string its text shows first (rescanning tokens the steps missed). */
function applyStop(s: SampledSequence, w: StopWatch): void {
  for (let pos = w.count; !w.hit && pos < s.tokenIds.length; pos++) w.push(pos, s.tokenIds[pos]!);
  if (!w.hit) return;
  const n = w.hit.tokens;
  const tokenFirst =
    s.finishReason === "stop" && typeof s.stopReason === "number" && s.tokenIds.length <= n;
  if (tokenFirst || n > s.tokenIds.length) return;
  s.tokenIds.length = n;
  s.logprobs.length = n;
  if (s.top) s.top.length = n;
  s.finishReason = "stop";
  s.stopReason = w.hit.stop;
}

export interface TorchSamplerOptions {
  /** An initialised sampler worker; the sampler owns it (close() closes it). */
  worker: WorkerProcess;
  tokenizer: ServingTokenizer;
  renderChat: ChatRenderer;
  /**
   * The model's vocabulary size (init's vocabSize). Embeddings are often padded past the tokenizer
   * (Qwen3: 151936 rows for 151669 tokens): the worker samples only ids both know.
   */
  vocabSize: number;
  maxSeqLen: number;
  weightVersion: number;
  callTimeoutMs: number;
  /** The in-process sampler's section (`engine` aside). */
  config: Omit<TorchSamplerConfig, "engine">;
}

/** The sampler worker behind the HTTP front end; setWeights hot-swaps its weights. */
export class TorchSampler {
  private closed = false;

  private constructor(
    private readonly generator: TorchGenerator,
    private readonly server: SamplerServer,
  ) {}

  static async start(o: TorchSamplerOptions): Promise<TorchSampler> {
    const c = o.config;
    checkBatchingOptions(c);
    const tokenizer = o.tokenizer;
    const generator = new TorchGenerator(
      o.worker,
      tokenizer,
      o.maxSeqLen,
      Math.min(tokenizer.vocabSize, o.vocabSize),
      o.callTimeoutMs,
      o.weightVersion,
      c.lanes,
    );
    const server = await SamplerServer.start({
      generator,
      tokenizer,
      renderChat: o.renderChat,
      maxSeqLen: o.maxSeqLen,
      modelName: c.modelName,
      host: c.host,
      port: c.port,
      maxBatch: c.maxBatch,
      batchWindowMs: c.batchWindowMs,
    });
    return new TorchSampler(generator, server);
  }

  get baseURL(): string {
    return this.server.baseURL;
  }

  get modelName(): string {
    return this.server.modelName;
  }

  get weightVersion(): number {
    return this.generator.weightVersion;
  }

  /** Loads what export_weights wrote to `dir`; requests admitted from now on run with it. */
  async setWeights(dir: string, kind: "lora" | "full", weightVersion: number): Promise<void> {
    if (this.closed) throw new Error("the torch sampler is closed");
    const previous = this.generator.weightVersion;
    this.generator.weightVersion = weightVersion;
    try {
      await this.generator.worker.call(
        "set_weights",
        { dir, kind, weightVersion },
        { timeoutMs: this.generator.callTimeoutMs },
      );
    } catch (e) {
      this.generator.weightVersion = previous;
      throw e;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.server.close();
    await this.generator.worker.close();
  }
}
