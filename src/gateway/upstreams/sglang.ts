/**
 * SGLang through its native /generate endpoint, token-in/token-out: the gateway renders the chat
 * template, sends `input_ids`, and parses the sampled `output_ids` (with
 * `meta_info.output_token_logprobs`) into a Chat Completion. /v1/completions calls are served by
 * /generate as well, so agents that send raw prompts get token ids from SGLang too.
 *
 * Wire facts this relies on (see src/testing/fake-upstream.ts for sources): n > 1 or a batch of
 * prompts returns a JSON list (prompt-major, then sample); a stream is cumulative by default
 * (text/ids/logprobs so far; `--incremental-streaming-output` makes it deltas) and carries an
 * `index` when the result is a list; `meta_info.finish_reason` is {type: "stop", matched} |
 * {type: "length"} | {type: "abort", message}.
 *
 * LoRA: a call whose model is not the upstream's own (`u.model`, the base model it serves) names a
 * LoRA adapter loaded on the server, and goes as `lora_path: <name>` (SGLang's /generate selects
 * adapters by name there); an upstream without a model sends none.
 */

import type { ChatRenderer } from "../../hf/index.js";
import type { TokenSource } from "../../types/index.js";
import { HttpError } from "../errors.js";
import { readUpstreamJson, type UpstreamResponse, upstreamPost, upstreamSse } from "./client.js";
import {
  buildPromptIds,
  CompletionText,
  finishedChoices,
  maxTokensOf,
  num,
  randomHex,
  setIf,
  stopStrings,
  stopTokenIds,
  TitoChatRun,
} from "./tito.js";
import type {
  ChatCall,
  ChatOutcome,
  Completion,
  CompletionCall,
  CompletionChoice,
  CompletionOutcome,
  CompletionRequest,
  UpstreamAdapter,
} from "./types.js";
import type { Upstream } from "./upstream.js";

/** Sampling parameters SGLang reads under the same name as OpenAI/vLLM. */
const SAME_NAME = [
  "temperature",
  "top_p",
  "top_k",
  "min_p",
  "presence_penalty",
  "frequency_penalty",
  "repetition_penalty",
  "ignore_eos",
  "logit_bias",
] as const;

/** `{lora_path}` when `model` is an adapter of `u`'s base model (see the header), else nothing. */
function loraOf(u: Upstream, model: string | undefined): { lora_path?: string } {
  return u.model !== undefined && model !== undefined && model !== u.model
    ? { lora_path: model }
    : {};
}

export class SglangAdapter implements UpstreamAdapter {
  private readonly eos: ReadonlySet<number>;

  constructor(private readonly renderer: ChatRenderer) {
    this.eos = new Set(renderer.eosTokenIds);
  }

  async chat(u: Upstream, call: ChatCall): Promise<ChatOutcome> {
    const prompt = buildPromptIds(this.renderer, call);
    const req = call.request as Record<string, unknown>;
    const stream = call.onChunk !== undefined;
    const body = {
      input_ids: prompt.ids,
      sampling_params: samplingParams(req, maxTokensOf(req), this.renderer.eosTokenIds),
      return_logprob: true,
      // -1: logprobs of the sampled tokens only, not of the whole prompt.
      logprob_start_len: -1,
      stream,
      ...loraOf(u, call.model),
    };
    const res = await upstreamPost(u, "/generate", body, call.signal);
    const run = TitoChatRun.forCall(this.renderer, u, call, prompt);
    for await (const out of generateOutputs(u, res, stream, this.eos)) {
      run.step(out.index, out.ids, out.logprobs, out.finish);
    }
    return run.outcome();
  }

