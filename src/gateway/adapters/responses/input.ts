/**
 * A Responses request's `input` items → chat messages. Consecutive assistant-side items
 * (reasoning, assistant messages, function calls) of one turn fold into one assistant message:
 * reasoning into `reasoning_content`, text into `content`, calls into `tool_calls` (each `call_id`
 * becoming the tool call's id; custom tool calls, local shell calls and namespace members named as
 * tools.ts sends them); their output items become `tool` messages.
 */
import { z } from "zod";
import type { ChatMessage, ContentPart } from "../../../types/chat.js";
import { check, type Issue, isRecord, mustBe, str } from "../sse.js";
import { chatToolName, LOCAL_SHELL } from "./tools.js";

const TextPartSchema = z.looseObject({ text: z.string(mustBe("a string")) });
const ImagePartSchema = z.looseObject({
  image_url: z.string({
    error: (iss) =>
      iss.input === undefined
        ? "required (images by file_id are not supported; send a URL or a data: URL)"
        : "must be a string",
  }),
  detail: z.string(mustBe("a string")).nullish(),
});
const FilePartSchema = z.looseObject({
  file_data: z.string(mustBe("a string")).optional(),
  file_id: z.string(mustBe("a string")).nullish(),
  filename: z.string(mustBe("a string")).optional(),
});
const RefusalPartSchema = z.looseObject({ refusal: z.string(mustBe("a string")) });

const MessageItemSchema = z.looseObject({
  role: z.enum(["user", "assistant", "system", "developer"], {
    error: (iss) =>
      iss.input === undefined ? "required" : "must be one of user, assistant, system, developer",
  }),
  content: z.union([z.string(), z.array(z.unknown())], mustBe("a string or an array of parts")),
});
const FunctionCallItemSchema = z.looseObject({
  call_id: z.string(mustBe("a string")),
  name: z.string(mustBe("a string")),
  arguments: z.string(mustBe("a JSON string")),
  namespace: z.string(mustBe("a string")).nullish(),
});
const CustomToolCallItemSchema = z.looseObject({
  call_id: z.string(mustBe("a string")),
  name: z.string(mustBe("a string")),
  input: z.string(mustBe("a string")),
  namespace: z.string(mustBe("a string")).nullish(),
});
const LocalShellCallItemSchema = z.looseObject({
  id: z.string(mustBe("a string")).nullish(),
  call_id: z.string(mustBe("a string")),
  action: z.looseObject(
    {
      type: z.literal("exec", "must be exec"),
      command: z.array(z.string(), mustBe("an array of strings")),
      working_directory: z.string(mustBe("a string")).nullish(),
      timeout_ms: z.number(mustBe("a number")).nullish(),
    },
    mustBe("an exec action"),
  ),
});
const LocalShellCallOutputItemSchema = z.looseObject({
  id: z.string(mustBe("a string")),
  output: z.string(mustBe("a string")),
});
/** function_call_output and custom_tool_call_output have the same shape. */
const CallOutputItemSchema = z.looseObject({
  call_id: z.string(mustBe("a string")),
  output: z.union([z.string(), z.array(z.unknown())], mustBe("a string or an array of parts")),
});
const ReasoningItemSchema = z.looseObject({
  summary: z
    .array(z.looseObject({ text: z.string(mustBe("a string")) }), mustBe("an array"))
    .optional(),
  content: z
    .array(z.looseObject({ text: z.string(mustBe("a string")) }), mustBe("an array"))
    .nullish(),
});

