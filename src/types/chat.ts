/**
 * The OpenAI Chat Completions wire format: the gateway's canonical internal shape. Every agent-facing
 * API (Responses, Anthropic Messages, Completions) is translated to and from it, and every upstream
 * adapter speaks it. Request schemas are loose (`passthrough`) because agents send many fields we
 * forward untouched; the fields we read are typed.
 */
import { z } from "zod";

export const ToolCallSchema = z.object({
  id: z.string(),
  type: z.literal("function"),
  function: z.object({ name: z.string(), arguments: z.string() }),
});
export type ToolCall = z.infer<typeof ToolCallSchema>;

const TextPart = z.looseObject({ type: z.literal("text"), text: z.string() });
const OtherPart = z.looseObject({ type: z.string() });
export const ContentPartSchema = z.union([TextPart, OtherPart]);
export type ContentPart = { type: "text"; text: string } | { type: string; [k: string]: unknown };

export const ChatMessageSchema = z.looseObject({
  role: z.enum(["system", "developer", "user", "assistant", "tool", "function"]),
  content: z.union([z.string(), z.array(ContentPartSchema), z.null()]).optional(),
  name: z.string().optional(),
  tool_calls: z.array(ToolCallSchema).optional(),
  tool_call_id: z.string().optional(),
  /** vLLM/SGLang/DeepSeek name for the model's thinking text. */
  reasoning_content: z.string().nullable().optional(),
});
export interface ChatMessage {
  role: "system" | "developer" | "user" | "assistant" | "tool" | "function";
  content?: string | ContentPart[] | null;
  name?: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  reasoning_content?: string | null;
  [k: string]: unknown;
}

export const ToolSchema = z.looseObject({
  type: z.literal("function"),
  function: z.looseObject({
    name: z.string(),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
  }),
});
export type Tool = z.infer<typeof ToolSchema>;

/** Sampling parameters the gateway understands (and a session may pin). */
export const SamplingParamsSchema = z.strictObject({
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().gt(0).max(1).optional(),
  top_k: z.number().int().optional(),
  min_p: z.number().min(0).max(1).optional(),
  max_tokens: z.number().int().positive().optional(),
  stop: z.union([z.string(), z.array(z.string())]).optional(),
  seed: z.number().int().optional(),
  presence_penalty: z.number().optional(),
  frequency_penalty: z.number().optional(),
  repetition_penalty: z.number().optional(),
  n: z.number().int().positive().max(128).optional(),
});
export type SamplingParams = z.infer<typeof SamplingParamsSchema>;

export const ChatCompletionRequestSchema = z.looseObject({
  model: z.string().optional(),
  messages: z.array(ChatMessageSchema).min(1, "messages must hold at least one message"),
  tools: z.array(ToolSchema).optional(),
  tool_choice: z.unknown().optional(),
  stream: z.boolean().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullable().optional(),
  n: z.number().int().positive().max(128).optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  top_p: z.number().gt(0).max(1).nullable().optional(),
  max_tokens: z.number().int().positive().nullable().optional(),
  max_completion_tokens: z.number().int().positive().nullable().optional(),
  stop: z
    .union([z.string(), z.array(z.string())])
    .nullable()
    .optional(),
  logprobs: z.boolean().nullable().optional(),
  top_logprobs: z.number().int().min(0).max(20).nullable().optional(),
  seed: z.number().int().nullable().optional(),
});
export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequestSchema>;

export interface TokenLogprob {
  token: string;
  logprob: number;
  bytes?: number[] | null;
  top_logprobs?: { token: string; logprob: number; bytes?: number[] | null }[];
}

export type FinishReason = "stop" | "length" | "tool_calls" | "content_filter" | "function_call";

export interface ChatCompletionChoice {
  index: number;
  message: {
    role: "assistant";
    content: string | null;
    reasoning_content?: string | null;
    tool_calls?: ToolCall[];
    [k: string]: unknown;
  };
  finish_reason: FinishReason | string | null;
  logprobs?: { content: TokenLogprob[] | null } | null;
  /** vLLM `return_token_ids`: the sampled ids of this choice. */
  token_ids?: number[] | null;
  [k: string]: unknown;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  [k: string]: unknown;
}

export interface ChatCompletion {
  id: string;
  object: "chat.completion";
  created: number;
  model: string;
  choices: ChatCompletionChoice[];
  usage?: Usage;
  /** vLLM `return_token_ids`: the prompt as token ids. */
  prompt_token_ids?: number[] | null;
  [k: string]: unknown;
}

export interface ChatCompletionChunkChoice {
  index: number;
  delta: {
    role?: "assistant";
    content?: string | null;
    reasoning_content?: string | null;
    tool_calls?: {
      index: number;
      id?: string;
      type?: "function";
      function?: { name?: string; arguments?: string };
    }[];
    [k: string]: unknown;
  };
  finish_reason: FinishReason | string | null;
  logprobs?: { content: TokenLogprob[] | null } | null;
  token_ids?: number[] | null;
  [k: string]: unknown;
}

export interface ChatCompletionChunk {
  id: string;
  object: "chat.completion.chunk";
  created: number;
  model: string;
  choices: ChatCompletionChunkChoice[];
  usage?: Usage | null;
  prompt_token_ids?: number[] | null;
  [k: string]: unknown;
}

/** The text of a message's content, whatever its form (string or parts). */
export function contentText(content: ChatMessage["content"]): string {
  if (content == null) return "";
  if (typeof content === "string") return content;
  return content
    .map((p) => (p.type === "text" && typeof p.text === "string" ? p.text : ""))
    .join("");
}
