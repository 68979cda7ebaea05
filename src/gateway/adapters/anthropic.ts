/**
 * Anthropic Messages API ⇄ Chat Completions, as pure functions: agents that speak Anthropic
 * Messages (`POST /v1/messages`, e.g. Claude Code or the `@anthropic-ai/sdk` client) are served by
 * an upstream that only speaks Chat Completions.
 *
 * Shapes follow the `@anthropic-ai/sdk` types (resources/messages/messages.d.ts); the tests replay
 * our streams through that client's own MessageStream accumulator.
 */
import { z } from "zod";
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionRequest,
  ChatMessage,
  ContentPart,
  Tool,
  ToolCall,
  Usage,
} from "../../types/chat.js";
import { badRequestFromIssues } from "../errors.js";
import {
  base62Id,
  check,
  type Issue,
  isRecord,
  mustBe,
  num,
  parseArgsObject,
  reasoningOf,
  type SseEvent,
  str,
} from "./sse.js";
import { type BlockSink, ChatBlockStream } from "./stream-blocks.js";

// ---------------------------------------------------------------------------------------------
// Output shapes
// ---------------------------------------------------------------------------------------------

export interface AnthropicTextBlock {
  type: "text";
  text: string;
  citations: null;
}

export interface AnthropicThinkingBlock {
  type: "thinking";
  thinking: string;
  /**
   * Always "": the upstream is not Claude, so there is nothing to sign. Clients pass it back
   * unchanged and this translator ignores it on the way in.
   */
  signature: string;
}

export interface AnthropicToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: Record<string, unknown>;
  caller: { type: "direct" };
}

export type AnthropicContentBlock =
  | AnthropicTextBlock
  | AnthropicThinkingBlock
  | AnthropicToolUseBlock;

export type AnthropicStopReason =
  | "end_turn"
  | "max_tokens"
  | "stop_sequence"
  | "tool_use"
  | "pause_turn"
  | "refusal";

export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: null;
  inference_geo: null;
  output_tokens_details: { thinking_tokens: number } | null;
  server_tool_use: null;
  service_tier: null;
  speed: null;
}

export interface AnthropicMessage {
  id: string;
  type: "message";
  role: "assistant";
  model: string;
  content: AnthropicContentBlock[];
  stop_reason: AnthropicStopReason | null;
  stop_sequence: string | null;
  stop_details: null;
  container: null;
  diagnostics: null;
  usage: AnthropicUsage;
}

export type AnthropicErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "billing_error"
  | "permission_error"
  | "not_found_error"
  | "request_too_large"
  | "rate_limit_error"
  | "timeout_error"
  | "api_error"
  | "overloaded_error";

export interface AnthropicErrorBody {
  type: "error";
  error: { type: AnthropicErrorType; message: string };
  request_id: string | null;
}

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

const ERROR_TYPES = new Set<string>([
  "invalid_request_error",
  "authentication_error",
  "billing_error",
  "permission_error",
  "not_found_error",
  "request_too_large",
  "rate_limit_error",
  "timeout_error",
  "api_error",
  "overloaded_error",
]);

function errorTypeForStatus(status: number): AnthropicErrorType {
  switch (status) {
    case 400:
    case 422:
      return "invalid_request_error";
    case 401:
      return "authentication_error";
    case 402:
      return "billing_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 413:
      return "request_too_large";
    case 429:
      return "rate_limit_error";
    case 504:
      return "timeout_error";
    // An unavailable upstream is what Anthropic reports as overloaded (529); clients retry it.
    case 503:
    case 529:
      return "overloaded_error";
    default:
      return status >= 400 && status < 500 ? "invalid_request_error" : "api_error";
  }
}

/**
 * The Anthropic error body `{type: "error", error: {type, message}, request_id}`. A `type` that is
 * already an Anthropic error type wins; otherwise (e.g. the gateway's OpenAI-style
 * "upstream_error") the type follows the status as Anthropic's API maps them.
 */
export function anthropicErrorBody(err: {
  status: number;
  message: string;
  type?: string;
  requestId?: string | null;
}): AnthropicErrorBody {
  const type =
    err.type && ERROR_TYPES.has(err.type)
      ? (err.type as AnthropicErrorType)
      : errorTypeForStatus(err.status);
  return {
    type: "error",
    error: { type, message: err.message },
    request_id: err.requestId ?? null,
  };
}

