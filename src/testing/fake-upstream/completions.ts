/**
 * `POST /v1/completions` in vLLM's, SGLang's and hosted OpenAI's shapes: a prompt is text, ids,
 * or a list of either; choice index = prompt index * n + sample; with `return_token_ids` (vLLM)
 * the prompt and sampled ids are per choice.
 */
import type http from "node:http";
import { type FakeServer, type Json, requestInfos } from "./context.js";
import { type Gen, interleave, textRange } from "./engine.js";
import { openaiGenParams, positiveInt, readStreamAndN, usageOf } from "./params.js";
import { topAlternative } from "./tokenizer.js";
import { respondingModel } from "./weights.js";
import { BadRequest, DONE, intParam, sendJson, writeStream } from "./wire.js";

/** A prompt as given: its text (decoded when ids were sent) and its ids when it was sent as ids. */
export interface GivenPrompt {
  text: string;
  ids?: number[];
}

interface CompletionsRun {
  id: string;
  /** The model the response names: the base, or the LoRA adapter the request named. */
  model: string;
  created: number;
  n: number;
  wantLogprobs: boolean;
  topK: number;
  wantIds: boolean;
  gens: Gen[];
  /** Per prompt (empty when its ids are not needed). */
  promptIdLists: number[][];
  promptTokens: number;
  completionTokens: number;
}

export function handleCompletions(
  s: FakeServer,
  body: Json,
  res: http.ServerResponse,
  destroyAfter: number,
): void {
  const prompts = readPrompts(s, body.prompt);
  const { stream, includeUsage, n } = readStreamAndN(s, body);
  const run = generateCompletions(s, body, prompts, n);
  if (!stream) sendJson(res, 200, completion(s, run));
  else writeStream(res, completionChunks(s, run, includeUsage), destroyAfter, s.config);
}

function readPrompts(s: FakeServer, prompt: unknown): GivenPrompt[] {
  if (typeof prompt === "string" && prompt) return [{ text: prompt }];
  if (Array.isArray(prompt) && prompt.length > 0) {
    if (prompt.every((x) => typeof x === "number"))
      return [{ text: s.engine.decode(prompt as number[]), ids: prompt as number[] }];
    if (prompt.every((x) => typeof x === "string"))
      return (prompt as string[]).map((t) => ({ text: t }));
    if (
      prompt.every((x) => Array.isArray(x) && x.length > 0 && x.every((y) => typeof y === "number"))
    )
      return (prompt as number[][]).map((ids) => ({ text: s.engine.decode(ids), ids }));
  }
  throw new BadRequest(
    "Either prompt or prompt_embeds must be provided and non-empty.",
    400,
    "prompt",
  );
}

function generateCompletions(
  s: FakeServer,
  body: Json,
  prompts: GivenPrompt[],
  n: number,
): CompletionsRun {
  const maxTokens = positiveInt(body.max_tokens, "max_tokens") ?? 16;
  const lpParam = intParam(body.logprobs);
  const wantLogprobs = lpParam !== undefined && body.logprobs !== null;
  const wantIds = s.dialect.tokenIds && body.return_token_ids === true;
  const p = openaiGenParams(s, body, maxTokens);
  const id = `cmpl-${s.nextHex(32)}`;
  const created = s.created();
  const gens: Gen[] = [];
  const promptIdLists: number[][] = [];
  let promptTokens = 0;
  let completionTokens = 0;
  for (let pi = 0; pi < prompts.length; pi++) {
    const pr = prompts[pi]!;
    const info = requestInfosFor(s, pr, body, pi);
    const pids = wantIds || pr.ids ? info(0).promptIds : null;
    promptIdLists.push(pids ?? []);
    promptTokens += pids ? pids.length : s.engine.count(pr.text);
    for (let c = 0; c < n; c++) {
      const g = s.engine.generate(s.respond(info(c)), p, s.dialect.appendEos, () => "");
      gens.push(g);
      completionTokens += g.ids.length;
    }
  }
  return {
    id,
    model: respondingModel(s, body),
    created,
    n,
    wantLogprobs,
    topK: wantLogprobs ? Math.max(0, lpParam!) : 0,
    wantIds,
    gens,
    promptIdLists,
    promptTokens,
    completionTokens,
  };
}