/** Parts of a message's content, in chat form. */
function convertParts(parts: unknown[], path: PropertyKey[], issues: Issue[]): ContentPart[] {
  const out: ContentPart[] = [];
  parts.forEach((raw, j) => {
    const at = [...path, j];
    const type = str(raw, "type");
    switch (type) {
      case "input_text":
      case "output_text":
      case "text": {
        const p = check(TextPartSchema, raw, at, issues);
        if (p) out.push({ type: "text", text: p.text });
        break;
      }
      case "refusal": {
        // Chat has a separate `refusal` field only on responses; as history it is plain text.
        const p = check(RefusalPartSchema, raw, at, issues);
        if (p) out.push({ type: "text", text: p.refusal });
        break;
      }
      case "input_image": {
        const p = check(ImagePartSchema, raw, at, issues);
        if (p) {
          const image_url: Record<string, unknown> = { url: p.image_url };
          if (p.detail) image_url.detail = p.detail;
          out.push({ type: "image_url", image_url });
        }
        break;
      }
      case "input_file": {
        const p = check(FilePartSchema, raw, at, issues);
        if (!p) break;
        if (p.file_data === undefined && !p.file_id) {
          issues.push({
            path: [...at, "file_data"],
            message: "required (file_url is not supported by Chat Completions)",
          });
          break;
        }
        const file: Record<string, unknown> = {};
        if (p.file_data !== undefined) file.file_data = p.file_data;
        if (p.file_id) file.file_id = p.file_id;
        if (p.filename !== undefined) file.filename = p.filename;
        out.push({ type: "file", file });
        break;
      }
      default:
        issues.push({
          path: [...at, "type"],
          message:
            type === undefined
              ? "required"
              : `'${type}' content parts are not supported (use input_text, input_image, input_file)`,
        });
    }
  });
  return out;
}

function allText(parts: ContentPart[]): parts is { type: "text"; text: string }[] {
  return parts.every((p) => p.type === "text" && typeof p.text === "string");
}

function joinText(parts: ContentPart[]): string {
  return parts.map((p) => (typeof p.text === "string" ? p.text : "")).join("");
}

/** Appends text to an assistant message's content, which this translator keeps as a string. */
function appendAssistantText(m: ChatMessage, text: string): void {
  m.content = typeof m.content === "string" ? m.content + text : text;
}

/** The chat messages built so far, and the assistant message of the turn in progress. */
class Conversation {
  readonly messages: ChatMessage[] = [];
  /** The assistant message of the current turn, open while its items keep coming. */
  turn: ChatMessage | null = null;
  /** Local shell calls' item ids → their call ids. */
  readonly callIds = new Map<string, string>();

  /** Ends the current assistant turn. */
  flush(): void {
    if (this.turn) this.messages.push(this.turn);
    this.turn = null;
  }

  /** The current assistant turn, opened if none is. */
  assistant(): ChatMessage {
    this.turn ??= { role: "assistant", content: null };
    return this.turn;
  }

  /** Ends the current assistant turn and appends a message of another role. */
  push(m: ChatMessage): void {
    this.flush();
    this.messages.push(m);
  }
}

/** Translates `input` items to chat messages, in order; problems go to `issues`. */
export function convertInput(input: unknown[], issues: Issue[]): ChatMessage[] {
  const conv = new Conversation();
  for (const [i, raw] of input.entries()) {
    const at: PropertyKey[] = ["input", i];
    if (!isRecord(raw)) {
      issues.push({ path: at, message: "must be an input item object" });
      continue;
    }
    // Easy input messages may omit `type`; a `role` makes them messages.
    const type = str(raw, "type") ?? (raw.role !== undefined ? "message" : undefined);
    switch (type) {
      case "message":
        addMessage(conv, raw, at, issues);
        break;
      case "reasoning":
        addReasoning(conv, raw, at, issues);
        break;
      case "function_call":
        addFunctionCall(conv, raw, at, issues);
        break;
      case "custom_tool_call":
        addCustomToolCall(conv, raw, at, issues);
        break;
      case "local_shell_call":
        addLocalShellCall(conv, raw, at, issues);
        break;
      case "function_call_output":
      case "custom_tool_call_output":
        addCallOutput(conv, raw, at, issues);
        break;
      case "local_shell_call_output":
        addLocalShellOutput(conv, raw, at, issues);
        break;
      case "item_reference":
        issues.push({
          path: [...at, "type"],
          message:
            "item_reference is not supported: this gateway is stateless; send the referenced item itself",
        });
        break;
      case undefined:
        issues.push({ path: [...at, "type"], message: "required" });
        break;
      default:
        issues.push({
          path: [...at, "type"],
          message: `'${type}' items are not supported (use message, reasoning, function_call, custom_tool_call, local_shell_call and their outputs)`,
        });
    }
  }
  conv.flush();
  return conv.messages;
}

