/**
 * What the front end accepts: the Chat Completions and Completions request schemas in vLLM's
 * dialect (its extras included), the knobs it refuses by name, and vLLM's prompt forms.
 *
 * Anything else an SDK sends is accepted and ignored, except the fields that would change what is
 * sampled ({@link UNSUPPORTED}): those are accepted only at their neutral value, never dropped.
 */
import { z } from "zod";
import { ChatMessageSchema, ToolSchema } from "../../types/chat.js";
import type { ServingTokenizer } from "./generator.js";
import { HttpError } from "./http.js";

/** The request schemas for a vocabulary of `vocabSize` ids (stop_token_ids are checked against it). */
export function requestSchemas(vocabSize: number) {
  const range = `token ids must be integers in [0, ${vocabSize})`;
  const tokenId = z
    .number()
    .int()
    .min(0, range)
    .max(vocabSize - 1, range);

  /** Fields both endpoints read. */
  const commonFields = {
    model: z.string().nullish(),
    stream: z.boolean().nullish(),
    stream_options: z
      .looseObject({
        include_usage: z.boolean().nullish(),
        continuous_usage_stats: z.boolean().nullish(),
      })
      .nullish(),
    n: z.number().int().min(1, "n must be at least 1").max(128, "n must be at most 128").nullish(),
    temperature: z.number().min(0, "temperature must be ≥ 0").nullish(),
    top_p: z.number().gt(0, "top_p must be in (0, 1]").max(1, "top_p must be in (0, 1]").nullish(),
    top_k: z
      .number()
      .int()
      .min(-1, "top_k must be -1 or 0 (all tokens) or a positive integer")
      .nullish(),
    seed: z.number().int().nullish(),
    stop: z.union([z.string(), z.array(z.string()).max(16, "at most 16 stop strings")]).nullish(),
    stop_token_ids: z.array(tokenId).nullish(),
    ignore_eos: z.boolean().nullish(),
    include_stop_str_in_output: z.boolean().nullish(),
    skip_special_tokens: z.boolean().nullish(),
    return_token_ids: z.boolean().nullish(),
    max_tokens: z.number().int().min(1, "max_tokens must be at least 1").nullish(),
  };

  const chat = z.looseObject({
    ...commonFields,
    messages: z.array(ChatMessageSchema).min(1, "messages must hold at least one message"),
    tools: z.array(ToolSchema).nullish(),
    tool_choice: z.unknown().optional(),
    logprobs: z.boolean().nullish(),
    top_logprobs: z
      .number()
      .int()
      .min(0, "top_logprobs must be in [0, 20]")
      .max(20, "top_logprobs must be in [0, 20]")
      .nullish(),
    max_completion_tokens: z
      .number()
      .int()
      .min(1, "max_completion_tokens must be at least 1")
      .nullish(),
    add_generation_prompt: z.boolean().nullish(),
  });

  const completion = z.looseObject({
    ...commonFields,
    prompt: z.unknown(),
    logprobs: z
      .number()
      .int()
      .min(0, "logprobs must be an integer in [0, 20]")
      .max(20, "logprobs must be an integer in [0, 20]")
      .nullish(),
  });
  return { chat, completion };
}

type Schemas = ReturnType<typeof requestSchemas>;
export type ChatRequest = z.infer<Schemas["chat"]>;
export type CompletionRequest = z.infer<Schemas["completion"]>;

const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * OpenAI/vLLM fields that would change what is sampled and that this sampler does not implement:
 * accepted only at their neutral value, refused by name otherwise (never silently ignored).
 */
const UNSUPPORTED: [string, (v: unknown) => boolean, string][] = [
  ["logit_bias", (v) => isObj(v) && Object.keys(v).length === 0, "{}"],
  ["presence_penalty", (v) => v === 0, "0"],
  ["frequency_penalty", (v) => v === 0, "0"],
  ["repetition_penalty", (v) => v === 1, "1"],
  ["length_penalty", (v) => v === 1, "1"],
  ["min_p", (v) => v === 0, "0"],
  ["min_tokens", (v) => v === 0, "0"],
  ["bad_words", (v) => Array.isArray(v) && v.length === 0, "[]"],
  ["allowed_token_ids", () => false, "null"],
  ["response_format", (v) => isObj(v) && v.type === "text", '{"type": "text"}'],
  ["structured_outputs", () => false, "null"],
  ["guided_json", () => false, "null"],
  ["guided_regex", () => false, "null"],
  ["guided_choice", () => false, "null"],
  ["guided_grammar", () => false, "null"],
  ["use_beam_search", (v) => v === false, "false"],
  ["best_of", (v) => v === 1, "1"],
  ["prompt_logprobs", () => false, "null"],
  ["echo", (v) => v === false, "false"],
  ["suffix", () => false, "null"],
  ["continue_final_message", (v) => v === false, "false"],
  ["chat_template", () => false, "null"],
  ["truncate_prompt_tokens", () => false, "null"],
  ["prompt_embeds", () => false, "null"],
];

function checkUnsupported(body: Record<string, unknown>): void {
  const bad = UNSUPPORTED.filter(
    ([k, neutral]) => body[k] !== undefined && body[k] !== null && !neutral(body[k]),
  );
  if (bad.length === 0) return;
  const names = bad.map(([k, , n]) => `${k} (only ${n} or null)`).join(", ");
  throw new HttpError(
    400,
    `unsupported by the local sampler: ${names}. These change sampling and this sampler does not offer them; remove them from the request.`,
    { param: bad[0]![0] },
  );
}

/** The body checked against `schema` after the unsupported knobs; a 400 naming the first bad field. */
export function parseRequest<T>(schema: z.ZodType<T>, body: unknown): T {
  if (!isObj(body)) throw new HttpError(400, "the request body must be a JSON object");
  checkUnsupported(body);
  const r = schema.safeParse(body);
  if (r.success) return r.data;
  const issues = r.error.issues;
  const msg = issues
    .slice(0, 5)
    .map((i) => `${i.path.join(".") || "body"}: ${i.message}`)
    .join("; ");
  throw new HttpError(400, `invalid request: ${msg}`, {
    param: String(issues[0]?.path[0] ?? "") || null,
  });
}

const PROMPT_HELP =
  "prompt must be a non-empty string, a list of strings, a list of token ids, or a list of token-id lists";

/** vLLM's prompt forms: str, list[str], list[int], list[list[int]]. */
export function readPrompts(prompt: unknown, tokenizer: ServingTokenizer): number[][] {
  const V = tokenizer.vocabSize;
  const isIds = (v: unknown): v is number[] =>
    Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === "number");
  const checkIds = (ids: number[]) => {
    const bad = ids.find((x) => !Number.isInteger(x) || x < 0 || x >= V);
    if (bad !== undefined)
      throw new HttpError(400, `prompt token id ${bad} is outside the vocabulary [0, ${V})`, {
        param: "prompt",
      });
    return ids;
  };
  // prompt text is the caller's own: special-token strings in it map to their ids, as a
  // tokenizer's encode does
  if (typeof prompt === "string" && prompt.length > 0) return [tokenizer.encode(prompt)];
  if (Array.isArray(prompt) && prompt.length > 0) {
    if (isIds(prompt)) return [checkIds(prompt)];
    if (prompt.every((x) => typeof x === "string" && x.length > 0))
      return (prompt as string[]).map((t) => tokenizer.encode(t));
    if (prompt.every(isIds)) return (prompt as number[][]).map(checkIds);
  }
  throw new HttpError(400, PROMPT_HELP, { param: "prompt" });
}
