/** Anthropic Messages request → Chat Completions request, validating as it goes. */
import { z } from "zod";
import type {
  ChatCompletionRequest,
  ChatMessage,
  ContentPart,
  Tool,
  ToolCall,
} from "../../../types/chat.js";
import { badRequestFromIssues } from "../../errors.js";
import { check, type Issue, isRecord, mustBe, num, str } from "../sse.js";

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

  const messages: ChatMessage[] = systemMessages(req.system);
  req.messages.forEach((raw, i) => {
    messages.push(...convertMessage(raw, ["messages", i], issues));
  });

  const out: ChatCompletionRequest = { messages, model: req.model, max_tokens: req.max_tokens };
  if (req.tools) {
    const tools = convertTools(req.tools, issues);
    if (tools.length > 0) out.tools = tools;
  }
  if (req.tool_choice !== undefined) applyToolChoice(req.tool_choice, out, issues);
  if (req.thinking !== undefined) applyThinking(req.thinking, out, issues);
  if (isRecord(req.output_config)) applyOutputConfig(req.output_config, out, issues);

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

/** `system` (a string or text blocks) as the leading system message, when it says anything. */
function systemMessages(system: z.infer<typeof RequestSchema>["system"]): ChatMessage[] {
  if (system === undefined) return [];
  if (typeof system === "string") return system ? [{ role: "system", content: system }] : [];
  if (system.length === 0) return [];
  return [{ role: "system", content: system.map((b) => ({ type: "text", text: b.text })) }];
}

/** One Anthropic message as chat messages: one, or a user message's tool results then the rest. */
function convertMessage(raw: unknown, at: PropertyKey[], issues: Issue[]): ChatMessage[] {
  const m = check(MessageSchema, raw, at, issues);
  if (!m) return [];
  if (typeof m.content === "string") return [{ role: m.role, content: m.content }];
  if (m.role === "assistant") return [convertAssistant(m.content, [...at, "content"], issues)];
  return convertUserBlocks(m.role, m.content, at, issues);
}

/** User (or system) blocks: tool results first, as tool messages, then the rest. */
function convertUserBlocks(
  role: "user" | "system",
  blocks: unknown[],
  at: PropertyKey[],
  issues: Issue[],
): ChatMessage[] {
  const tools: ChatMessage[] = [];
  const parts: ContentPart[] = [];
  blocks.forEach((block, j) => {
    const bat: PropertyKey[] = [...at, "content", j];
    const type = str(block, "type");
    if (!isRecord(block) || type === undefined) {
      issues.push({ path: [...bat, "type"], message: "required" });
      return;
    }
    if (type === "tool_result" && role === "user") {
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
  const out = [...tools];
  if (parts.length > 0 || tools.length === 0) {
    out.push({ role, content: role === "system" ? joinParts(parts, "\n") : parts });
  }
  return out;
}

/** Client tools as chat function tools; typed (Anthropic-hosted or built-in) tools are refused. */
function convertTools(raw: unknown[], issues: Issue[]): Tool[] {
  const tools: Tool[] = [];
  raw.forEach((rawTool, i) => {
    const type = str(rawTool, "type");
    // Client tools carry no type (or "custom"); typed ones are Anthropic-hosted or built-in.
    if (type !== undefined && type !== "custom") {
      issues.push({
        path: ["tools", i, "type"],
        message: `'${type}' tools are not supported; a Chat Completions upstream can only be given client tools (name, description, input_schema)`,
      });
      return;
    }
    const t = check(ToolSchema, rawTool, ["tools", i], issues);
    if (!t) return;
    const fn: Tool["function"] = { name: t.name, parameters: t.input_schema };
    if (t.description) fn.description = t.description;
    tools.push({ type: "function", function: fn });
  });
  return tools;
}

/** `tool_choice` (any → required) and `disable_parallel_tool_use` → `parallel_tool_calls`. */
function applyToolChoice(tc: unknown, out: ChatCompletionRequest, issues: Issue[]): void {
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

/** `thinking` → `chat_template_kwargs.enable_thinking`. */
function applyThinking(thinking: unknown, out: ChatCompletionRequest, issues: Issue[]): void {
  const type = str(thinking, "type");
  if (type === "enabled") {
    const budget = num(thinking, "budget_tokens");
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

/** `output_config.format` (a JSON schema) → `response_format`. */
function applyOutputConfig(
  config: Record<string, unknown>,
  out: ChatCompletionRequest,
  issues: Issue[],
): void {
  const format = config.format;
  if (!isRecord(format)) return;
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