function addMessage(conv: Conversation, raw: unknown, at: PropertyKey[], issues: Issue[]): void {
  const m = check(MessageItemSchema, raw, at, issues);
  if (!m) return;
  const parts =
    typeof m.content === "string" ? m.content : convertParts(m.content, [...at, "content"], issues);
  if (m.role === "assistant") {
    const text = typeof parts === "string" ? parts : joinText(parts);
    // Text after this turn's tool calls would be reordered before them; start a new one.
    if (conv.turn?.tool_calls?.length) conv.flush();
    appendAssistantText(conv.assistant(), text);
    return;
  }
  conv.push({
    role: m.role,
    // Text-only part lists stay lists: the upstream joins them as it would for a chat client.
    content: parts,
  });
}

function addReasoning(conv: Conversation, raw: unknown, at: PropertyKey[], issues: Issue[]): void {
  const r = check(ReasoningItemSchema, raw, at, issues);
  if (!r) return;
  // Raw reasoning text (what we emit) is preferred; summaries are all a hosted model returns.
  const text = r.content?.length
    ? r.content.map((c) => c.text).join("")
    : (r.summary ?? []).map((s) => s.text).join("\n\n");
  const cur = conv.turn;
  // Reasoning after text or calls belongs to a later model turn of the same response.
  if (cur && (cur.tool_calls?.length || (typeof cur.content === "string" && cur.content)))
    conv.flush();
  if (!text) return; // only encrypted_content: nothing a chat model could be shown
  const a = conv.assistant();
  a.reasoning_content = (a.reasoning_content ?? "") + text;
}

function addFunctionCall(
  conv: Conversation,
  raw: unknown,
  at: PropertyKey[],
  issues: Issue[],
): void {
  const c = check(FunctionCallItemSchema, raw, at, issues);
  if (c)
    addToolCall(
      conv,
      c.call_id,
      chatToolName({ name: c.name, namespace: c.namespace ?? undefined }),
      c.arguments,
    );
}

/** A custom tool call is a chat call of its function, `input` its one argument (tools.ts). */
function addCustomToolCall(
  conv: Conversation,
  raw: unknown,
  at: PropertyKey[],
  issues: Issue[],
): void {
  const c = check(CustomToolCallItemSchema, raw, at, issues);
  if (!c) return;
  const name = chatToolName({ name: c.name, namespace: c.namespace ?? undefined });
  addToolCall(conv, c.call_id, name, JSON.stringify({ input: c.input }));
}

/** A local shell call is a chat call of `local_shell` with the action's fields (tools.ts). */
function addLocalShellCall(
  conv: Conversation,
  raw: unknown,
  at: PropertyKey[],
  issues: Issue[],
): void {
  const c = check(LocalShellCallItemSchema, raw, at, issues);
  if (!c) return;
  const args: Record<string, unknown> = { command: c.action.command };
  if (c.action.working_directory) args.working_directory = c.action.working_directory;
  if (c.action.timeout_ms != null) args.timeout_ms = c.action.timeout_ms;
  // The output names the call by its item id or its call id; both lead to the chat call's id.
  if (c.id) conv.callIds.set(c.id, c.call_id);
  addToolCall(conv, c.call_id, LOCAL_SHELL, JSON.stringify(args));
}

function addLocalShellOutput(
  conv: Conversation,
  raw: unknown,
  at: PropertyKey[],
  issues: Issue[],
): void {
  const o = check(LocalShellCallOutputItemSchema, raw, at, issues);
  if (!o) return;
  conv.push({ role: "tool", tool_call_id: conv.callIds.get(o.id) ?? o.id, content: o.output });
}

function addToolCall(conv: Conversation, id: string, name: string, args: string): void {
  const a = conv.assistant();
  a.tool_calls ??= [];
  a.tool_calls.push({ id, type: "function", function: { name, arguments: args } });
}

function addCallOutput(conv: Conversation, raw: unknown, at: PropertyKey[], issues: Issue[]): void {
  const o = check(CallOutputItemSchema, raw, at, issues);
  if (!o) return;
  let content: string | ContentPart[];
  if (typeof o.output === "string") content = o.output;
  else {
    const parts = convertParts(o.output, [...at, "output"], issues);
    // Many chat templates render tool content only when it is a string.
    content = allText(parts) ? joinText(parts) : parts;
  }
  conv.push({ role: "tool", tool_call_id: o.call_id, content });
}
