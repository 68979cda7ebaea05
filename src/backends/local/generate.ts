/**
 * Batched sampling from the local GPT with its KV cache ({@link Gpt.prefill} /
 * {@link Gpt.decodeStep}): all sequences advance together, one decode step per token, and a
 * finished sequence drops out of the batch. Identical prompts (n > 1, or a group's attempts sent
 * as separate requests) are prefilled once and share the result.
 *
 * Two logprobs per sampled token:
 *   - `logprobs`: log-softmax of the raw logits (temperature 1, no top-k/top-p) — the quantity the
 *     trainer recomputes (`computeLogprobs`, {@link Gpt.tokenLogprobs}) as log π_θ, so comparing the
 *     two measures the train/inference mismatch (zero up to float rounding here: same kernels);
 *   - `samplingLogprobs`: log-probability under the distribution actually sampled from (after
 *     temperature, top-k and top-p, renormalised); 0 for greedy (temperature 0: a point mass).
 * With temperature 1 and no truncation the two agree.
 *
 * Determinism: every sequence has its own PRNG (mulberry32), seeded from its prompt's seed and
 * its sample index, so a sequence's tokens do not depend on what else shares the batch — batched
 * and one-at-a-time generation give identical results for the same seeds.
 *
 * Stops: `tokenIds` keeps every sampled token, including the stop token or the tokens of a stop
 * sequence (the trainer must see exactly what was sampled); trimming text is the server's job.
 */
import { mixSeed, mulberry32 } from "../../random.js";
import type { Gpt } from "./model.js";
import { byteTokenizer } from "./tokenizer.js";

export interface GenerateOptions {
  /** Token ids of each prompt (≥ 1 token each); lengths may differ. */
  prompts: readonly (readonly number[])[];
  /**
   * Most tokens to sample per sequence. A sequence also ends ("length") when prompt + completion
   * reaches the model's maxSeqLen, the longest the trainer can score.
   */
  maxTokens: number;
  /** Softmax temperature (default 1); 0 samples greedily (argmax, lowest id on ties). */
  temperature?: number;
  /** Nucleus sampling: keep the smallest most-likely set with mass ≥ topP (default 1: all). */
  topP?: number;
  /** Keep only the topK most likely tokens (default 0: all). Applied before topP, as in vLLM. */
  topK?: number;
  /** One seed for the call (prompt i then uses a seed derived from it and i), or one per prompt. */
  seed?: number | readonly number[];
  /** Token ids that end a sequence (finishReason "stop"); the token is kept in tokenIds. */
  stopTokenIds?: readonly number[];
  /** Token sequences (or strings, encoded with `tokenizer`) that end a sequence once sampled. */
  stopSequences?: readonly (readonly number[] | string)[];
  /** Encodes string stop sequences (default: the byte-level tokenizer, specials allowed). */
  tokenizer?: { encode(text: string): number[] };
  /** Samples per prompt (default 1); the output holds prompt i's samples at i·n … i·n + n − 1. */
  n?: number;
  /** Called for each sampled token as soon as it exists (logprob: the temperature-1 one). */
  onToken?: (seqIndex: number, tokenId: number, logprob: number) => void;
}

export interface GeneratedSequence {
  /** Index of the prompt this sample continues. */
  promptIndex: number;
  tokenIds: number[];
  /** log π(token) under the raw logits at temperature 1 (what the trainer recomputes). */
  logprobs: number[];
  /** log-probability under the distribution sampled from (temperature, top-k, top-p). */
  samplingLogprobs: number[];
  finishReason: "stop" | "length";
  /** The stop token id or stop sequence (as given) that ended it; null for "length". */
  stopReason: number | string | readonly number[] | null;
}

/** Scratch reused across the rows of one call. */
interface Scratch {
  w: Float64Array; // scaled logits, then probabilities
  order: Int32Array; // token ids by decreasing logit
  keep: Uint8Array;
  /**
   * Set by sampleRow: the row's max logit and Σ_j w[j] over every token in id order. At
   * temperature 1, w[j] = exp(z_j − max), so max + log(sum) is exactly what logSumExp returns
   * (the same numbers added in the same order), and the row needs no second pass of exp.
   */
  max: number;
  sum: number;
}

/**
 * log Z of a logits row, computed as the training forward's log-softmax does (max, then a double
 * sum of exp), so z_y − log Z is the trainer's logprob to within float32 rounding. The one copy:
 * the sampler worker's top-logprobs use it too, so every logprob the sampler reports agrees.
 */
