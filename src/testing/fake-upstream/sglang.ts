/**
 * SGLang's native `POST /generate`: text or ids in (one prompt or a batch), `sampling_params`
 * (one for all or one per prompt), `meta_info` with finish reason, token counts, weight version
 * and logprob triples; streamed outputs are cumulative unless the server runs with
 * `--incremental-streaming-output` (`sglangIncrementalStreaming`).
 */
import type http from "node:http";
import type { GivenPrompt } from "./completions.js";
import { type FakeServer, type Json, requestInfos } from "./context.js";
import { type Gen, type GenParams, interleave, textRange } from "./engine.js";
import { readStopIds, readStops, seedOf } from "./params.js";
import { fakeLogprob, topAlternative } from "./tokenizer.js";
import { BadRequest, DONE, intParam, isObj, sendJson, writeStream } from "./wire.js";

/** What a /generate request asks for beyond sampling. */
interface GenerateRequest {
  /** One prompt and n = 1: a single object, not a list, and no `index` on chunks. */
  single: boolean;
  stream: boolean;
  returnLogprob: boolean;
  topN: number;
  withText: boolean;
  logprobStart: number;
  n: number;
}

/** One output of the batch (prompt-major, then sample). */
interface Output {
  g: Gen;
  rid: string;
  promptIds: number[];
  inputLogprobs: unknown[] | null;
  inputTop: unknown[] | null;
}

export function handleGenerate(
  s: FakeServer,
  body: Json,
  res: http.ServerResponse,
  destroyAfter: number,
): void {
  const { prompts, batch } = readInput(s, body);
  const spFor = samplingParamsOf(body);
  const n = Math.max(1, intParam(spFor(0).n) ?? 1);
  const req: GenerateRequest = {
    single: !batch && n === 1,
    stream: body.stream === true,
    returnLogprob: body.return_logprob === true,
    topN: Math.max(0, intParam(body.top_logprobs_num) ?? 0),
    withText: body.return_text_in_logprobs === true,
    logprobStart: intParam(body.logprob_start_len) ?? -1,
    n,
  };
  const outputs: Output[] = [];
  for (let pi = 0; pi < prompts.length; pi++)
    outputs.push(...generateFor(s, body, req, prompts[pi]!, pi, spFor(pi)));
  const t0 = performance.now();
  const meta = (o: Output, from: number, to: number, finished: boolean) =>
    metaInfo(s, req, o, from, to, finished, t0);
  if (!req.stream) {
    const outs = outputs.map((o) => ({
      text: o.g.raw.slice(0, o.g.L),
      output_ids: o.g.ids,
      meta_info: meta(o, 0, o.g.ids.length, true),
    }));
    sendJson(res, 200, req.single ? outs[0] : outs);
    return;
  }
  const incremental = s.options.sglangIncrementalStreaming === true;
  const chunks: string[] = [];
  interleave(
    outputs.map((o) => o.g.ids.length),
    s.config.tokensPerChunk,
    (idx, from, to, last) => {
      const o = outputs[idx]!;
      const a = incremental ? from : 0;
      const [x, y] = textRange(o.g, s.engine.ensureEnds(o.g), a, to);
      const out: Json = {
        text: o.g.raw.slice(x, y),
        output_ids: o.g.ids.slice(a, to),
        meta_info: meta(o, a, to, last),
      };
      if (!req.single) out.index = idx;
      chunks.push(`data: ${JSON.stringify(out)}\n\n`);
    },
  );
  chunks.push(DONE);
  writeStream(res, chunks, destroyAfter, s.config);
}

/** The prompts of `input_ids` or `text`, and whether they came as a batch (a list of prompts). */
function readInput(s: FakeServer, body: Json): { prompts: GivenPrompt[]; batch: boolean } {
  if (body.input_ids !== undefined && body.input_ids !== null) {
    const v = body.input_ids;
    if (Array.isArray(v) && v.length > 0 && Array.isArray(v[0]))
      return {
        prompts: (v as number[][]).map((ids) => ({ text: s.engine.decode(ids), ids })),
        batch: true,
      };
    if (Array.isArray(v) && v.every((x) => typeof x === "number"))
      return {
        prompts: [{ text: s.engine.decode(v as number[]), ids: v as number[] }],
        batch: false,
      };
    throw new BadRequest("input_ids must be a list of token ids or a list of such lists.");
  }
  if (body.text !== undefined && body.text !== null) {
    const v = body.text;
    if (typeof v === "string") return { prompts: [{ text: v }], batch: false };
    if (Array.isArray(v) && v.every((x) => typeof x === "string"))
      return { prompts: (v as string[]).map((t) => ({ text: t })), batch: true };
    throw new BadRequest("text must be a string or a list of strings.");
  }
  throw new BadRequest("Either text, input_ids or input_embeds should be provided.");
}

/** `sampling_params` of prompt i: one object for all prompts, or a list with one per prompt. */
function samplingParamsOf(body: Json): (i: number) => Json {
  const spAll = body.sampling_params;
  return (i) => {
    if (Array.isArray(spAll)) return isObj(spAll[i]) ? (spAll[i] as Json) : {};
    return isObj(spAll) ? spAll : {};
  };
}