/** The same error as a stream event (`event: error`), for failures after the stream began. */
export function anthropicErrorEvent(err: {
  status: number;
  message: string;
  type?: string;
}): SseEvent {
  return { event: "error", data: anthropicErrorBody(err) };
}

/** A keep-alive event; SDK clients skip it. */
export function anthropicPingEvent(): SseEvent {
  return { event: "ping", data: { type: "ping" } };
}

// ---------------------------------------------------------------------------------------------
// Request: Anthropic → Chat Completions
// ---------------------------------------------------------------------------------------------

const TextBlockSchema = z.looseObject({
  type: z.literal("text"),
  text: z.string(mustBe("a string")),
});

const RequestSchema = z.looseObject(
  {
    model: z.string(mustBe("a string")),
    max_tokens: z.number(mustBe("a positive integer")).int().positive(),
    messages: z
      .array(z.unknown(), mustBe("an array of messages"))
      .min(1, "must hold at least one message"),
    system: z
      .union([z.string(), z.array(TextBlockSchema)], mustBe("a string or an array of text blocks"))
      .optional(),
    stop_sequences: z.array(z.string(), mustBe("an array of strings")).optional(),
    // Anthropic caps temperature at 1; chat upstreams accept up to 2, so we do too.
    temperature: z.number(mustBe("a number between 0 and 2")).min(0).max(2).optional(),
    top_p: z.number(mustBe("a number in (0, 1]")).gt(0).max(1).optional(),
    top_k: z.number(mustBe("an integer")).int().optional(),
    stream: z.boolean(mustBe("a boolean")).optional(),
    tools: z.array(z.unknown(), mustBe("an array of tools")).optional(),
    tool_choice: z.unknown().optional(),
    thinking: z.unknown().optional(),
    output_config: z.unknown().optional(),
  },
  mustBe("a JSON object"),
);

const MessageSchema = z.looseObject({
  role: z.enum(["user", "assistant", "system"], {
    error: (iss) => (iss.input === undefined ? "required" : "must be user or assistant"),
  }),
  content: z.union(
    [z.string(), z.array(z.unknown())],
    mustBe("a string or an array of content blocks"),
  ),
});

const ImageBlockSchema = z.looseObject({
  source: z.discriminatedUnion(
    "type",
    [
      z.looseObject({
        type: z.literal("base64"),
        media_type: z.string(mustBe("a string")),
        data: z.string(mustBe("a string")),
      }),
      z.looseObject({ type: z.literal("url"), url: z.string(mustBe("a string")) }),
    ],
    {
      error: () =>
        "must be {type: 'base64', media_type, data} or {type: 'url', url} (file sources are not supported)",
    },
  ),
});

const DocumentBlockSchema = z.looseObject({
  source: z.looseObject({ type: z.string(mustBe("a string")) }, mustBe("an object")),
});

const ToolUseBlockSchema = z.looseObject({
  id: z.string(mustBe("a string")),
  name: z.string(mustBe("a string")),
  input: z.unknown(),
});

const ToolResultBlockSchema = z.looseObject({
  tool_use_id: z.string(mustBe("a string")),
  content: z
    .union([z.string(), z.array(z.unknown())], mustBe("a string or an array of content blocks"))
    .optional(),
  is_error: z.boolean(mustBe("a boolean")).optional(),
});

const ThinkingBlockSchema = z.looseObject({ thinking: z.string(mustBe("a string")) });

const ToolSchema = z.looseObject({
  name: z.string(mustBe("a string")),
  description: z.string(mustBe("a string")).optional(),
  input_schema: z.record(z.string(), z.unknown(), mustBe("a JSON schema object")),
});

