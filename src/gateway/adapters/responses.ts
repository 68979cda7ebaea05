/**
 * OpenAI Responses API ⇄ Chat Completions, as pure functions: agents that speak Responses
 * (`POST /v1/responses`) are served by an upstream that only speaks Chat Completions.
 *
 * The translator is stateless. Anything that needs server-side state (`previous_response_id`,
 * `conversation`, `item_reference` items, `background`, stored prompts) is refused with a 400 that
 * says so, rather than silently dropping context the agent believes the model has seen.
 *
 * Shapes follow the `openai` npm client's types (resources/responses/responses.d.ts); the tests
 * replay our streams through that client's own accumulator.
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
import { badRequestFromIssues, HttpError } from "../errors.js";
import {
  check,
  hexId,
  type Issue,
  isRecord,
  mustBe,
  num,
  reasoningOf,
  type SseEvent,
  str,
} from "./sse.js";
import { type BlockSink, ChatBlockStream, type TextKind } from "./stream-blocks.js";

// ---------------------------------------------------------------------------------------------
// Output shapes (the subset of the Responses object model this translator produces)
// ---------------------------------------------------------------------------------------------

export type ResponsesItemStatus = "in_progress" | "completed" | "incomplete";

export interface ResponsesOutputText {
  type: "output_text";
  text: string;
  annotations: unknown[];
}

export interface ResponsesMessageItem {
  id: string;
  type: "message";
  role: "assistant";
  status: ResponsesItemStatus;
  content: ResponsesOutputText[];
}

export interface ResponsesFunctionCallItem {
  id: string;
  type: "function_call";
  status: ResponsesItemStatus;
  call_id: string;
  name: string;
  arguments: string;
}

export interface ResponsesReasoningItem {
  id: string;
  type: "reasoning";
  summary: { type: "summary_text"; text: string }[];
  content: { type: "reasoning_text"; text: string }[];
}

export type ResponsesOutputItem =
  | ResponsesMessageItem
  | ResponsesFunctionCallItem
  | ResponsesReasoningItem;

export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number; cache_write_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export type ResponsesStatus = "in_progress" | "completed" | "incomplete" | "failed";

export interface ResponsesResponse {
  id: string;
  object: "response";
  created_at: number;
  status: ResponsesStatus;
  /** Only set once the status is `completed`. */
  completed_at: number | null;
  error: { code: string; message: string } | null;
  incomplete_details: { reason: "max_output_tokens" | "content_filter" } | null;
  instructions: string | null;
  max_output_tokens: number | null;
  metadata: Record<string, string>;
  model: string;
  output: ResponsesOutputItem[];
  parallel_tool_calls: boolean;
  previous_response_id: null;
  reasoning: { effort: string | null; summary: string | null };
  /** Always false: nothing is stored, so no later request can refer to this response. */
  store: false;
  background: false;
  temperature: number | null;
  text: { format: unknown };
  tool_choice: unknown;
  tools: unknown[];
  top_p: number | null;
  truncation: "disabled";
  usage: ResponsesUsage | null;
}

// ---------------------------------------------------------------------------------------------
// Request: Responses → Chat Completions
// ---------------------------------------------------------------------------------------------

