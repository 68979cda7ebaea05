/** Chat Completions response → Responses `response` object, with the usage mapping. */
import type { ChatCompletion, ToolCall, Usage } from "../../../types/chat.js";
import { hexId, isRecord, num, reasoningOf, str } from "../sse.js";
import { customInput, localShellAction, type ToolMap, toolMapOf } from "./tools.js";
import type {
  ResponsesCallItem,
  ResponsesItemStatus,
  ResponsesOutputItem,
  ResponsesResponse,
  ResponsesUsage,
} from "./types.js";

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

export function itemId(responseId: string, prefix: string, outputIndex: number): string {
  // Derived ids keep the streamed and non-streamed forms of one response identical.
  return `${prefix}_${responseId.replace(/^resp_/, "")}${outputIndex}`;
}

/** The request fields a response echoes, read tolerantly (the request may be any JSON). */
export function baseResponse(
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
export function finalizeStatus(
  res: ResponsesResponse,
  finishReason: string | null,
  now: number,
): void {
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

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/**
 * The item of a chat tool call, as the request's tools say (tools.ts): a `function_call` (with its
 * `namespace` for a namespace member), a `custom_tool_call` or a `local_shell_call`; arguments set
 * by setCallArguments.
 * A name the request did not declare stays a plain function call: the agent reports the unknown
 * tool to the model, as it would for OpenAI's own API.
 */
export function callItem(
  tools: ToolMap,
  responseId: string,
  outputIndex: number,
  callId: string,
  chatName: string,
  status: ResponsesItemStatus,
): ResponsesCallItem {
  const ref = tools.get(chatName);
  const call_id = callId || hexId("call_", 24);
  const ns = ref?.namespace ? { namespace: ref.namespace } : {};
  if (ref?.kind === "local_shell") {
    const id = itemId(responseId, "lsh", outputIndex);
    const action = { type: "exec" as const, command: [], env: {} };
    return { id, type: "local_shell_call", status, call_id, action };
  }
  if (ref?.kind === "custom") {
    const id = itemId(responseId, "ctc", outputIndex);
    return { id, type: "custom_tool_call", status, call_id, name: ref.name, input: "", ...ns };
  }
  const id = itemId(responseId, "fc", outputIndex);
  const name = ref?.name ?? chatName;
  return { id, type: "function_call", status, call_id, name, arguments: "", ...ns };
}

/** Sets a call item's arguments (a custom call's `input`) from the chat call's arguments. */
export function setCallArguments(item: ResponsesCallItem, args: string): void {
  if (item.type === "custom_tool_call") item.input = customInput(args);
  else if (item.type === "local_shell_call") item.action = localShellAction(args);
  else item.arguments = args;
}

/**
 * Translates a (non-streaming) chat completion to a Responses `response` object. `request` is the
 * original Responses body, whose settings the response echoes. Only choice 0 is used.
 *
 * Output order: a reasoning item (when there is reasoning), a message (when there is text, or
 * when the output would otherwise be empty), then one call item per tool call (callItem). When the
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
  const tools = toolMapOf(request);
  for (const c of calls) {
    const item = callItem(tools, id, output.length, c.id, c.function.name, "completed");
    setCallArguments(item, c.function.arguments);
    output.push(item);
  }
  const finish = choice?.finish_reason ?? null;
  const last = output.at(-1);
  if (finish === "length" && last && last.type !== "reasoning") last.status = "incomplete";
  res.output = output;
  res.usage = chatUsageToResponses(completion.usage);
  finalizeStatus(res, finish, nowSeconds());
  return res;
}