/** User-side content blocks (text, image, document) in chat part form. */
function convertUserBlock(
  raw: Record<string, unknown>,
  type: string,
  at: PropertyKey[],
  issues: Issue[],
): ContentPart | undefined {
  switch (type) {
    case "text": {
      const b = check(TextBlockSchema, raw, at, issues);
      return b ? { type: "text", text: b.text } : undefined;
    }
    case "image": {
      const b = check(ImageBlockSchema, raw, at, issues);
      if (!b) return undefined;
      const url =
        b.source.type === "base64"
          ? `data:${b.source.media_type};base64,${b.source.data}`
          : b.source.url;
      return { type: "image_url", image_url: { url } };
    }
    case "document": {
      const b = check(DocumentBlockSchema, raw, at, issues);
      if (!b) return undefined;
      // Plain-text documents are text to a chat model; PDFs would need a renderer we lack.
      const src = b.source as Record<string, unknown>;
      if (src.type === "text" && typeof src.data === "string")
        return { type: "text", text: src.data };
      if (src.type === "content") {
        if (typeof src.content === "string") return { type: "text", text: src.content };
        if (Array.isArray(src.content)) {
          const texts = src.content.map((c) => str(c, "text") ?? "");
          return { type: "text", text: texts.join("\n") };
        }
      }
      issues.push({
        path: [...at, "source", "type"],
        message: "only plain-text documents are supported (PDF and file sources are not)",
      });
      return undefined;
    }
    default:
      issues.push({
        path: [...at, "type"],
        message: `'${type}' blocks are not supported here (use text, image, document, tool_result)`,
      });
      return undefined;
  }
}

function textOnly(parts: ContentPart[]): boolean {
  return parts.every((p) => p.type === "text");
}

function joinParts(parts: ContentPart[], sep: string): string {
  return parts.map((p) => (typeof p.text === "string" ? p.text : "")).join(sep);
}

/** Maps `tool_result.content` to a tool message's content. */
function toolResultContent(
  content: string | unknown[] | undefined,
  at: PropertyKey[],
  issues: Issue[],
): string | ContentPart[] {
  if (content === undefined) return "";
  if (typeof content === "string") return content;
  const parts: ContentPart[] = [];
  content.forEach((raw, k) => {
    const bat = [...at, k];
    const type = str(raw, "type");
    if (!isRecord(raw) || type === undefined) {
      issues.push({ path: [...bat, "type"], message: "required" });
      return;
    }
    const p = convertUserBlock(raw, type, bat, issues);
    if (p) parts.push(p);
  });
  // Chat templates render a tool message's content reliably only as a string; separate blocks
  // are separate paragraphs to the model, as they would be when vLLM joins text parts.
  return textOnly(parts) ? joinParts(parts, "\n") : parts;
}

/**
 * Validates an Anthropic Messages request body and translates it to a Chat Completions request.
 *
 * - `system` (string or text blocks) becomes a leading system message.
 * - Assistant `thinking` blocks become `reasoning_content`; `redacted_thinking` is dropped (it is
 *   opaque); `tool_use` blocks become `tool_calls` with `arguments = JSON.stringify(input)`; text
 *   blocks join into one string (text written after a tool_use therefore precedes the calls).
 * - User `tool_result` blocks become `tool` messages placed before the rest of that user message:
 *   a chat `tool` message must follow the assistant message that made the call. `is_error` has no
 *   chat equivalent; the content (which carries the error text) is kept and an empty error
 *   result reads "Error".
 * - `stop_sequences` → `stop`, `top_k` is forwarded, `thinking` → `chat_template_kwargs.
 *   enable_thinking`, `tool_choice` any → required, `disable_parallel_tool_use` →
 *   `parallel_tool_calls: false`. Fields clients commonly send (metadata, service_tier,
 *   cache_control, …) are tolerated and not forwarded.
 *
 * Throws HttpError 400 naming the offending field.
 */
