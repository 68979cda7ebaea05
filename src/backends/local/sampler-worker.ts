/**
 * A sampler replica: one {@link Gpt} in a worker thread, running batched {@link generate} calls for
 * {@link LocalSampler} (sampler.ts) off the HTTP event loop: one lane of the serving front end.
 *
 * Ops (worker-rpc): `setWeights({params, weightVersion})` and `generate(SamplerBatch)`. Calls run
 * one at a time in arrival order, so a `setWeights` posted while a batch runs applies after that
 * batch and before every batch posted after it.
 *
 * Streaming: while a batch runs, every decode step's sampled tokens are posted on the
 * `progress` MessagePort (one message per step, {@link ProgressMessage}); the call's result is the
 * whole batch. The two travel on different channels, so each token carries its position and the
 * receiver reconciles.
 *
 * Top logprobs: generate() hands out only the sampled token's logprob, so the model is wrapped in
 * a view that keeps the logits of the latest prefill/decodeStep and which row belongs to which
 * sequence; the onToken callback reads the alternatives from there (same log-softmax as generate).
 */
import type { MessagePort } from "node:worker_threads";
import type {
  GenerateBatch,
  GenerateResult,
  GenerateStep,
  TopEntries,
} from "../serving/generator.js";
import { generate, logSumExp } from "./generate.js";
import { Gpt, type GptConfig } from "./model.js";
import { serveWorker, workerInput } from "./worker-rpc.js";

export interface SamplerWorkerData {
  config: GptConfig;
  params: Float32Array;
  weightVersion: number;
  progress: MessagePort;
}

/** One batched generate call of the front end, numbered so its progress finds it. */
export interface SamplerBatch extends GenerateBatch {
  batchId: number;
}

/** One decode step's tokens of batch `batchId`. */
export interface ProgressMessage extends GenerateStep {
  batchId: number;
}

type SamplerBatchResult = GenerateResult;

/** The k most likely tokens of a logits row (ties: lower id first) with their logprobs. */
function topOf(z: Float32Array, off: number, V: number, k: number): TopEntries {
  const logZ = logSumExp(z, off, V);
  const best: number[] = [];
  for (let j = 0; j < V; j++) {
    if (best.length === k && z[off + j]! <= z[off + best[k - 1]!]!) continue;
    let at = best.length;
    while (at > 0 && z[off + best[at - 1]!]! < z[off + j]!) at--;
    best.splice(at, 0, j);
    if (best.length > k) best.pop();
  }
  return best.map((id) => [id, Math.fround(z[off + id]! - logZ)]);
}

const { config, params, weightVersion, progress } = workerInput<SamplerWorkerData>();
const model = new Gpt(config);
model.paramData.set(params);
let version = weightVersion;

function runBatch(b: SamplerBatch): SamplerBatchResult {
  const V = config.vocabSize;
  // the latest logits and, per sequence, its row in them (generate feeds rows in this order)
  let logits: Float32Array = new Float32Array(0);
  const rowOf = new Int32Array(b.prompts.length);
  let step: ProgressMessage = emptyStep(b.batchId);
  const tops: TopEntries[][] = b.prompts.map(() => []);
  const flush = () => {
    if (step.seqs.length > 0) progress.postMessage(step);
    step = emptyStep(b.batchId);
  };
  // prefill's row s is sequence s (the server admits only prompts shorter than maxSeqLen, so
  // generate() drops none before its first step); decodeStep names its rows
  const prefill = (prompts: readonly (readonly number[])[], capacity?: number): Float32Array => {
    logits = model.prefill(prompts, capacity);
    for (let s = 0; s < prompts.length; s++) rowOf[s] = s;
    return logits;
  };
  const decodeStep = (tokens: Int32Array, rows?: Int32Array): Float32Array => {
    flush(); // every token of the previous step has been sampled
    logits = model.decodeStep(tokens, rows);
    for (let r = 0; r < tokens.length; r++) rowOf[rows ? rows[r]! : r] = r;
    return logits;
  };
  // the model as generate() sees it: these two calls observed, everything else the model's own
  const view = new Proxy(model, {
    get(target, prop) {
      if (prop === "prefill") return prefill;
      if (prop === "decodeStep") return decodeStep;
      const v: unknown = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  const seqs = generate(view, {
    prompts: b.prompts,
    maxTokens: b.maxTokens,
    temperature: b.temperature,
    topP: b.topP,
    topK: b.topK,
    seed: b.seeds,
    n: 1,
    stopTokenIds: b.stopTokenIds,
    stopSequences: b.stopSequences,
    onToken(s, token, logprob) {
      step.seqs.push(s);
      step.pos.push(tops[s]!.length);
      step.tokens.push(token);
      step.logprobs.push(logprob);
      if (b.topLogprobs > 0) {
        const t = topOf(logits, rowOf[s]! * V, V, b.topLogprobs);
        tops[s]!.push(t);
        step.top!.push(t);
      } else tops[s]!.push([]);
    },
  });
  flush();
  return {
    weightVersion: version,
    sequences: seqs.map((q, s) => ({
      tokenIds: q.tokenIds,
      logprobs: q.logprobs,
      top: b.topLogprobs > 0 ? tops[s]! : null,
      finishReason: q.finishReason,
      stopReason:
        typeof q.stopReason === "number" || typeof q.stopReason === "string" ? q.stopReason : null,
    })),
  };

  function emptyStep(batchId: number): ProgressMessage {
    return {
      batchId,
      seqs: [],
      pos: [],
      tokens: [],
      logprobs: [],
      top: b.topLogprobs > 0 ? [] : null,
    };
  }
}

serveWorker({
  setWeights(p: { params: Float32Array; weightVersion: number }) {
    if (p.params.length !== model.paramData.length)
      throw new RangeError(
        `setWeights got ${p.params.length} parameters; the model has ${model.paramData.length}`,
      );
    model.paramData.set(p.params);
    version = p.weightVersion;
    return version;
  },
  generate: (b: SamplerBatch) => runBatch(b),
});
