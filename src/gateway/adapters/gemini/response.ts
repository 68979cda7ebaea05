/**
 * Chat Completions response → Gemini GenerateContentResponse
 * (https://ai.google.dev/api/generate-content#generatecontentresponse), with the usage and
 * finish-reason mappings and Google's error body.
 *
 * Decided here:
 * - Parts, in order: the reasoning as a `thought` text part, the text, then one `functionCall`
 *   part per tool call (`id` = the chat call's id, which the client echoes in its
 *   functionResponse). A turn with none of these has one empty text part.
 * - A call whose arguments are not a JSON object cannot be a functionCall (`args` is a Struct):
 *   it is left out and the candidate finishes MALFORMED_FUNCTION_CALL, as the API reports a
 *   malformed call.
 * - finishReason: stop and tool_calls → STOP (the API's reason for a turn ending in calls too),
 *   length → MAX_TOKENS, content_filter → SAFETY, anything else → OTHER.
 * - The reasoning also travels as the turn's `thoughtSignature` (on its first functionCall part,
 *   else on its answer text): the API's own way of carrying a model's thinking across turns
 *   (https://ai.google.dev/gemini-api/docs/thinking#signatures). Clients drop thought parts from
 *   the history they send back (Gemini CLI does) but keep signatures, so request.ts restores the
 *   reasoning from it and the next prompt still extends the sampled tokens. The signature is
 *   `rllm-reasoning:` + the reasoning in base64: opaque to the client, readable by any gateway.
 * - usageMetadata: candidatesTokenCount excludes the reasoning tokens, which go to
 *   thoughtsTokenCount (the API counts them apart); totalTokenCount is their sum with the prompt.
 */
import type { ChatCompletion, ToolCall, Usage } from "../../../types/chat.js";
import { base62Id, num, parseArgsObject, reasoningOf } from "../sse.js";
import type {
  GeminiErrorBody,
  GeminiFinishReason,
  GeminiPart,
  GeminiResponse,
  GeminiUsage,
} from "./types.js";

export interface GeminiIds {
  /** The response id; random when absent. */
  responseId?: string;
}

const SIGNATURE_PREFIX = "rllm-reasoning:";

/** The thoughtSignature that carries `reasoning` (see the header). */
export function reasoningSignature(reasoning: string): string {
  return SIGNATURE_PREFIX + Buffer.from(reasoning, "utf8").toString("base64");
}

/** The reasoning a signature of ours carries; undefined for any other signature. */
export function reasoningFromSignature(signature: string): string | undefined {
  if (!signature.startsWith(SIGNATURE_PREFIX)) return undefined;
  return Buffer.from(signature.slice(SIGNATURE_PREFIX.length), "base64").toString("utf8");
}

export function newResponseId(): string {
  return base62Id("", 22);
}

export function chatUsageToGemini(usage: Usage | null | undefined): GeminiUsage {
  const prompt = usage?.prompt_tokens ?? 0;
  const completion = usage?.completion_tokens ?? 0;
  const thoughts = num(usage?.completion_tokens_details, "reasoning_tokens") ?? 0;
  const cached = num(usage?.prompt_tokens_details, "cached_tokens") ?? 0;
  const out: GeminiUsage = {
    promptTokenCount: prompt,
    candidatesTokenCount: Math.max(0, completion - thoughts),
    totalTokenCount: usage?.total_tokens ?? prompt + completion,
  };
  if (thoughts > 0) out.thoughtsTokenCount = thoughts;
  if (cached > 0) out.cachedContentTokenCount = cached;
  return out;
}

export function geminiFinishReason(finish: string | null | undefined): GeminiFinishReason {
  switch (finish) {
    case "stop":
    case "tool_calls":
    case "function_call":
      return "STOP";
    case "length":
      return "MAX_TOKENS";
    case "content_filter":
      return "SAFETY";
    default:
      return "OTHER";
  }
}

/**
 * The functionCall parts of `calls`, the first carrying `signature` when given; `malformed` when
 * one had arguments that are no object.
 */
export function callParts(
  calls: readonly ToolCall[],
  signature?: string,
): { parts: GeminiPart[]; malformed: boolean } {
  const parts: GeminiPart[] = [];
  let malformed = false;
  for (const c of calls) {
    const args = c.function.arguments.trim() === "" ? {} : parseArgsObject(c.function.arguments);
    if (!args) {
      malformed = true;
      continue;
    }
    const part: GeminiPart = { functionCall: { id: c.id, name: c.function.name, args } };
    if (signature && parts.length === 0) part.thoughtSignature = signature;
    parts.push(part);
  }
  return { parts, malformed };
}

/** Translates a (non-streaming) chat completion; only choice 0 is used. */
export function chatToGeminiResponse(
  completion: ChatCompletion,
  ids: GeminiIds = {},
): GeminiResponse {
  const choice = completion.choices.find((c) => c.index === 0) ?? completion.choices[0];
  const msg = choice?.message;
  const parts: GeminiPart[] = [];
  const reasoning = msg ? reasoningOf(msg) : undefined;
  const signature = reasoning ? reasoningSignature(reasoning) : undefined;
  if (reasoning) parts.push({ text: reasoning, thought: true });
  const calls = callParts(msg?.tool_calls ?? [], signature);
  const text = typeof msg?.content === "string" ? msg.content : "";
  if (text || (calls.parts.length === 0 && (signature || parts.length === 0))) {
    parts.push(
      calls.parts.length === 0 && signature ? { text, thoughtSignature: signature } : { text },
    );
  }
  parts.push(...calls.parts);
  return {
    candidates: [
      {
        content: { role: "model", parts },
        finishReason: calls.malformed
          ? "MALFORMED_FUNCTION_CALL"
          : geminiFinishReason(choice?.finish_reason),
        index: 0,
      },
    ],
    usageMetadata: chatUsageToGemini(completion.usage),
    modelVersion: completion.model,
    responseId: ids.responseId ?? newResponseId(),
  };
}

/** Google's canonical status name for an HTTP status. */
function statusName(code: number): string {
  switch (code) {
    case 400:
    case 422:
      return "INVALID_ARGUMENT";
    case 401:
      return "UNAUTHENTICATED";
    case 403:
      return "PERMISSION_DENIED";
    case 404:
      return "NOT_FOUND";
    case 409:
      return "ABORTED";
    case 410:
      return "NOT_FOUND";
    case 413:
      return "INVALID_ARGUMENT";
    case 429:
      return "RESOURCE_EXHAUSTED";
    case 499:
      return "CANCELLED";
    case 501:
      return "UNIMPLEMENTED";
    case 503:
      return "UNAVAILABLE";
    case 504:
      return "DEADLINE_EXCEEDED";
    default:
      return code >= 400 && code < 500 ? "FAILED_PRECONDITION" : "INTERNAL";
  }
}

/** `{error: {code, message, status}}`, as the Gemini API answers errors. */
export function geminiErrorBody(err: { status: number; message: string }): GeminiErrorBody {
  return { error: { code: err.status, message: err.message, status: statusName(err.status) } };
}