export function anthropicRequestToChat(body: unknown): ChatCompletionRequest {
  const issues: Issue[] = [];
  const req = check(RequestSchema, body, [], issues);
  if (!req) throw badRequestFromIssues("Anthropic Messages request", issues);

  const messages: ChatMessage[] = [];
  if (req.system !== undefined) {
    if (typeof req.system === "string") {
      if (req.system) messages.push({ role: "system", content: req.system });
    } else if (req.system.length > 0) {
      messages.push({
        role: "system",
        content: req.system.map((b) => ({ type: "text", text: b.text })),
      });
    }
  }

  req.messages.forEach((raw, i) => {
    const at: PropertyKey[] = ["messages", i];
    const m = check(MessageSchema, raw, at, issues);
    if (!m) return;
    if (typeof m.content === "string") {
      messages.push({ role: m.role, content: m.content });
      return;
    }
    if (m.role === "assistant") {
      messages.push(convertAssistant(m.content, [...at, "content"], issues));
      return;
    }
    // User (or system) blocks: tool results first, as tool messages, then the rest.
    const tools: ChatMessage[] = [];
    const parts: ContentPart[] = [];
    m.content.forEach((block, j) => {
      const bat: PropertyKey[] = [...at, "content", j];
      const type = str(block, "type");
      if (!isRecord(block) || type === undefined) {
        issues.push({ path: [...bat, "type"], message: "required" });
        return;
      }
      if (type === "tool_result" && m.role === "user") {
        const b = check(ToolResultBlockSchema, block, bat, issues);
        if (!b) return;
        let content = toolResultContent(b.content, [...bat, "content"], issues);
        if (b.is_error && (content === "" || (Array.isArray(content) && content.length === 0))) {
          content = "Error";
        }
        tools.push({ role: "tool", tool_call_id: b.tool_use_id, content });
        return;
      }
      if (type === "tool_use" || type === "thinking" || type === "redacted_thinking") {
        issues.push({
          path: [...bat, "type"],
          message: `'${type}' blocks belong in assistant messages`,
        });
        return;
      }
      const p = convertUserBlock(block, type, bat, issues);
      if (p) parts.push(p);
    });
    messages.push(...tools);
    if (parts.length > 0 || tools.length === 0) {
      messages.push({
        role: m.role,
        content: m.role === "system" ? joinParts(parts, "\n") : parts,
      });
    }
  });

  const out: ChatCompletionRequest = { messages, model: req.model, max_tokens: req.max_tokens };

  if (req.tools) {
    const tools: Tool[] = [];
    req.tools.forEach((raw, i) => {
      const type = str(raw, "type");
      // Client tools carry no type (or "custom"); typed ones are Anthropic-hosted or built-in.
      if (type !== undefined && type !== "custom") {
        issues.push({
          path: ["tools", i, "type"],
          message: `'${type}' tools are not supported; a Chat Completions upstream can only be given client tools (name, description, input_schema)`,
        });
        return;
      }
      const t = check(ToolSchema, raw, ["tools", i], issues);
      if (!t) return;
      const fn: Tool["function"] = { name: t.name, parameters: t.input_schema };
      if (t.description) fn.description = t.description;
      tools.push({ type: "function", function: fn });
    });
    if (tools.length > 0) out.tools = tools;
  }

  if (req.tool_choice !== undefined) {
    const tc = req.tool_choice;
    const type = str(tc, "type");
    if (type === "auto") out.tool_choice = "auto";
    else if (type === "any") out.tool_choice = "required";
    else if (type === "none") out.tool_choice = "none";
    else if (type === "tool") {
      const name = str(tc, "name");
      if (name) out.tool_choice = { type: "function", function: { name } };
      else issues.push({ path: ["tool_choice", "name"], message: "required" });
    } else {
      issues.push({ path: ["tool_choice", "type"], message: "must be auto, any, tool or none" });
    }
    if (isRecord(tc) && tc.disable_parallel_tool_use === true) out.parallel_tool_calls = false;
  }

  if (req.thinking !== undefined) {
    const type = str(req.thinking, "type");
    if (type === "enabled") {
      const budget = num(req.thinking, "budget_tokens");
      if (budget === undefined || !Number.isInteger(budget) || budget <= 0) {
        issues.push({ path: ["thinking", "budget_tokens"], message: "must be a positive integer" });
      }
      out.chat_template_kwargs = { enable_thinking: true };
    } else if (type === "adaptive") {
      out.chat_template_kwargs = { enable_thinking: true };
    } else if (type === "disabled") {
      out.chat_template_kwargs = { enable_thinking: false };
    } else if (type !== "between_tools") {
      issues.push({
        path: ["thinking", "type"],
        message: "must be enabled, adaptive or disabled",
      });
    }
  }

  if (isRecord(req.output_config)) {
    const format = req.output_config.format;
    if (isRecord(format)) {
      if (format.type === "json_schema" && isRecord(format.schema)) {
        out.response_format = {
          type: "json_schema",
          json_schema: { name: "output", schema: format.schema },
        };
      } else {
        issues.push({
          path: ["output_config", "format"],
          message: "must be {type: 'json_schema', schema}",
        });
      }
    }
  }

  if (req.stop_sequences && req.stop_sequences.length > 0) out.stop = req.stop_sequences;
  if (req.temperature !== undefined) out.temperature = req.temperature;
  if (req.top_p !== undefined) out.top_p = req.top_p;
  if (req.top_k !== undefined) out.top_k = req.top_k;
  if (req.stream) {
    out.stream = true;
    // message_delta reports usage, which a chat stream only sends when asked.
    out.stream_options = { include_usage: true };
  }

  if (issues.length > 0) throw badRequestFromIssues("Anthropic Messages request", issues);
  return out;
}

