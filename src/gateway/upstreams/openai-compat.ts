/**
 * Upstreams that speak OpenAI's Chat Completions and Completions: vLLM (token ids on request) and
 * hosted OpenAI-compatible APIs (text only).
 *
 * vLLM: we inject `logprobs` and `return_token_ids` so the response carries `prompt_token_ids`,
 * `choices[].token_ids` and per-token logprobs; the gateway strips them from what the agent sees
 * unless it asked. Hosted APIs get the request as the agent sent it (with the session's sampling
 * parameters) and the trace records text only, with tokenSource "none".
 */

import type { ChatCompletion, ChatCompletionChunk } from "../../types/index.js";
import { ChatStreamAccumulator } from "../accumulate.js";
import { HttpError } from "../errors.js";
import { postJson, postSse } from "./client.js";
import type {
  CallSignal,
  ChatCall,
  ChatOutcome,
  ChoiceTokens,
  Completion,
  CompletionCall,
  CompletionOutcome,
  UpstreamAdapter,
} from "./types.js";
import type { Upstream } from "./upstream.js";

export class OpenAICompatAdapter implements UpstreamAdapter {
  async chat(u: Upstream, call: ChatCall): Promise<ChatOutcome> {
    const withTokens = u.kind === "vllm";
    const body: Record<string, unknown> = { ...call.request };
    if (call.model !== undefined) body.model = call.model;
    if (withTokens) {
      body.logprobs = true;
      body.return_token_ids = true;
    }
    const completion = await postMaybeStreaming<ChatCompletion, ChatCompletionChunk>(
      u,
      "/v1/chat/completions",
      body,
      call,
      () => new ChatStreamAccumulator(),
      (raw) => checkCompletion(u, raw),
    );
    return {
      completion,
      promptIds: withTokens ? (completion.prompt_token_ids ?? null) : null,
      choices: completion.choices.map((c) => ({
        completionIds: withTokens ? (c.token_ids ?? null) : null,
        logprobs: c.logprobs?.content ? c.logprobs.content.map((t) => t.logprob) : null,
      })),
      tokenSource: withTokens && completion.prompt_token_ids ? "upstream" : "none",
    };
  }

  async completions(u: Upstream, call: CompletionCall): Promise<CompletionOutcome> {
    const withTokens = u.kind === "vllm";
    const body: Record<string, unknown> = { ...call.request };
    if (call.model !== undefined) body.model = call.model;
    if (withTokens) {
      // Top-1 logprobs give each sampled token's logprob on every vLLM version.
      body.logprobs = Math.max(1, Number(call.request.logprobs ?? 0));
      body.return_token_ids = true;
    }
    const completion = await postMaybeStreaming<Completion, Completion>(
      u,
      "/v1/completions",
      body,
      call,
      () => new CompletionAccumulator(),
      (raw) => {
        if (!raw || typeof raw !== "object" || !Array.isArray((raw as Completion).choices)) {
          throw new HttpError(
            502,
            `upstream ${u.url} returned a completion without choices`,
            "upstream_error",
          );
        }
        return raw as Completion;
      },
    );
    const first = completion.choices[0];
    return {
      completion,
      promptIds: withTokens ? (first?.prompt_token_ids ?? null) : null,
      choices: completion.choices.map(
        (c): ChoiceTokens => ({
          completionIds: withTokens ? (c.token_ids ?? null) : null,
          logprobs: c.logprobs?.token_logprobs
            ? c.logprobs.token_logprobs.map((x) => (x == null ? 0 : x))
            : null,
        }),
      ),
      tokenSource: withTokens && first?.prompt_token_ids ? "upstream" : "none",
    };
  }
}

/**
 * POSTs to an OpenAI-style endpoint, streaming when the call has `onChunk` (each chunk is passed on
 * as it arrives and folded by the accumulator) and returning the whole result either way.
 */
async function postMaybeStreaming<R, K extends { choices?: unknown }>(
  u: Upstream,
  path: string,
  body: Record<string, unknown>,
  call: {
    signal: CallSignal;
    onChunk?: (chunk: K) => void;
    request: object;
  },
  accumulator: () => { push(chunk: K): void; result(): R },
  check: (raw: unknown) => R,
): Promise<R> {
  if (!call.onChunk) {
    delete body.stream;
    delete body.stream_options;
    return check(await postJson(u, path, body, call.signal));
  }
  body.stream = true;
  // Usage arrives in a final chunk only when asked; the gateway always wants it for the trace.
  const asked = (call.request as { stream_options?: unknown }).stream_options;
  body.stream_options = {
    ...(asked && typeof asked === "object" ? asked : {}),
    include_usage: true,
  };
  const acc = accumulator();
  const onChunk = call.onChunk;
  await postSse(u, path, body, call.signal, (ev) => {
    const chunk = ev as unknown as K;
    if (!Array.isArray(chunk.choices)) {
      throw new HttpError(502, `upstream ${u.url} sent a chunk without choices`, "upstream_error");
    }
    acc.push(chunk);
    onChunk(chunk);
  });
  return acc.result();
}

export function checkCompletion(u: Upstream, raw: unknown): ChatCompletion {
  if (!raw || typeof raw !== "object" || !Array.isArray((raw as ChatCompletion).choices)) {
    throw new HttpError(
      502,
      `upstream ${u.url} returned JSON that is not a chat completion (no choices array)`,
      "upstream_error",
    );
  }
  for (const c of (raw as ChatCompletion).choices) {
    if (!c || typeof c !== "object" || !c.message || typeof c.message !== "object") {
      throw new HttpError(
        502,
        `upstream ${u.url} returned a choice without a message`,
        "upstream_error",
      );
    }
  }
  return raw as ChatCompletion;
}

/** Folds streamed text-completion chunks into one completion (text, token ids, logprobs). */
export class CompletionAccumulator {
  private base: Omit<Completion, "choices"> | undefined;
  private readonly choices = new Map<number, Completion["choices"][number]>();

  push(chunk: Completion): void {
    if (!this.base) {
      const { choices: _c, ...rest } = chunk;
      this.base = { ...rest, object: "text_completion" };
    }
    if (chunk.usage) this.base.usage = chunk.usage;
    for (const c of chunk.choices) {
      let acc = this.choices.get(c.index);
      if (!acc) {
        acc = { index: c.index, text: "", finish_reason: null, logprobs: null };
        this.choices.set(c.index, acc);
      }
      acc.text += c.text ?? "";
      if (c.finish_reason) acc.finish_reason = c.finish_reason;
      if (Array.isArray(c.token_ids)) acc.token_ids = [...(acc.token_ids ?? []), ...c.token_ids];
      if (Array.isArray(c.prompt_token_ids)) acc.prompt_token_ids = c.prompt_token_ids;
      const lp = c.logprobs;
      if (lp) {
        acc.logprobs ??= {
          tokens: [],
          token_logprobs: [],
          top_logprobs: [],
          text_offset: [],
        };
        const cur = acc.logprobs;
        cur.tokens!.push(...(lp.tokens ?? []));
        cur.token_logprobs!.push(...(lp.token_logprobs ?? []));
        cur.top_logprobs!.push(...(lp.top_logprobs ?? []));
        cur.text_offset!.push(...(lp.text_offset ?? []));
      }
    }
  }

  result(): Completion {
    return {
      id: "",
      created: 0,
      model: "",
      ...this.base,
      object: "text_completion",
      choices: [...this.choices.values()].sort((a, b) => a.index - b.index),
    };
  }
}