  async completions(u: Upstream, call: CompletionCall): Promise<CompletionOutcome> {
    const req = call.request;
    if (req.echo === true) {
      throw new HttpError(
        400,
        "invalid completion request: echo is not supported by the SGLang upstream",
        "invalid_request_error",
      );
    }
    const prompts = this.promptIds(req.prompt);
    // Ids the agent sent are its own; text prompts were tokenized here.
    const encoded =
      typeof req.prompt === "string" ||
      (Array.isArray(req.prompt) && req.prompt.some((p) => typeof p === "string"));
    const n = num(req.n) ?? 1;
    const stream = call.onChunk !== undefined;
    const body = {
      input_ids: prompts.length === 1 ? prompts[0] : prompts,
      // OpenAI's and vLLM's completions endpoints default to 16 tokens.
      sampling_params: samplingParams(req, num(req.max_tokens) ?? 16, []),
      return_logprob: true,
      logprob_start_len: -1,
      stream,
      ...loraOf(u, call.model),
    };
    const res = await upstreamPost(u, "/generate", body, call.signal);
    const run = new CompletionRun(
      this.renderer,
      call,
      prompts,
      n,
      req.include_stop_str_in_output === true ? [] : stopStrings(req.stop),
      stream,
      encoded ? "renderer" : "upstream",
    );
    for await (const out of generateOutputs(u, res, stream, this.eos)) {
      run.step(out.index, out.ids, out.logprobs, out.finish);
    }
    return run.outcome();
  }

  private promptIds(prompt: CompletionRequest["prompt"]): number[][] {
    const isIds = (v: unknown): v is number[] =>
      Array.isArray(v) && v.every((x) => Number.isInteger(x));
    if (typeof prompt === "string") return [this.renderer.encode(prompt)];
    if (isIds(prompt) && prompt.length > 0) return [prompt];
    if (Array.isArray(prompt) && prompt.length > 0) {
      const out: number[][] = [];
      for (const p of prompt as unknown[]) {
        if (typeof p === "string") out.push(this.renderer.encode(p));
        else if (isIds(p)) out.push(p);
        else break;
      }
      if (out.length === prompt.length) return out;
    }
    throw new HttpError(
      400,
      "invalid completion request: prompt: must be a string, a list of strings, a list of token ids or a list of lists of token ids",
      "invalid_request_error",
    );
  }
}

function samplingParams(
  req: Record<string, unknown>,
  maxNewTokens: number | null,
  eosIds: readonly number[],
): Record<string, unknown> {
  const sp: Record<string, unknown> = {};
  for (const k of SAME_NAME) setIf(sp, k, req[k]);
  // SGLang's default is 128 tokens; null means "up to the context length".
  sp.max_new_tokens = maxNewTokens;
  const stops = stopStrings(req.stop);
  if (stops.length > 0) sp.stop = stops;
  const stopIds = stopTokenIds(req, eosIds);
  if (stopIds.length > 0) sp.stop_token_ids = stopIds;
  const n = num(req.n);
  if (n !== undefined && n > 1) sp.n = n;
  setIf(sp, "sampling_seed", req.seed);
  setIf(sp, "min_new_tokens", req.min_tokens);
  const schema = jsonSchemaOf(req.response_format);
  if (schema !== undefined) sp.json_schema = schema;
  // Keep <think>/<tool_call> and the stop token in the output: the ids are what matters, and the
  // text is decoded from them by the gateway.
  sp.skip_special_tokens = false;
  sp.no_stop_trim = true;
  return sp;
}

/** OpenAI's response_format as SGLang's `json_schema` (a JSON string), or undefined. */
function jsonSchemaOf(rf: unknown): string | undefined {
  if (!rf || typeof rf !== "object") return undefined;
  const f = rf as { type?: unknown; json_schema?: { schema?: unknown } };
  if (f.type === "json_object") return JSON.stringify({ type: "object" });
  if (f.type === "json_schema" && f.json_schema?.schema !== undefined) {
    return JSON.stringify(f.json_schema.schema);
  }
  return undefined;
}

interface GenerateOutput {
  index: number;
  /** New ids since the previous output of this index. */
  ids: number[];
  logprobs: (number | null)[] | null;
  finish: { reason: string; stopReason: string | number | null } | undefined;
}

/**
 * The outputs of a /generate call as deltas per index: the items of a (list) response, or the
 * stream's events with the cumulative ids/logprobs turned into what each event added.
 */