function convertAssistant(blocks: unknown[], path: PropertyKey[], issues: Issue[]): ChatMessage {
  let text = "";
  let reasoning = "";
  const calls: ToolCall[] = [];
  blocks.forEach((block, j) => {
    const at = [...path, j];
    const type = str(block, "type");
    if (!isRecord(block) || type === undefined) {
      issues.push({ path: [...at, "type"], message: "required" });
      return;
    }
    switch (type) {
      case "text": {
        const b = check(TextBlockSchema, block, at, issues);
        if (b) text += b.text;
        return;
      }
      case "thinking": {
        const b = check(ThinkingBlockSchema, block, at, issues);
        if (b) reasoning += b.thinking;
        return;
      }
      case "redacted_thinking":
        return; // encrypted by Anthropic; there is no text to show a chat model
      case "tool_use": {
        const b = check(ToolUseBlockSchema, block, at, issues);
        if (!b) return;
        if (!isRecord(b.input)) {
          issues.push({ path: [...at, "input"], message: "must be an object" });
          return;
        }
        calls.push({
          id: b.id,
          type: "function",
          function: { name: b.name, arguments: JSON.stringify(b.input) },
        });
        return;
      }
      default:
        issues.push({
          path: [...at, "type"],
          message: `'${type}' blocks are not supported in assistant messages (use text, thinking, redacted_thinking, tool_use)`,
        });
    }
  });
  const m: ChatMessage = { role: "assistant", content: calls.length > 0 && !text ? null : text };
  if (reasoning) m.reasoning_content = reasoning;
  if (calls.length > 0) m.tool_calls = calls;
  return m;
}

