/** Chat Completions response → Anthropic `message`, with the usage and stop-reason mappings. */
import type { ChatCompletion, Usage } from "../../../types/chat.js";
import { base62Id, isRecord, num, parseArgsObject, reasoningOf } from "../sse.js";
import type {
  AnthropicContentBlock,
  AnthropicMessage,
  AnthropicStopReason,
  AnthropicUsage,
} from "./types.js";

/**
 * Maps chat usage to Anthropic usage. Anthropic's `input_tokens` excludes cache reads, so prompt
 * tokens the upstream served from its prefix cache move to `cache_read_input_tokens`.
 */
export function chatUsageToAnthropic(usage: Usage | null | undefined): AnthropicUsage {
  const prompt = usage?.prompt_tokens ?? 0;
  const cached = Math.min(num(usage?.prompt_tokens_details, "cached_tokens") ?? 0, prompt);
  const thinking = num(usage?.completion_tokens_details, "reasoning_tokens");
  return {
    input_tokens: prompt - cached,
    output_tokens: usage?.completion_tokens ?? 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
    cache_creation: null,
    inference_geo: null,
    output_tokens_details: thinking === undefined ? null : { thinking_tokens: thinking },
    server_tool_use: null,
    service_tier: null,
    speed: null,
  };
}

/** The request's stop sequences, read tolerantly. */
function stopSequences(request: unknown): string[] {
  const s = isRecord(request) ? request.stop_sequences : undefined;
  return Array.isArray(s) ? s.filter((x): x is string => typeof x === "string") : [];
}

/**
 * Maps a chat finish reason to Anthropic's stop_reason. "stop" is a stop sequence when the
 * upstream says which string matched (vLLM's `stop_reason`) and the request listed it; tool calls
 * mean tool_use even where an upstream reports "stop" for them.
 */
export function stopReason(
  finish: string | null,
  matched: unknown,
  hasCalls: boolean,
  request: unknown,
): { stop_reason: AnthropicStopReason; stop_sequence: string | null } {
  if (finish === "length") return { stop_reason: "max_tokens", stop_sequence: null };
  if (finish === "content_filter") return { stop_reason: "refusal", stop_sequence: null };
  if (hasCalls || finish === "tool_calls" || finish === "function_call") {
    return { stop_reason: "tool_use", stop_sequence: null };
  }
  if (typeof matched === "string" && stopSequences(request).includes(matched)) {
    return { stop_reason: "stop_sequence", stop_sequence: matched };
  }
  return { stop_reason: "end_turn", stop_sequence: null };
}

/**
 * A tool call's arguments as the `input` object Anthropic requires. Arguments that are not a JSON
 * object (a model emitting malformed JSON, common early in RL training) become `{}`: the client's
 * tool then fails its own input validation and the model is told so, instead of the client
 * failing to parse the response at all.
 */
export function toolInput(args: string): Record<string, unknown> {
  return parseArgsObject(args) ?? {};
}

export interface AnthropicIds {
  /** The message id (`msg_…`). Random when absent. */
  messageId?: string;
}

/**
 * Translates a (non-streaming) chat completion to an Anthropic `message`. `request` is the original
 * Anthropic body (its stop_sequences decide `stop_sequence`). Only choice 0 is used.
 *
 * Content order: a thinking block (when there is reasoning), a text block (when there is text, or
 * when the content would otherwise be empty), then one tool_use block per tool call.
 */
export function chatToAnthropicResponse(
  completion: ChatCompletion,
  request: unknown,
  ids: AnthropicIds = {},
): AnthropicMessage {
  const choice = completion.choices.find((c) => c.index === 0) ?? completion.choices[0];
  const msg = choice?.message;
  const reasoning = msg ? reasoningOf(msg) : undefined;
  const text = typeof msg?.content === "string" ? msg.content : "";
  const calls = msg?.tool_calls ?? [];
  const content: AnthropicContentBlock[] = [];
  if (reasoning) content.push({ type: "thinking", thinking: reasoning, signature: "" });
  if (text || (content.length === 0 && calls.length === 0)) {
    content.push({ type: "text", text, citations: null });
  }
  for (const c of calls) {
    content.push({
      type: "tool_use",
      id: c.id || base62Id("toolu_"),
      name: c.function.name,
      input: toolInput(c.function.arguments),
      caller: { type: "direct" },
    });
  }
  return {
    id: ids.messageId ?? base62Id("msg_"),
    type: "message",
    role: "assistant",
    model: completion.model,
    content,
    ...stopReason(choice?.finish_reason ?? null, choice?.stop_reason, calls.length > 0, request),
    stop_details: null,
    container: null,
    diagnostics: null,
    usage: chatUsageToAnthropic(completion.usage),
  };
}