const RequestSchema = z.looseObject(
  {
    model: z.string(mustBe("a string")).optional(),
    input: z.union([z.string(), z.array(z.unknown())], {
      error: (iss) =>
        iss.input === undefined
          ? "required (this gateway is stateless: send the whole conversation as input)"
          : "must be a string or an array of input items",
    }),
    instructions: z.string(mustBe("a string")).nullish(),
    tools: z.array(z.unknown(), mustBe("an array of tools")).nullish(),
    tool_choice: z.unknown().optional(),
    parallel_tool_calls: z.boolean(mustBe("a boolean")).nullish(),
    max_output_tokens: z.number(mustBe("a positive integer")).int().positive().nullish(),
    temperature: z.number(mustBe("a number between 0 and 2")).min(0).max(2).nullish(),
    top_p: z.number(mustBe("a number in (0, 1]")).gt(0).max(1).nullish(),
    stream: z.boolean(mustBe("a boolean")).nullish(),
    text: z.looseObject({ format: z.unknown().optional() }, mustBe("an object")).nullish(),
    reasoning: z
      .looseObject({ effort: z.string(mustBe("a string")).nullish() }, mustBe("an object"))
      .nullish(),
    metadata: z.record(z.string(), z.string(), mustBe("an object of strings")).nullish(),
  },
  mustBe("a JSON object"),
);

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
});
const FunctionCallOutputItemSchema = z.looseObject({
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

const FunctionToolSchema = z.looseObject({
  type: z.literal("function"),
  name: z.string(mustBe("a string")),
  description: z.string(mustBe("a string")).nullish(),
  parameters: z.record(z.string(), z.unknown(), mustBe("a JSON schema object")).nullish(),
  strict: z.boolean(mustBe("a boolean")).nullish(),
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

/**
 * Validates a Responses API request body and translates it to a Chat Completions request.
 *
 * - `instructions` becomes a leading system message; `max_output_tokens` becomes `max_tokens`.
 * - Consecutive assistant-side items (reasoning, assistant messages, function calls) of one turn
 *   fold into one assistant message: reasoning into `reasoning_content`, text into `content`,
 *   calls into `tool_calls` (each `call_id` becoming the tool call's id).
 * - `function_call_output` items become `tool` messages.
 * - Only function tools are accepted: a chat upstream cannot run hosted tools.
 *
 * Throws HttpError 400 naming the offending field.
 */
export function responsesRequestToChat(body: unknown): ChatCompletionRequest {
  if (isRecord(body)) {
    // Stateful features first: their 400 is more useful than any shape error.
    if (body.previous_response_id != null) {
      throw new HttpError(
        400,
        "previous_response_id is not supported: this gateway is stateless and stores no responses; send the whole conversation in input",
        "invalid_request_error",
        "unsupported_parameter",
      );
    }
    if (body.conversation != null) {
      throw new HttpError(
        400,
        "conversation is not supported: this gateway is stateless; send the whole conversation in input",
        "invalid_request_error",
        "unsupported_parameter",
      );
    }
    if (body.background === true) {
      throw new HttpError(
        400,
        "background is not supported: this gateway is stateless and cannot be polled for a result",
        "invalid_request_error",
        "unsupported_parameter",
      );
    }
    if (body.prompt != null) {
      throw new HttpError(
        400,
        "prompt (a stored prompt template) is not supported: send the instructions and input inline",
        "invalid_request_error",
        "unsupported_parameter",
      );
    }
  }
  const issues: Issue[] = [];
  const req = check(RequestSchema, body, [], issues);
  if (!req) throw badRequestFromIssues("Responses request", issues);

  const messages: ChatMessage[] = [];
  if (req.instructions) messages.push({ role: "system", content: req.instructions });

  if (typeof req.input === "string") {
    messages.push({ role: "user", content: req.input });
  } else {
    // The assistant message of the current turn, open while its items keep coming.
    let turn: ChatMessage | null = null;
    const flush = () => {
      if (turn) messages.push(turn);
      turn = null;
    };
    const assistant = (): ChatMessage => {
      turn ??= { role: "assistant", content: null };
      return turn;
    };
    req.input.forEach((raw, i) => {
      const at: PropertyKey[] = ["input", i];
      if (!isRecord(raw)) {
        issues.push({ path: at, message: "must be an input item object" });
        return;
      }
      // Easy input messages may omit `type`; a `role` makes them messages.
      const type = str(raw, "type") ?? (raw.role !== undefined ? "message" : undefined);
      switch (type) {
        case "message": {
          const m = check(MessageItemSchema, raw, at, issues);
          if (!m) return;
          const parts =
            typeof m.content === "string"
              ? m.content
              : convertParts(m.content, [...at, "content"], issues);
          if (m.role === "assistant") {
            const text = typeof parts === "string" ? parts : joinText(parts);
            const cur = turn as ChatMessage | null;
            // Text after this turn's tool calls would be reordered before them; start a new one.
            if (cur?.tool_calls?.length) flush();
            appendAssistantText(assistant(), text);
            return;
          }
          flush();
          messages.push({
            role: m.role,
            // Text-only part lists stay lists: the upstream joins them as it would for a chat client.
            content: parts,
          });
          return;
        }
        case "reasoning": {
          const r = check(ReasoningItemSchema, raw, at, issues);
          if (!r) return;
          // Raw reasoning text (what we emit) is preferred; summaries are all a hosted model returns.
          const text = r.content?.length
            ? r.content.map((c) => c.text).join("")
            : (r.summary ?? []).map((s) => s.text).join("\n\n");
          const cur = turn as ChatMessage | null;
          // Reasoning after text or calls belongs to a later model turn of the same response.
          if (cur && (cur.tool_calls?.length || (typeof cur.content === "string" && cur.content)))
            flush();
          if (!text) return; // only encrypted_content: nothing a chat model could be shown
          const a = assistant();
          a.reasoning_content = (a.reasoning_content ?? "") + text;
          return;
        }
        case "function_call": {
          const c = check(FunctionCallItemSchema, raw, at, issues);
          if (!c) return;
          const a = assistant();
          a.tool_calls ??= [];
          a.tool_calls.push({
            id: c.call_id,
            type: "function",
            function: { name: c.name, arguments: c.arguments },
          });
          return;
        }
        case "function_call_output": {
          const o = check(FunctionCallOutputItemSchema, raw, at, issues);
          if (!o) return;
          flush();
          let content: string | ContentPart[];
          if (typeof o.output === "string") content = o.output;
          else {
            const parts = convertParts(o.output, [...at, "output"], issues);
            // Many chat templates render tool content only when it is a string.
            content = allText(parts) ? joinText(parts) : parts;
          }
          messages.push({ role: "tool", tool_call_id: o.call_id, content });
          return;
        }
        case "item_reference":
          issues.push({
            path: [...at, "type"],
            message:
              "item_reference is not supported: this gateway is stateless; send the referenced item itself",
          });
          return;
        case undefined:
          issues.push({ path: [...at, "type"], message: "required" });
          return;
        default:
          issues.push({
            path: [...at, "type"],
            message: `'${type}' items are not supported (use message, function_call, function_call_output, reasoning)`,
          });
      }
    });
    flush();
    if (req.input.length === 0 && !req.instructions) {
      issues.push({ path: ["input"], message: "must hold at least one item" });
    }
  }

  // Tools: only functions can be forwarded to a chat upstream.
  let tools: Tool[] | undefined;
  if (req.tools) {
    tools = [];
    req.tools.forEach((raw, i) => {
      const type = str(raw, "type");
      if (type !== "function") {
        issues.push({
          path: ["tools", i, "type"],
          message:
            type === undefined
              ? "required"
              : `'${type}' tools are not supported; a Chat Completions upstream can only be given function tools`,
        });
        return;
      }
      const t = check(FunctionToolSchema, raw, ["tools", i], issues);
      if (!t) return;
      const fn: Tool["function"] = {
        name: t.name,
        // Chat upstreams render the schema into the prompt; an absent one still needs an object.
        parameters: t.parameters ?? { type: "object", properties: {} },
      };
      if (t.description) fn.description = t.description;
      if (typeof t.strict === "boolean") fn.strict = t.strict;
      tools?.push({ type: "function", function: fn });
    });
  }

  const out: ChatCompletionRequest = { messages };
  if (req.model !== undefined) out.model = req.model;

  const choice = convertToolChoice(req.tool_choice, tools, issues);
  if (choice.tools) tools = choice.tools;
  if (tools && tools.length > 0) out.tools = tools;
  if (choice.tool_choice !== undefined) out.tool_choice = choice.tool_choice;
  if (req.parallel_tool_calls != null) out.parallel_tool_calls = req.parallel_tool_calls;

  const format = convertTextFormat(req.text?.format, issues);
  if (format) out.response_format = format;

  if (req.max_output_tokens != null) out.max_tokens = req.max_output_tokens;
  if (req.temperature != null) out.temperature = req.temperature;
  if (req.top_p != null) out.top_p = req.top_p;
  if (req.reasoning?.effort) out.reasoning_effort = req.reasoning.effort;
  if (req.stream) {
    out.stream = true;
    // The final response carries usage, which a chat stream only reports when asked.
    out.stream_options = { include_usage: true };
  }

  if (issues.length > 0) throw badRequestFromIssues("Responses request", issues);
  return out;
}

function convertToolChoice(
  raw: unknown,
  tools: Tool[] | undefined,
  issues: Issue[],
): { tool_choice?: unknown; tools?: Tool[] } {
  if (raw == null) return {};
  if (raw === "none" || raw === "auto" || raw === "required") return { tool_choice: raw };
  const type = str(raw, "type");
  if (type === "function") {
    const name = str(raw, "name");
    if (!name) {
      issues.push({ path: ["tool_choice", "name"], message: "required" });
      return {};
    }
    return { tool_choice: { type: "function", function: { name } } };
  }
  if (type === "allowed_tools" && isRecord(raw)) {
    const mode = raw.mode;
    if (mode !== "auto" && mode !== "required") {
      issues.push({ path: ["tool_choice", "mode"], message: "must be auto or required" });
      return {};
    }
    if (!Array.isArray(raw.tools)) {
      issues.push({ path: ["tool_choice", "tools"], message: "must be an array" });
      return {};
    }
    const allowed = new Set<string>();
    raw.tools.forEach((t, i) => {
      const name = str(t, "name");
      if (str(t, "type") !== "function" || !name) {
        issues.push({
          path: ["tool_choice", "tools", i],
          message: "must be a function tool reference {type: 'function', name}",
        });
      } else allowed.add(name);
    });
    // Chat Completions has no portable "allowed tools"; narrowing the list has the same effect.
    return {
      tool_choice: mode,
      tools: (tools ?? []).filter((t) => allowed.has(t.function.name)),
    };
  }
  issues.push({
    path: ["tool_choice"],
    message:
      "must be none, auto, required, {type: 'function', name} or {type: 'allowed_tools', mode, tools}",
  });
  return {};
}

function convertTextFormat(raw: unknown, issues: Issue[]): unknown {
  if (raw == null) return undefined;
  const type = str(raw, "type");
  if (type === "text") return undefined;
  if (type === "json_object") return { type: "json_object" };
  if (type === "json_schema" && isRecord(raw)) {
    const name = str(raw, "name");
    if (!name) issues.push({ path: ["text", "format", "name"], message: "required" });
    if (!isRecord(raw.schema)) {
      issues.push({ path: ["text", "format", "schema"], message: "must be a JSON schema object" });
    }
    const json_schema: Record<string, unknown> = { name, schema: raw.schema };
    if (typeof raw.description === "string") json_schema.description = raw.description;
    if (typeof raw.strict === "boolean") json_schema.strict = raw.strict;
    return { type: "json_schema", json_schema };
  }
  issues.push({
    path: ["text", "format", "type"],
    message: "must be text, json_object or json_schema",
  });
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Response: Chat Completions → Responses
// ---------------------------------------------------------------------------------------------

/** Maps chat usage to Responses usage (zeros when the upstream reported none). */
export function chatUsageToResponses(usage: Usage | null | undefined): ResponsesUsage {
  const input = usage?.prompt_tokens ?? 0;
  const output = usage?.completion_tokens ?? 0;
  const cached = num(usage?.prompt_tokens_details, "cached_tokens") ?? 0;
  const reasoning = num(usage?.completion_tokens_details, "reasoning_tokens") ?? 0;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: cached, cache_write_tokens: 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: reasoning },
    total_tokens: usage?.total_tokens ?? input + output,
  };
}

export interface ResponsesIds {
  /** The response id (`resp_…`); item ids are derived from it. Random when absent. */
  responseId?: string;
}

function itemId(responseId: string, prefix: string, outputIndex: number): string {
  // Derived ids keep the streamed and non-streamed forms of one response identical.
  return `${prefix}_${responseId.replace(/^resp_/, "")}${outputIndex}`;
}

/** The request fields a response echoes, read tolerantly (the request may be any JSON). */
function baseResponse(
  request: unknown,
  id: string,
  model: string,
  createdAt: number,
): ResponsesResponse {
  const r = isRecord(request) ? request : {};
  const reasoning = isRecord(r.reasoning) ? r.reasoning : {};
  const metadata: Record<string, string> = {};
  if (isRecord(r.metadata)) {
    for (const [k, v] of Object.entries(r.metadata)) if (typeof v === "string") metadata[k] = v;
  }
  return {
    id,
    object: "response",
    created_at: createdAt,
    status: "in_progress",
    completed_at: null,
    error: null,
    incomplete_details: null,
    instructions: str(r, "instructions") ?? null,
    max_output_tokens: num(r, "max_output_tokens") ?? null,
    metadata,
    model,
    output: [],
    parallel_tool_calls: typeof r.parallel_tool_calls === "boolean" ? r.parallel_tool_calls : true,
    previous_response_id: null,
    reasoning: {
      effort: str(reasoning, "effort") ?? null,
      summary: str(reasoning, "summary") ?? null,
    },
    store: false,
    background: false,
    temperature: num(r, "temperature") ?? null,
    text: {
      format: isRecord(r.text) && isRecord(r.text.format) ? r.text.format : { type: "text" },
    },
    tool_choice: r.tool_choice ?? "auto",
    tools: Array.isArray(r.tools) ? r.tools : [],
    top_p: num(r, "top_p") ?? null,
    truncation: "disabled",
    usage: null,
  };
}

/** Sets the terminal status fields for a chat finish reason. */
function finalizeStatus(res: ResponsesResponse, finishReason: string | null, now: number): void {
  if (finishReason === "length") {
    res.status = "incomplete";
    res.incomplete_details = { reason: "max_output_tokens" };
  } else if (finishReason === "content_filter") {
    res.status = "incomplete";
    res.incomplete_details = { reason: "content_filter" };
  } else {
    res.status = "completed";
    res.completed_at = now;
  }
}

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/**
 * Translates a (non-streaming) chat completion to a Responses `response` object. `request` is the
 * original Responses body, whose settings the response echoes. Only choice 0 is used.
 *
 * Output order: a reasoning item (when there is reasoning), a message (when there is text, or
 * when the output would otherwise be empty), then one function_call item per tool call. When the
 * model ran out of tokens the last item is marked `incomplete`.
 */
export function chatToResponsesResponse(
  completion: ChatCompletion,
  request: unknown,
  ids: ResponsesIds = {},
): ResponsesResponse {
  const id = ids.responseId ?? hexId("resp_");
  const res = baseResponse(request, id, completion.model, completion.created);
  const choice = completion.choices.find((c) => c.index === 0) ?? completion.choices[0];
  const msg = choice?.message;
  const reasoning = msg ? reasoningOf(msg) : undefined;
  const text = typeof msg?.content === "string" ? msg.content : "";
  const calls: ToolCall[] = msg?.tool_calls ?? [];
  const output: ResponsesOutputItem[] = [];
  if (reasoning) {
    output.push({
      id: itemId(id, "rs", output.length),
      type: "reasoning",
      summary: [],
      content: [{ type: "reasoning_text", text: reasoning }],
    });
  }
  if (text || (output.length === 0 && calls.length === 0)) {
    output.push({
      id: itemId(id, "msg", output.length),
      type: "message",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text, annotations: [] }],
    });
  }
  for (const c of calls) {
    output.push({
      id: itemId(id, "fc", output.length),
      type: "function_call",
      status: "completed",
      call_id: c.id || hexId("call_", 24),
      name: c.function.name,
      arguments: c.function.arguments,
    });
  }
  const finish = choice?.finish_reason ?? null;
  const last = output.at(-1);
  if (finish === "length" && last && last.type !== "reasoning") last.status = "incomplete";
  res.output = output;
  res.usage = chatUsageToResponses(completion.usage);
  finalizeStatus(res, finish, nowSeconds());
  return res;
}

// ---------------------------------------------------------------------------------------------
// Streaming: chat chunks → Responses events
// ---------------------------------------------------------------------------------------------

/** The open text or reasoning item. */
interface OpenText {
  outputIndex: number;
  item: ResponsesMessageItem | ResponsesReasoningItem;
  text: string;
}

/** The open function-call item. */
interface OpenCall {
  outputIndex: number;
  item: ResponsesFunctionCallItem;
}

/**
 * Turns a Chat Completions chunk stream into the Responses event stream, event by event:
 *
 *   response.created, response.in_progress,
 *   per item: response.output_item.added, [response.content_part.added, text/reasoning deltas,
 *   *.done, response.content_part.done | function_call_arguments.delta…, .done],
 *   response.output_item.done,
 *   response.completed (or response.incomplete when the model ran out of tokens).
 *
 * Every event carries a `sequence_number` from 0 and, for item events, `output_index`, `item_id`
 * and `content_index`. Reasoning streams as `reasoning_text` content (what open-weight reasoning
 * models produce, and what the `openai` client accumulates), not as summaries. Items are strictly
 * nested: a new item closes the open one. Tool calls stream as the upstream sends them; a late
 * argument delta for an already-closed call (interleaved parallel calls, which no known upstream
 * sends) still reaches the final `response.completed` object.
 *
 * Which items open and close when is ChatBlockStream's (stream-blocks.ts); this class only writes
 * Responses' events for them. Only choice 0 is translated: Responses has no `n`.
 */
export class ResponsesStreamTranslator {
  private readonly responseId: string;
  private seq = 0;
  private done = false;
  private res: ResponsesResponse | null = null;
  private readonly output: ResponsesOutputItem[] = [];
  private readonly blocks: ChatBlockStream;
  private openText: OpenText | null = null;
  private openCall: OpenCall | null = null;
  /** Function-call items by chat tool-call index, for late argument deltas. */
  private readonly callItems = new Map<number, ResponsesFunctionCallItem>();
  /** Events of the call in progress (push / finish / fail). */
  private ev: SseEvent[] = [];

  constructor(
    private readonly request: unknown,
    ids: ResponsesIds = {},
  ) {
    this.responseId = ids.responseId ?? hexId("resp_");
    this.blocks = new ChatBlockStream(this.sink());
  }

  /** The id of the response being streamed. */
  get id(): string {
    return this.responseId;
  }

  push(chunk: ChatCompletionChunk): SseEvent[] {
    if (this.done) return [];
    this.start(chunk.model, chunk.created);
    this.blocks.push(chunk);
    return this.take();
  }

  /** Closes whatever is open and emits the terminal event. Call once the chat stream ended. */
  finish(): SseEvent[] {
    if (this.done) return [];
    const res = this.start("", nowSeconds());
    this.blocks.closeAll();
    if (this.output.length === 0) {
      // Keep the output non-empty, as the non-streaming translation does.
      this.blocks.text("text", "");
      this.blocks.closeAll();
    }
    res.output = this.output.map((o) => structuredClone(o));
    res.usage = chatUsageToResponses(this.blocks.usage);
    finalizeStatus(res, this.blocks.finishReason, nowSeconds());
    this.done = true;
    this.emit(res.status === "incomplete" ? "response.incomplete" : "response.completed", {
      response: structuredClone(res),
    });
    return this.take();
  }

  /**
   * Ends the stream with `response.failed` (e.g. the upstream broke off mid-stream). Output
   * produced so far is kept in the failed response.
   */
  fail(error: { message: string; code?: string }): SseEvent[] {
    if (this.done) return [];
    const res = this.start("", nowSeconds());
    res.output = this.output.map((o) => structuredClone(o));
    const usage = this.blocks.usage;
    res.usage = usage ? chatUsageToResponses(usage) : null;
    res.status = "failed";
    res.error = { code: error.code ?? "server_error", message: error.message };
    this.done = true;
    this.emit("response.failed", { response: structuredClone(res) });
    return this.take();
  }

  private take(): SseEvent[] {
    const ev = this.ev;
    this.ev = [];
    return ev;
  }

  private emit(type: string, fields: Record<string, unknown>): void {
    this.ev.push({ event: type, data: { type, sequence_number: this.seq++, ...fields } });
  }

  /** Emits response.created and response.in_progress before anything else. */
  private start(model: string, created: number): ResponsesResponse {
    if (this.res) {
      if (!this.res.model && model) this.res.model = model;
      return this.res;
    }
    this.res = baseResponse(
      this.request,
      this.responseId,
      model || str(this.request, "model") || "",
      created || nowSeconds(),
    );
    this.emit("response.created", { response: structuredClone(this.res) });
    this.emit("response.in_progress", { response: structuredClone(this.res) });
    return this.res;
  }

  /** An item closes "incomplete" when the model ran out of tokens. */
  private closedStatus(): ResponsesItemStatus {
    return this.blocks.finishReason === "length" ? "incomplete" : "completed";
  }

  /** Responses' events for each step of the block run. */
  private sink(): BlockSink {
    return {
      openText: (kind) => {
        const outputIndex = this.output.length;
        const item: ResponsesMessageItem | ResponsesReasoningItem =
          kind === "text"
            ? {
                id: itemId(this.responseId, "msg", outputIndex),
                type: "message",
                role: "assistant",
                status: "in_progress",
                content: [],
              }
            : {
                id: itemId(this.responseId, "rs", outputIndex),
                type: "reasoning",
                summary: [],
                content: [],
              };
        this.output.push(item);
        this.openText = { outputIndex, item, text: "" };
        this.emit("response.output_item.added", {
          output_index: outputIndex,
          item: structuredClone(item),
        });
        this.emit("response.content_part.added", {
          item_id: item.id,
          output_index: outputIndex,
          content_index: 0,
          part: textPart(kind, ""),
        });
      },
      textDelta: (kind, delta) => {
        const open = this.openText!;
        open.text += delta;
        const base = { item_id: open.item.id, output_index: open.outputIndex, content_index: 0 };
        if (kind === "text")
          this.emit("response.output_text.delta", { ...base, delta, logprobs: [] });
        else this.emit("response.reasoning_text.delta", { ...base, delta });
      },
      closeText: (kind) => {
        const { outputIndex, item, text } = this.openText!;
        this.openText = null;
        const base = { item_id: item.id, output_index: outputIndex, content_index: 0 };
        if (kind === "text")
          this.emit("response.output_text.done", { ...base, text, logprobs: [] });
        else this.emit("response.reasoning_text.done", { ...base, text });
        this.emit("response.content_part.done", { ...base, part: textPart(kind, text) });
        if (item.type === "message") {
          item.content = [{ type: "output_text", text, annotations: [] }];
          item.status = this.closedStatus();
        } else {
          item.content = [{ type: "reasoning_text", text }];
        }
        this.emit("response.output_item.done", {
          output_index: outputIndex,
          item: structuredClone(item),
        });
      },
      openCall: (call, held) => {
        const outputIndex = this.output.length;
        const item: ResponsesFunctionCallItem = {
          id: itemId(this.responseId, "fc", outputIndex),
          type: "function_call",
          status: "in_progress",
          call_id: call.id || hexId("call_", 24),
          name: call.name,
          arguments: "",
        };
        this.output.push(item);
        this.callItems.set(call.index, item);
        this.openCall = { outputIndex, item };
        this.emit("response.output_item.added", {
          output_index: outputIndex,
          item: structuredClone(item),
        });
        const pending = held.join("");
        if (pending) this.callDelta(pending);
      },
      callArgs: (_call, delta) => this.callDelta(delta),
      closeCall: () => {
        const { outputIndex, item } = this.openCall!;
        this.openCall = null;
        item.status = this.closedStatus();
        this.emit("response.function_call_arguments.done", {
          item_id: item.id,
          output_index: outputIndex,
          name: item.name,
          arguments: item.arguments,
        });
        this.emit("response.output_item.done", {
          output_index: outputIndex,
          item: structuredClone(item),
        });
      },
      // Kept for the final response.
      lateCallArgs: (call, delta) => {
        this.callItems.get(call.index)!.arguments += delta;
      },
    };
  }

  private callDelta(delta: string): void {
    const { outputIndex, item } = this.openCall!;
    item.arguments += delta;
    this.emit("response.function_call_arguments.delta", {
      item_id: item.id,
      output_index: outputIndex,
      delta,
    });
  }
}

function textPart(kind: TextKind, text: string): Record<string, unknown> {
  return kind === "text"
    ? { type: "output_text", text, annotations: [] }
    : { type: "reasoning_text", text };
}