export function logSumExp(z: Float32Array, off: number, V: number): number {
  let m = Number.NEGATIVE_INFINITY;
  for (let j = 0; j < V; j++) m = Math.max(m, z[off + j]!);
  let s = 0;
  for (let j = 0; j < V; j++) s += Math.exp(z[off + j]! - m);
  return m + Math.log(s);
}

function argmax(z: Float32Array, off: number, V: number): number {
  let best = 0;
  for (let j = 1; j < V; j++) if (z[off + j]! > z[off + best]!) best = j;
  return best;
}

/**
 * Samples one token from logits row `off` under temperature / top-k / top-p; returns the token
 * and its log-probability under that (renormalised) distribution.
 */
function sampleRow(
  z: Float32Array,
  off: number,
  V: number,
  temperature: number,
  topK: number,
  topP: number,
  u: number,
  s: Scratch,
): { token: number; logprob: number } {
  let m = Number.NEGATIVE_INFINITY;
  for (let j = 0; j < V; j++) m = Math.max(m, z[off + j]!);
  const w = s.w;
  let all = 0;
  for (let j = 0; j < V; j++) {
    w[j] = Math.exp((z[off + j]! - m) / temperature);
    all += w[j]!;
  }
  s.max = m;
  s.sum = all;
  const truncK = topK > 0 && topK < V;
  if (!truncK && topP >= 1) {
    // every token kept: the loops below without the mask (the same sums in the same order)
    const target = u * all;
    let acc = 0;
    let token = -1;
    for (let j = 0; j < V; j++) {
      token = j;
      acc += w[j]!;
      if (acc > target) break;
    }
    return { token, logprob: Math.log(w[token]! / all) };
  }
  const keep = s.keep;
  keep.fill(1);
  if (truncK || topP < 1) {
    const order = s.order;
    for (let j = 0; j < V; j++) order[j] = j;
    // stable by id on ties, so the kept set is deterministic
    order.sort((a, b) => w[b]! - w[a]! || a - b);
    const k = truncK ? topK : V;
    let total = 0;
    for (let i = 0; i < k; i++) total += w[order[i]!]!;
    let cum = 0;
    let last = k;
    if (topP < 1)
      for (let i = 0; i < k; i++) {
        cum += w[order[i]!]!;
        if (cum >= topP * total) {
          last = i + 1;
          break;
        }
      }
    for (let i = last; i < V; i++) keep[order[i]!] = 0;
  }
  let sum = 0;
  for (let j = 0; j < V; j++) if (keep[j]) sum += w[j]!;
  // inverse CDF in id order over the kept tokens
  const target = u * sum;
  let acc = 0;
  let token = -1;
  for (let j = 0; j < V; j++) {
    if (!keep[j]) continue;
    token = j;
    acc += w[j]!;
    if (acc > target) break;
  }
  return { token, logprob: Math.log(w[token]! / sum) };
}

/**
 * Generates continuations of `prompts` (n samples each) with the model's KV cache. Synchronous
 * and CPU-bound: callers that must not block an event loop run it in a worker thread.
 */
