/** Reading the request fields the OpenAI-shaped endpoints share, refused where vLLM refuses them. */
import type { FakeServer, Json } from "./context.js";
import type { GenParams } from "./engine.js";
import { BadRequest, intParam, isObj } from "./wire.js";

export function readStops(v: unknown): string[] {
  if (typeof v === "string") return v ? [v] : [];
  if (Array.isArray(v)) return v.filter((s): s is string => typeof s === "string" && s.length > 0);
  return [];
}

export function readStopIds(v: unknown): number[] | null {
  return Array.isArray(v) && v.length > 0
    ? v.filter((x): x is number => typeof x === "number")
    : null;
}

export function positiveInt(v: unknown, name: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  const n = intParam(v);
  if (n === undefined || n < 1)
    throw new BadRequest(`${name} must be at least 1, got ${String(v)}.`, 400, name);
  return n;
}

export function seedOf(s: FakeServer, v: unknown): number {
  return intParam(v) ?? s.defaultSeed;
}

/** `stream` and `n` of a chat or completions request, refused where vLLM (or OpenAI) refuses. */
export function readStreamAndN(
  s: FakeServer,
  body: Json,
): { stream: boolean; includeUsage: boolean; n: number } {
  const stream = body.stream === true;
  if (body.stream_options != null && !stream)
    throw new BadRequest(
      "Stream options can only be defined when `stream=True`.",
      400,
      "stream_options",
    );
  if (s.kind === "openai" && s.options.rejectUnknownParams && body.return_token_ids !== undefined)
    throw new BadRequest(
      "Unrecognized request argument supplied: return_token_ids",
      400,
      "return_token_ids",
    );
  const n = positiveInt(body.n, "n") ?? 1;
  const includeUsage =
    stream && isObj(body.stream_options) && body.stream_options.include_usage === true;
  return { stream, includeUsage, n };
}

/** Sampling of a chat or completions request; the endpoints differ only in the token limit. */
export function openaiGenParams(s: FakeServer, body: Json, maxTokens: number): GenParams {
  return {
    maxTokens,
    stops: readStops(body.stop),
    stopIds: readStopIds(body.stop_token_ids),
    includeStop: body.include_stop_str_in_output === true,
    ignoreEos: body.ignore_eos === true,
    seed: seedOf(s, body.seed),
  };
}

/** Usage as the server reports it (hosted OpenAI adds its token details). */
export function usageOf(s: FakeServer, prompt: number, completion: number): Json {
  const u: Json = {
    prompt_tokens: prompt,
    total_tokens: prompt + completion,
    completion_tokens: completion,
  };
  if (s.dialect.openaiExtras) {
    u.prompt_tokens_details = { cached_tokens: 0, audio_tokens: 0 };
    u.completion_tokens_details = {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    };
  }
  return u;
}