async function* generateOutputs(
  u: Upstream,
  res: UpstreamResponse,
  stream: boolean,
  eos: ReadonlySet<number>,
): AsyncGenerator<GenerateOutput> {
  // SGLang names the eos id it matched; vLLM's stop_reason is null for a natural end of turn, and
  // both upstreams should read alike in traces.
  const finishOf = (r: GenerateResult) =>
    r.finish && typeof r.finish.stopReason === "number" && eos.has(r.finish.stopReason)
      ? { ...r.finish, stopReason: null }
      : r.finish;
  if (!stream) {
    const raw = await readUpstreamJson(u, res);
    const items = Array.isArray(raw) ? raw : [raw];
    if (items.length === 0) {
      throw new HttpError(502, `upstream ${u.url} returned an empty list`, "upstream_error");
    }
    for (let i = 0; i < items.length; i++) {
      const r = readResult(u, items[i]);
      yield {
        index: i,
        ids: r.ids,
        logprobs: r.logprobs,
        finish: finishOf(r) ?? { reason: "stop", stopReason: null },
      };
    }
    return;
  }
  const seen = new Map<number, { ids: number; logprobs: number }>();
  for await (const ev of upstreamSse(u, res)) {
    const r = readResult(u, ev);
    const index = typeof ev.index === "number" ? ev.index : 0;
    const s = seen.get(index) ?? { ids: 0, logprobs: 0 };
    const ids = newPart(r.ids, s.ids, r.completionTokens);
    const logprobs = r.logprobs ? newPart(r.logprobs, s.logprobs, r.completionTokens) : null;
    s.ids += ids.length;
    s.logprobs += logprobs?.length ?? 0;
    seen.set(index, s);
    yield { index, ids, logprobs, finish: finishOf(r) };
  }
}

/**
 * What a stream event adds to `seen` items: SGLang streams cumulative lists by default, deltas with
 * --incremental-streaming-output. `completion_tokens` (the count so far) tells them apart once
 * something was seen: a delta plus what was seen adds up to it, a cumulative list alone does.
 */
function newPart<T>(list: T[], seen: number, total: number | undefined): T[] {
  if (total !== undefined && seen > 0 && list.length < total && list.length + seen === total) {
    return list;
  }
  return list.slice(seen);
}

interface GenerateResult {
  ids: number[];
  logprobs: (number | null)[] | null;
  completionTokens: number | undefined;
  finish: { reason: string; stopReason: string | number | null } | undefined;
}

function readResult(u: Upstream, raw: unknown): GenerateResult {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) {
    throw new HttpError(
      502,
      `upstream ${u.url} returned a /generate result that is not an object`,
      "upstream_error",
    );
  }
  const r = raw as Record<string, unknown>;
  const ids = r.output_ids;
  if (!Array.isArray(ids) || !ids.every((x) => Number.isInteger(x))) {
    throw new HttpError(
      502,
      `upstream ${u.url} returned a /generate result without output_ids`,
      "upstream_error",
    );
  }
  const meta = (r.meta_info && typeof r.meta_info === "object" ? r.meta_info : {}) as Record<
    string,
    unknown
  >;
  const triples = meta.output_token_logprobs;
  const logprobs = Array.isArray(triples)
    ? triples.map((t) => (Array.isArray(t) && typeof t[0] === "number" ? (t[0] as number) : null))
    : null;
  return {
    ids: ids as number[],
    logprobs,
    completionTokens: num(meta.completion_tokens),
    finish: readFinish(u, meta.finish_reason),
  };
}

function readFinish(
  u: Upstream,
  f: unknown,
): { reason: string; stopReason: string | number | null } | undefined {
  if (f === null || f === undefined) return undefined;
  if (typeof f === "string") return { reason: f, stopReason: null };
  if (typeof f !== "object") return undefined;
  const o = f as { type?: unknown; matched?: unknown; message?: unknown; status_code?: unknown };
  if (o.type === "abort") {
    const message = typeof o.message === "string" ? o.message : "no reason given";
    const status = num(o.status_code);
    // An abort with a 4xx status is SGLang refusing the request (e.g. a prompt over the context
    // length): the agent's to fix, like a 4xx answer.
    if (status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 429) {
      return fail(
        new HttpError(status, `upstream rejected the request: ${message}`, "invalid_request_error"),
      );
    }
    return fail(
      new HttpError(502, `upstream ${u.url} aborted the generation: ${message}`, "upstream_error"),
    );
  }
  const matched = o.matched;
  return {
    reason: typeof o.type === "string" ? o.type : "stop",
    stopReason: typeof matched === "string" || typeof matched === "number" ? matched : null,
  };
}

function fail(err: HttpError): never {
  throw err;
}

