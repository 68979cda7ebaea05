/**
 * The seam between the sampler's HTTP front end (server.ts: OpenAI/vLLM routes, request checks,
 * response and SSE shapes, continuous batching) and whatever generates tokens: the local GPT in
 * worker threads (backends/local/sampler.ts), a PyTorch worker, any token-in/token-out engine.
 *
 *   new SamplerServer({ generator, tokenizer, renderChat, maxSeqLen, ... })
 *
 * A backend supplies:
 *   - a {@link Generator}: lanes that each run one {@link GenerateBatch} at a time (a worker
 *     thread, a GPU process), posting every decode step's tokens as they are sampled;
 *   - a {@link ServingTokenizer} and a {@link ChatRenderer}: the front end renders chat prompts,
 *     encodes stop strings and text prompts, and decodes what was sampled; a generator never
 *     tokenizes (token ids in, token ids out).
 *
 * Contract of a batch:
 *   - sequence s continues `prompts[s]` (n = 1 each: the front end expands n) and draws from a
 *     random stream seeded by `seeds[s]` alone, so its tokens do not depend on its batch-mates;
 *   - it ends at a stop token (kept in its ids, finish "stop", stopReason the id), a stop string
 *     (its tokens kept, stopReason the string), `maxTokens`, or prompt + completion = the model's
 *     context length (finish "length", stopReason null);
 *   - `logprobs[k]` is log-softmax of the raw logits at temperature 1 (no top-k/top-p): the
 *     trainer's log π_θ, not the logprob under the truncated distribution sampled from;
 *   - `top`, when `topLogprobs > 0`: per position the `topLogprobs` most likely tokens with the
 *     same logprob, by decreasing logprob (ties: lower id first); null otherwise.
 * The result is the truth; steps are for streaming and may be missed or arrive after the result
 * (the front end reconciles by position).
 */
// The tokenizer and chat renderer a backend supplies live in types/ (hf/serving.ts builds them too).
export type { ChatRenderer, ServingTokenizer } from "../../types/serving.js";

/** Top alternatives of one position: [token id, temperature-1 logprob] by decreasing logprob. */
export type TopEntries = [number, number][];

/** The settings one batch shares; requests batch together only when these are equal. */
export interface SamplingSettings {
  maxTokens: number;
  temperature: number;
  topP: number;
  /** 0: every token. */
  topK: number;
  /** Sorted, unique. */
  stopTokenIds: number[];
  stopSequences: string[];
}

/** One batched generate call: every sequence is its own prompt (n = 1) with its own seed. */
export interface GenerateBatch extends SamplingSettings {
  prompts: number[][];
  seeds: number[];
  /** Alternatives to report per token (the most any request of the batch asked for). */
  topLogprobs: number;
}

/** The tokens of one decode step: entry i is token `pos[i]` of sequence `seqs[i]`. */
export interface GenerateStep {
  seqs: number[];
  pos: number[];
  tokens: number[];
  logprobs: number[];
  top: TopEntries[] | null;
}

export interface SampledSequence {
  tokenIds: number[];
  logprobs: number[];
  top: TopEntries[] | null;
  finishReason: "stop" | "length";
  stopReason: number | string | null;
}

export interface GenerateResult {
  weightVersion: number;
  sequences: SampledSequence[];
}

/** Where batches run, one at a time: a worker thread with a model replica, a GPU process. */
export interface GeneratorLane {
  /** False once the lane can run nothing more (its worker died); the front end stops using it. */
  readonly alive: boolean;
  /** The weights the next batch posted to this lane runs with (reported with its response). */
  readonly weightVersion: number;
  generate(batch: GenerateBatch, onStep: (step: GenerateStep) => void): Promise<GenerateResult>;
}

export interface Generator {
  /** The weights a request admitted now is served with (and its error reports). */
  readonly weightVersion: number;
  readonly lanes: readonly GeneratorLane[];
}
