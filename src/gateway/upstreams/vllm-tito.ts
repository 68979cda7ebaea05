/**
 * vLLM with token-in/token-out: a chat call is rendered by the gateway's renderer and sent to
 * vLLM's /v1/completions as a list of token ids; the sampled ids (`return_token_ids`) and their
 * logprobs come back and are parsed into the Chat Completion here. vLLM's chat endpoint would
 * re-render and re-tokenize the whole conversation each turn, changing ids the model sampled.
 *
 * The completion text is decoded from the ids, not taken from vLLM's `text`, so that both
 * upstreams (and the streaming and non-streaming paths) give the same text for the same ids.
 */

import type { ChatRenderer } from "../../hf/index.js";
import { HttpError } from "../errors.js";
import { readUpstreamJson, upstreamPost, upstreamSse } from "./client.js";
import { OpenAICompatAdapter } from "./openai-compat.js";
import {
  type BuiltPrompt,
  buildPromptIds,
  maxTokensOf,
  setIf,
  stopStrings,
  stopTokenIds,
  TitoChatRun,
} from "./tito.js";
import type {
  ChatCall,
  ChatOutcome,
  CompletionCall,
  CompletionOutcome,
  UpstreamAdapter,
} from "./types.js";
import type { Upstream } from "./upstream.js";

/** Request fields forwarded as they are: vLLM's completions endpoint reads them the same way. */
const SAMPLING_KEYS = [
  "temperature",
  "top_p",
  "top_k",
  "min_p",
  "seed",
  "n",
  "presence_penalty",
  "frequency_penalty",
  "repetition_penalty",
  "ignore_eos",
  "min_tokens",
  "logit_bias",
  "bad_words",
  "allowed_token_ids",
  "response_format",
  "structured_outputs",
  "priority",
  "thinking_token_budget",
  "repetition_detection",
  "cache_salt",
] as const;

export class VllmTitoAdapter implements UpstreamAdapter {
  private readonly passthrough = new OpenAICompatAdapter();

  constructor(private readonly renderer: ChatRenderer) {}

  async chat(u: Upstream, call: ChatCall): Promise<ChatOutcome> {
    const prompt = buildPromptIds(this.renderer, call);
    const stream = call.onChunk !== undefined;
    const body = this.requestBody(call, prompt, stream);
    const res = await upstreamPost(u, "/v1/completions", body, call.signal);
    const run = TitoChatRun.forCall(this.renderer, u, call, prompt);
    if (stream) {
      for await (const ev of upstreamSse(u, res)) {
        if (!Array.isArray(ev.choices)) {
          throw new HttpError(
            502,
            `upstream ${u.url} sent a chunk without choices`,
            "upstream_error",
          );
        }
        if (typeof ev.model === "string") run.setModel(ev.model);
        for (const raw of ev.choices as unknown[]) {
          const c = readChoice(u, raw, true);
          if (c.promptIds) run.setPromptIds(c.promptIds);
          run.step(c.index, c.ids, c.logprobs, c.finish);
        }
      }
    } else {
      const raw = await readUpstreamJson(u, res);
      const choices = (raw as { choices?: unknown } | null)?.choices;
      if (!raw || typeof raw !== "object" || !Array.isArray(choices)) {
        throw new HttpError(
          502,
          `upstream ${u.url} returned a completion without choices`,
          "upstream_error",
        );
      }
      const model = (raw as { model?: unknown }).model;
      if (typeof model === "string") run.setModel(model);
      for (const rc of choices as unknown[]) {
        const c = readChoice(u, rc, false);
        if (c.promptIds) run.setPromptIds(c.promptIds);
        run.step(c.index, c.ids, c.logprobs, c.finish ?? { reason: "stop" });
      }
    }
    return run.outcome();
  }

  /** An agent calling /v1/completions already sends text or ids: vLLM handles it as it is. */
  completions(u: Upstream, call: CompletionCall): Promise<CompletionOutcome> {
    return this.passthrough.completions(u, call);
  }

  private requestBody(call: ChatCall, prompt: BuiltPrompt, stream: boolean) {
    const req = call.request as Record<string, unknown>;
    const body: Record<string, unknown> = { prompt: prompt.ids };
    if (call.model !== undefined) body.model = call.model;
    for (const k of SAMPLING_KEYS) setIf(body, k, req[k]);
    // vLLM's completions endpoint defaults to 16 tokens; null means "up to the context length",
    // which is what a chat call without a limit gets from its chat endpoint.
    body.max_tokens = maxTokensOf(req);
    const stops = stopStrings(req.stop);
    if (stops.length > 0) body.stop = stops;
    // The chat endpoint stops at the template's end of turn; the completions endpoint knows only
    // the tokenizer's eos, which is not always the same token.
    body.stop_token_ids = stopTokenIds(req, this.renderer.eosTokenIds);
    // Top-1 gives the sampled token's logprob on every vLLM version.
    body.logprobs = 1;
    body.return_token_ids = true;
    body.skip_special_tokens = false;
    body.include_stop_str_in_output = false;
    if (stream) {
      body.stream = true;
      body.stream_options = { include_usage: true };
    }
    return body;
  }
}

interface ReadChoice {
  index: number;
  ids: number[];
  logprobs: (number | null)[] | null;
  promptIds: number[] | null;
  finish: { reason: string; stopReason: string | number | null } | undefined;
}

function readChoice(u: Upstream, raw: unknown, chunk: boolean): ReadChoice {
  if (!raw || typeof raw !== "object") {
    throw new HttpError(
      502,
      `upstream ${u.url} returned a choice that is not an object`,
      "upstream_error",
    );
  }
  const c = raw as Record<string, unknown>;
  const ids = c.token_ids;
  if (!isIdList(ids)) {
    // A chunk that carries no token (vLLM's stream can end with an empty one) has nothing to add.
    const empty = chunk && (ids === null || ids === undefined) && !c.text;
    if (!empty) {
      throw new HttpError(
        502,
        `upstream ${u.url} returned no token ids; token-in/token-out needs a vLLM that supports return_token_ids`,
        "upstream_error",
      );
    }
  }
  const tokenIds = isIdList(ids) ? ids : [];
  const lp = (c.logprobs as { token_logprobs?: unknown } | null | undefined)?.token_logprobs;
  const logprobs = Array.isArray(lp)
    ? lp.map((x) => (typeof x === "number" ? x : null))
    : tokenIds.length === 0
      ? []
      : null;
  const finishReason = c.finish_reason;
  const stop = c.stop_reason;
  if (finishReason === "abort") {
    throw new HttpError(502, `upstream ${u.url} aborted the generation`, "upstream_error");
  }
  return {
    index: typeof c.index === "number" ? c.index : 0,
    ids: tokenIds,
    logprobs,
    promptIds: isIdList(c.prompt_token_ids) ? c.prompt_token_ids : null,
    finish:
      typeof finishReason === "string"
        ? {
            reason: finishReason,
            stopReason: typeof stop === "string" || typeof stop === "number" ? stop : null,
          }
        : undefined,
  };
}

function isIdList(v: unknown): v is number[] {
  return Array.isArray(v) && v.every((x) => Number.isInteger(x));
}