// ---------------------------------------------------------------------------------------------
// Response: Chat Completions → Anthropic
// ---------------------------------------------------------------------------------------------

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
function stopReason(
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

// ---------------------------------------------------------------------------------------------
// Streaming: chat chunks → Anthropic events
// ---------------------------------------------------------------------------------------------

export interface AnthropicStreamOptions extends AnthropicIds {
  /**
   * Prompt tokens, when the gateway knows them before the upstream reports usage; message_start
   * carries them (clients read input usage there). message_delta repeats the upstream's count.
   */
  inputTokens?: number;
}

/**
 * Turns a Chat Completions chunk stream into the Anthropic event stream:
 *
 *   message_start, ping,
 *   per block: content_block_start, content_block_delta…, content_block_stop,
 *   message_delta (stop_reason, stop_sequence, usage), message_stop.
 *
 * Blocks are strictly sequential: a thinking block (thinking_delta, then a signature_delta with the
 * empty signature), a text block (text_delta), tool_use blocks (input_json_delta); a new block
 * closes the open one. A tool call's argument fragments are held until the call is complete and
 * then sent as input_json_delta events: arguments that turn out not to be a JSON object are
 * dropped (input stays `{}`, as in the non-streaming translation) because clients parse the
 * concatenated fragments and a malformed tool input would fail the whole response there.
 *
 * Which blocks open and close when is ChatBlockStream's (stream-blocks.ts); this class only writes
 * Anthropic's events for them. Only choice 0 is translated.
 */
export class AnthropicStreamTranslator {
  private readonly messageId: string;
  private readonly inputTokens: number;
  private started = false;
  private done = false;
  private readonly blocks: ChatBlockStream;
  /** The Anthropic index of the open block. */
  private index = -1;
  /** The open tool_use block's argument fragments, held until it closes. */
  private fragments: string[] = [];
  /** Events of the call in progress (push / finish). */
  private ev: SseEvent[] = [];

  constructor(
    private readonly request: unknown,
    opts: AnthropicStreamOptions = {},
  ) {
    this.messageId = opts.messageId ?? base62Id("msg_");
    this.inputTokens = opts.inputTokens ?? 0;
    this.blocks = new ChatBlockStream(this.sink());
  }

  /** The id of the message being streamed. */
  get id(): string {
    return this.messageId;
  }

  push(chunk: ChatCompletionChunk): SseEvent[] {
    if (this.done) return [];
    this.start(chunk.model);
    this.blocks.push(chunk);
    return this.take();
  }

  /** Closes open blocks and emits message_delta and message_stop. */
  finish(): SseEvent[] {
    if (this.done) return [];
    const b = this.blocks;
    this.start("");
    b.closeAll();
    if (b.blocks === 0) {
      // Keep the content non-empty, as the non-streaming translation does.
      b.text("text", "");
      b.closeAll();
    }
    const usage = chatUsageToAnthropic(b.usage);
    this.done = true;
    this.emit("message_delta", {
      delta: {
        ...stopReason(b.finishReason, b.stopReason, b.sawToolCalls, this.request),
        stop_details: null,
        container: null,
      },
      usage: {
        input_tokens: b.usage ? usage.input_tokens : this.inputTokens,
        output_tokens: usage.output_tokens,
        cache_creation_input_tokens: usage.cache_creation_input_tokens,
        cache_read_input_tokens: usage.cache_read_input_tokens,
        output_tokens_details: usage.output_tokens_details,
        server_tool_use: null,
      },
    });
    this.emit("message_stop", {});
    return this.take();
  }

  /** Ends the stream with an `error` event (e.g. the upstream broke off mid-stream). */
  fail(err: { status: number; message: string; type?: string }): SseEvent[] {
    if (this.done) return [];
    this.done = true;
    return [anthropicErrorEvent(err)];
  }

  private take(): SseEvent[] {
    const ev = this.ev;
    this.ev = [];
    return ev;
  }

  private emit(type: string, fields: Record<string, unknown>): void {
    this.ev.push({ event: type, data: { type, ...fields } });
  }

  private start(model: string): void {
    if (this.started) return;
    this.started = true;
    const message: AnthropicMessage = {
      id: this.messageId,
      type: "message",
      role: "assistant",
      model: model || str(this.request, "model") || "",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      stop_details: null,
      container: null,
      diagnostics: null,
      usage: { ...chatUsageToAnthropic(null), input_tokens: this.inputTokens },
    };
    this.emit("message_start", { message });
    this.ev.push(anthropicPingEvent());
  }

  private startBlock(block: AnthropicContentBlock): void {
    this.index = this.blocks.blocks - 1;
    this.emit("content_block_start", { index: this.index, content_block: block });
  }

  /** Anthropic's events for each step of the block run. */
  private sink(): BlockSink {
    return {
      openText: (kind) =>
        this.startBlock(
          kind === "text"
            ? { type: "text", text: "", citations: null }
            : { type: "thinking", thinking: "", signature: "" },
        ),
      textDelta: (kind, delta) =>
        this.emit("content_block_delta", {
          index: this.index,
          delta:
            kind === "text"
              ? { type: "text_delta", text: delta }
              : { type: "thinking_delta", thinking: delta },
        }),
      closeText: (kind) => {
        if (kind === "reasoning")
          this.emit("content_block_delta", {
            index: this.index,
            delta: { type: "signature_delta", signature: "" },
          });
        this.emit("content_block_stop", { index: this.index });
      },
      openCall: (call, held) => {
        this.fragments = [...held];
        this.startBlock({
          type: "tool_use",
          id: call.id || base62Id("toolu_"),
          name: call.name,
          input: {},
          caller: { type: "direct" },
        });
      },
      callArgs: (_call, delta) => {
        this.fragments.push(delta);
      },
      closeCall: () => {
        // Only a complete JSON object is sent; anything else leaves the input `{}`.
        if (parseArgsObject(this.fragments.join(""))) {
          for (const partial_json of this.fragments)
            this.emit("content_block_delta", {
              index: this.index,
              delta: { type: "input_json_delta", partial_json },
            });
        }
        this.fragments = [];
        this.emit("content_block_stop", { index: this.index });
      },
      // The block's input was already sent.
      lateCallArgs: () => {},
    };
  }
}