export function generate(model: Gpt, options: GenerateOptions): GeneratedSequence[] {
  const { prompts, maxTokens } = options;
  const temperature = options.temperature ?? 1;
  const topP = options.topP ?? 1;
  const topK = options.topK ?? 0;
  const n = options.n ?? 1;
  const { vocabSize: V, maxSeqLen } = model.config;
  if (!(temperature >= 0)) throw new RangeError(`temperature must be ≥ 0, got ${temperature}`);
  if (!(topP > 0 && topP <= 1)) throw new RangeError(`topP must be in (0, 1], got ${topP}`);
  if (!Number.isInteger(topK) || topK < 0)
    throw new RangeError(`topK must be an integer ≥ 0, got ${topK}`);
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`n must be an integer ≥ 1, got ${n}`);
  if (!Number.isInteger(maxTokens) || maxTokens < 0)
    throw new RangeError(`maxTokens must be an integer ≥ 0, got ${maxTokens}`);
  const seeds = options.seed;
  if (Array.isArray(seeds) && seeds.length !== prompts.length)
    throw new RangeError(`seed has ${seeds.length} entries for ${prompts.length} prompts`);
  for (const [i, p] of prompts.entries()) {
    if (p.length === 0) throw new RangeError(`prompt ${i} is empty`);
    if (p.length > maxSeqLen)
      throw new RangeError(`prompt ${i} has ${p.length} tokens; maxSeqLen is ${maxSeqLen}`);
  }
  const tokenizer = options.tokenizer ?? byteTokenizer;
  const stopIds = new Set(options.stopTokenIds ?? []);
  const stopSeqs = (options.stopSequences ?? [])
    .map((s) => ({ given: s, ids: typeof s === "string" ? tokenizer.encode(s) : [...s] }))
    .filter((s) => s.ids.length > 0);

  const S = prompts.length * n;
  const out: GeneratedSequence[] = [];
  const rand: (() => number)[] = [];
  const seqPrompts: (readonly number[])[] = [];
  for (let s = 0; s < S; s++) {
    const i = Math.floor(s / n);
    const promptSeed =
      typeof seeds === "number" || seeds === undefined
        ? mixSeed(seeds ?? 0, i)
        : (seeds as readonly number[])[i]!;
    rand.push(mulberry32(mixSeed(promptSeed, s - i * n)));
    seqPrompts.push(prompts[i]!);
    out.push({
      promptIndex: i,
      tokenIds: [],
      logprobs: [],
      samplingLogprobs: [],
      finishReason: "length",
      stopReason: null,
    });
  }
  if (S === 0 || maxTokens === 0) return out;

  // the cache holds what is fed back: the prompt and all sampled tokens but the last
  const longest = Math.max(...prompts.map((p) => p.length));
  const capacity = Math.min(maxSeqLen, longest + maxTokens - 1);
  let logits = model.prefill(seqPrompts, Math.max(capacity, longest));
  // a prompt that already fills the context gets no token: prompt + completion must stay
  // ≤ maxSeqLen for the trainer to score it
  let rows = Int32Array.from(
    Array.from({ length: S }, (_, s) => s).filter((s) => seqPrompts[s]!.length < maxSeqLen),
  );
  const scratch: Scratch = {
    w: new Float64Array(V),
    order: new Int32Array(V),
    keep: new Uint8Array(V),
    max: 0,
    sum: 0,
  };
  while (rows.length > 0) {
    const nextRows: number[] = [];
    const nextTokens: number[] = [];
    for (let r = 0; r < rows.length; r++) {
      const s = rows[r]!;
      const seq = out[s]!;
      const off = r * V;
      // draw u even when greedy, so a sequence's stream does not depend on the settings
      const u = rand[s]!();
      let token: number;
      let samplingLogprob: number;
      if (temperature === 0) {
        token = argmax(logits, off, V);
        samplingLogprob = 0;
      } else {
        const r2 = sampleRow(logits, off, V, temperature, topK, topP, u, scratch);
        token = r2.token;
        samplingLogprob = r2.logprob;
      }
      // rounded to float32 as the trainer's logprob buffer is, so the two agree exactly; at
      // temperature 1 sampleRow has already summed exp(z − max) (see Scratch)
      const lz =
        temperature === 1 ? scratch.max + Math.log(scratch.sum) : logSumExp(logits, off, V);
      const logprob = Math.fround(logits[off + token]! - lz);
      seq.tokenIds.push(token);
      seq.logprobs.push(logprob);
      seq.samplingLogprobs.push(samplingLogprob);
      options.onToken?.(s, token, logprob);

      let done = false;
      if (stopIds.has(token)) {
        seq.finishReason = "stop";
        seq.stopReason = token;
        done = true;
      } else {
        const ids = seq.tokenIds;
        for (const st of stopSeqs) {
          const L = st.ids.length;
          if (ids.length < L) continue;
          let match = true;
          for (let j = 0; j < L && match; j++) match = ids[ids.length - L + j] === st.ids[j];
          if (match) {
            seq.finishReason = "stop";
            seq.stopReason = st.given;
            done = true;
            break;
          }
        }
      }
      // out of budget or of context: finishReason stays "length"
      const len = seq.tokenIds.length;
      if (len >= maxTokens || seqPrompts[s]!.length + len >= maxSeqLen) done = true;
      if (!done) {
        nextRows.push(s);
        nextTokens.push(token);
      }
    }
    rows = Int32Array.from(nextRows);
    if (rows.length > 0) logits = model.decodeStep(Int32Array.from(nextTokens), rows);
  }
  return out;
}