function requestInfosFor(s: FakeServer, pr: GivenPrompt, body: Json, pi: number) {
  return requestInfos(
    s,
    "completions",
    { promptText: pr.text, ...(pr.ids ? { promptIds: pr.ids } : {}) },
    body,
    pi,
  );
}

/** Completions logprobs of tokens [from, to), text offsets counted from `offset0`. */
function completionLogprobs(
  s: FakeServer,
  g: Gen,
  from: number,
  to: number,
  k: number,
  offset0: number,
) {
  const tokens: string[] = [];
  const tokenLogprobs: number[] = [];
  const top: Record<string, number>[] = [];
  const textOffset: number[] = [];
  let off = offset0;
  for (let i = from; i < to; i++) {
    const id = g.ids[i]!;
    const lp = s.engine.logprob(g, i);
    const t = s.engine.tokenText(id);
    tokens.push(t);
    tokenLogprobs.push(lp);
    // The sampled token plus the top k (at least the sampled one).
    const d: Record<string, number> = {};
    const cnt = Math.max(1, k);
    for (let r = 0; r < cnt; r++) {
      const alt = r === 0 ? id : topAlternative(id, r);
      const at = s.engine.tokenText(alt);
      if (!(at in d)) d[at] = r === 0 ? lp : lp - r * 0.75;
    }
    top.push(d);
    textOffset.push(off);
    off += t.length;
  }
  return { text_offset: textOffset, token_logprobs: tokenLogprobs, tokens, top_logprobs: top };
}

function completion(s: FakeServer, run: CompletionsRun): Json {
  const choices: Json[] = run.gens.map((g, idx) => {
    const choice: Json = {
      index: idx,
      text: g.raw.slice(0, g.L),
      logprobs: run.wantLogprobs ? completionLogprobs(s, g, 0, g.ids.length, run.topK, 0) : null,
      finish_reason: g.finish,
    };
    if (s.kind === "vllm") {
      choice.stop_reason = g.stopReason;
      choice.token_ids = run.wantIds ? g.ids : null;
      choice.prompt_logprobs = null;
      choice.prompt_token_ids = run.wantIds ? run.promptIdLists[Math.floor(idx / run.n)]! : null;
    } else if (s.dialect.matchedStop) choice.matched_stop = g.matched;
    return choice;
  });
  const out: Json = {
    id: run.id,
    object: "text_completion",
    created: run.created,
    model: run.model,
    choices,
    usage: usageOf(s, run.promptTokens, run.completionTokens),
  };
  if (s.kind === "vllm") {
    out.system_fingerprint = null;
    out.kv_transfer_params = null;
  } else if (s.kind === "openai") out.system_fingerprint = "fp_fake";
  return out;
}

function completionChunks(s: FakeServer, run: CompletionsRun, includeUsage: boolean): string[] {
  const { gens, wantIds } = run;
  const chunks: string[] = [];
  const head = `{"id":"${run.id}","object":"text_completion","created":${run.created},"model":${JSON.stringify(run.model)}`;
  const textOffsets = gens.map(() => 0);
  interleave(
    gens.map((g) => g.ids.length),
    s.config.tokensPerChunk,
    (idx, from, to, last) => {
      const g = gens[idx]!;
      const [a, b] = textRange(g, s.engine.ensureEnds(g), from, to);
      const lp = run.wantLogprobs
        ? completionLogprobs(s, g, from, to, run.topK, textOffsets[idx]!)
        : null;
      if (lp) for (const t of lp.tokens) textOffsets[idx]! += t.length;
      const choice: Json = {
        index: idx,
        text: g.raw.slice(a, b),
        logprobs: lp,
        finish_reason: last ? g.finish : null,
      };
      if (s.kind === "vllm") {
        choice.stop_reason = last ? g.stopReason : null;
        choice.prompt_token_ids =
          wantIds && from === 0 ? run.promptIdLists[Math.floor(idx / run.n)]! : null;
        choice.token_ids = wantIds ? g.ids.slice(from, to) : null;
      } else if (s.dialect.matchedStop && last) choice.matched_stop = g.matched;
      chunks.push(`data: ${head},"choices":[${JSON.stringify(choice)}]}\n\n`);
    },
  );
  if (includeUsage)
    chunks.push(
      `data: ${head},"choices":[],"usage":${JSON.stringify(usageOf(s, run.promptTokens, run.completionTokens))}}\n\n`,
    );
  chunks.push(DONE);
  return chunks;
}