/** The n outputs of prompt `pi`, with its input logprobs when asked for. */
function generateFor(
  s: FakeServer,
  body: Json,
  req: GenerateRequest,
  pr: GivenPrompt,
  pi: number,
  sp: Json,
): Output[] {
  const info = requestInfos(
    s,
    "generate",
    { promptText: pr.text, ...(pr.ids ? { promptIds: pr.ids } : {}) },
    { ...body, ...sp },
    pi,
  );
  const promptIds = info(0).promptIds;
  const maxNew = intParam(sp.max_new_tokens) ?? 128;
  if (maxNew < 0) throw new BadRequest(`max_new_tokens must be at least 0, got ${maxNew}.`);
  const p: GenParams = {
    maxTokens: maxNew,
    stops: readStops(sp.stop),
    stopIds: readStopIds(sp.stop_token_ids),
    includeStop: sp.no_stop_trim === true,
    ignoreEos: sp.ignore_eos === true,
    seed: seedOf(s, sp.sampling_seed ?? sp.seed ?? body.seed),
  };
  const input = req.returnLogprob ? inputLogprobs(s, req, promptIds, p.seed) : null;
  const outputs: Output[] = [];
  for (let c = 0; c < req.n; c++) {
    const g = s.engine.generate(s.respond(info(c)), p, true, () => "");
    const rid =
      req.single && typeof body.rid === "string"
        ? body.rid
        : !req.single && Array.isArray(body.rid) && req.n === 1 && typeof body.rid[pi] === "string"
          ? (body.rid[pi] as string)
          : s.nextHex(32);
    outputs.push({
      g,
      rid,
      promptIds,
      inputLogprobs: input?.logprobs ?? null,
      inputTop: input?.top ?? null,
    });
  }
  return outputs;
}

/**
 * The prompt's logprobs from `logprob_start_len` (-1: the last position only), the first one null
 * as SGLang reports it.
 */
function inputLogprobs(
  s: FakeServer,
  req: GenerateRequest,
  promptIds: number[],
  seed: number,
): { logprobs: unknown[]; top: unknown[] | null } {
  const start = req.logprobStart < 0 ? Math.max(0, promptIds.length - 1) : req.logprobStart;
  if (start >= promptIds.length && promptIds.length > 0)
    throw new BadRequest(
      `logprob_start_len (${start}) is higher than the number of input tokens (${promptIds.length}).`,
    );
  const ids = promptIds.slice(start);
  const lps = ids.map((id, i) => (i === 0 ? null : fakeLogprob(id, 1_000_000 + start + i, seed)));
  return {
    logprobs: logprobTriples(s, ids, lps, req.withText),
    top:
      req.topN > 0
        ? ids.map((id, i) => (i === 0 ? null : topTriples(s, id, lps[i] as number, req)))
        : null,
  };
}

/** `[[logprob, id, text | null], ...]`. */
function logprobTriples(
  s: FakeServer,
  ids: number[],
  lps: (number | null)[],
  withText: boolean,
): unknown[] {
  return ids.map((id, i) => [lps[i] ?? null, id, withText ? s.engine.tokenText(id) : null]);
}

function topTriples(s: FakeServer, id: number, lp: number, req: GenerateRequest): unknown[] {
  const out: unknown[] = [];
  for (let r = 0; r < req.topN; r++) {
    const alt = r === 0 ? id : topAlternative(id, r);
    out.push([r === 0 ? lp : lp - r * 0.75, alt, req.withText ? s.engine.tokenText(alt) : null]);
  }
  return out;
}

/** `meta_info` of an output's tokens [from, to). */
function metaInfo(
  s: FakeServer,
  req: GenerateRequest,
  o: Output,
  from: number,
  to: number,
  finished: boolean,
  t0: number,
): Json {
  const g = o.g;
  const incremental = s.options.sglangIncrementalStreaming === true;
  const meta: Json = {
    id: o.rid,
    finish_reason: finished
      ? g.finish === "length"
        ? { type: "length", length: g.ids.length }
        : { type: "stop", matched: g.matched }
      : null,
    prompt_tokens: o.promptIds.length,
    weight_version: s.config.weightVersion,
  };
  if (req.returnLogprob) {
    const ids = g.ids.slice(from, to);
    const lps: number[] = [];
    for (let i = from; i < to; i++) lps.push(s.engine.logprob(g, i));
    meta.input_token_logprobs = from === 0 || !incremental ? o.inputLogprobs : [];
    meta.output_token_logprobs = logprobTriples(s, ids, lps, req.withText);
    if (req.topN > 0) {
      meta.input_top_logprobs = from === 0 || !incremental ? o.inputTop : [];
      meta.output_top_logprobs = ids.map((id, i) => topTriples(s, id, lps[i]!, req));
    }
  }
  meta.completion_tokens = to;
  meta.cached_tokens = 0;
  if (finished) meta.e2e_latency = (performance.now() - t0) / 1000;
  return meta;
}