interface TextChoiceRun {
  index: number;
  ids: number[];
  logprobs: number[];
  logprobsComplete: boolean;
  text: CompletionText;
  out: string;
  finishReason: string | null;
  stopReason: string | number | null;
}

/** A /v1/completions call served by /generate: like TitoChatRun, for text completions. */
class CompletionRun {
  private readonly id = `cmpl-${randomHex(16)}`;
  private readonly created = Math.floor(Date.now() / 1000);
  private readonly model: string;
  private readonly choices = new Map<number, TextChoiceRun>();

  constructor(
    private readonly renderer: ChatRenderer,
    private readonly call: CompletionCall,
    private readonly prompts: number[][],
    private readonly n: number,
    private readonly stops: string[],
    private readonly streaming: boolean,
    private readonly tokenSource: TokenSource,
  ) {
    this.model = call.model ?? "";
  }

  step(
    index: number,
    ids: readonly number[],
    logprobs: readonly (number | null)[] | null,
    finish: { reason: string; stopReason: string | number | null } | undefined,
  ): void {
    let c = this.choices.get(index);
    const first = !c;
    if (!c) {
      c = {
        index,
        ids: [],
        logprobs: [],
        logprobsComplete: true,
        text: new CompletionText(this.renderer, this.stops),
        out: "",
        finishReason: null,
        stopReason: null,
      };
      this.choices.set(index, c);
    }
    if (c.finishReason !== null) {
      throw new HttpError(
        502,
        `upstream sent tokens for choice ${index} after it finished`,
        "upstream_error",
      );
    }
    c.ids.push(...ids);
    const lpsOk =
      logprobs !== null &&
      logprobs.length === ids.length &&
      logprobs.every((x) => typeof x === "number");
    if (lpsOk) c.logprobs.push(...(logprobs as number[]));
    else if (ids.length > 0) c.logprobsComplete = false;
    let text = c.text.push(ids);
    if (finish) {
      text += c.text.finish();
      c.finishReason = finish.reason;
      c.stopReason = finish.stopReason;
    }
    c.out += text;
    if (!this.streaming) return;
    if (!first && ids.length === 0 && text === "" && !finish) return;
    const choice: CompletionChoice = {
      index,
      text,
      logprobs: lpsOk
        ? {
            tokens: ids.map((id) => this.renderer.tokenText(id)),
            token_logprobs: [...(logprobs as number[])],
          }
        : null,
      finish_reason: c.finishReason,
      token_ids: [...ids],
      prompt_token_ids: first ? this.promptFor(index) : null,
    };
    if (finish && c.stopReason !== null) choice.stop_reason = c.stopReason;
    this.call.onChunk?.(this.completion([choice]));
  }

  outcome(): CompletionOutcome {
    const runs = finishedChoices(this.choices);
    const promptTokens = this.prompts.reduce((s, p) => s + p.length, 0);
    const completionTokens = runs.reduce((s, c) => s + c.ids.length, 0);
    const usage = {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    };
    if (this.streaming) this.call.onChunk?.({ ...this.completion([]), usage });
    const choices = runs.map((c): CompletionChoice => {
      const choice: CompletionChoice = {
        index: c.index,
        text: c.out,
        logprobs: c.logprobsComplete
          ? {
              tokens: c.ids.map((id) => this.renderer.tokenText(id)),
              token_logprobs: c.logprobs,
              top_logprobs: null,
            }
          : null,
        finish_reason: c.finishReason,
        token_ids: c.ids,
        prompt_token_ids: this.promptFor(c.index),
      };
      if (c.stopReason !== null) choice.stop_reason = c.stopReason;
      return choice;
    });
    return {
      completion: { ...this.completion(choices), usage },
      promptIds: this.prompts[0] ?? null,
      choices: runs.map((c) => ({
        completionIds: c.ids,
        logprobs: c.logprobsComplete ? c.logprobs : null,
      })),
      tokenSource: this.tokenSource,
    };
  }

  private promptFor(index: number): number[] | null {
    return this.prompts[Math.floor(index / Math.max(1, this.n))] ?? null;
  }

  private completion(choices: CompletionChoice[]): Completion {
    return {
      id: this.id,
      object: "text_completion",
      created: this.created,
      model: this.model,
      choices,
    };
  }
}
