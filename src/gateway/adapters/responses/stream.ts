/** Chat Completions chunk stream → Responses event stream. */
import type { ChatCompletionChunk } from "../../../types/chat.js";
import { hexId, type SseEvent, str } from "../sse.js";
import {
  type BlockSink,
  ChatBlockStream,
  type StreamCall,
  type TextKind,
} from "../stream-blocks.js";
import {
  baseResponse,
  callItem,
  chatUsageToResponses,
  finalizeStatus,
  itemId,
  nowSeconds,
  type ResponsesIds,
  setCallArguments,
} from "./response.js";
import { type ToolMap, toolMapOf } from "./tools.js";
import type {
  ResponsesCallItem,
  ResponsesItemStatus,
  ResponsesMessageItem,
  ResponsesOutputItem,
  ResponsesReasoningItem,
  ResponsesResponse,
} from "./types.js";

/** The open text or reasoning item. */
interface OpenText {
  outputIndex: number;
  item: ResponsesMessageItem | ResponsesReasoningItem;
  text: string;
}

/** The open call item. */
interface OpenCall {
  outputIndex: number;
  item: ResponsesCallItem;
}

/** A call item and the chat arguments received for it so far. */
interface CallRecord {
  item: ResponsesCallItem;
  args: string;
}

/**
 * Turns a Chat Completions chunk stream into the Responses event stream, event by event:
 *
 *   response.created, response.in_progress,
 *   per item: response.output_item.added, [response.content_part.added, text/reasoning deltas,
 *   *.done, response.content_part.done | function_call_arguments.delta…, .done |
 *   custom_tool_call_input.delta, .done],
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
 * A custom tool's input is the decoded `input` argument (tools.ts), known only once the call's
 * arguments are complete: it is sent as one delta when the call closes. A local shell call has no
 * argument events: its `output_item.done` carries the action.
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
  /** Call items by chat tool-call index, for late argument deltas. */
  private readonly calls = new Map<number, CallRecord>();
  /** The request's tools: which chat functions are custom tools or namespace members. */
  private readonly tools: ToolMap;
  /** Events of the call in progress (push / finish / fail). */
  private ev: SseEvent[] = [];

  constructor(
    private readonly request: unknown,
    ids: ResponsesIds = {},
  ) {
    this.responseId = ids.responseId ?? hexId("resp_");
    this.tools = toolMapOf(request);
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
      openText: (kind) => this.openTextItem(kind),
      textDelta: (kind, delta) => this.textDelta(kind, delta),
      closeText: (kind) => this.closeTextItem(kind),
      openCall: (call, held) => this.openCallItem(call, held),
      callArgs: (call, delta) => this.callDelta(call.index, delta),
      closeCall: () => this.closeCallItem(),
      // Kept for the final response.
      lateCallArgs: (call, delta) => {
        const rec = this.calls.get(call.index)!;
        rec.args += delta;
        setCallArguments(rec.item, rec.args);
      },
    };
  }

  /** A message (text) or reasoning item opens, with its one content part. */
  private openTextItem(kind: TextKind): void {
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
  }

  private textDelta(kind: TextKind, delta: string): void {
    const open = this.openText!;
    open.text += delta;
    const base = { item_id: open.item.id, output_index: open.outputIndex, content_index: 0 };
    if (kind === "text") this.emit("response.output_text.delta", { ...base, delta, logprobs: [] });
    else this.emit("response.reasoning_text.delta", { ...base, delta });
  }

  /** The open text item's part and the item itself are done. */
  private closeTextItem(kind: TextKind): void {
    const { outputIndex, item, text } = this.openText!;
    this.openText = null;
    const base = { item_id: item.id, output_index: outputIndex, content_index: 0 };
    if (kind === "text") this.emit("response.output_text.done", { ...base, text, logprobs: [] });
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
  }

  /** A call item opens; arguments the block stream held back follow at once. */
  private openCallItem(call: StreamCall, held: readonly string[]): void {
    const outputIndex = this.output.length;
    const item = callItem(
      this.tools,
      this.responseId,
      outputIndex,
      call.id,
      call.name,
      "in_progress",
    );
    this.output.push(item);
    this.calls.set(call.index, { item, args: "" });
    this.openCall = { outputIndex, item };
    this.emit("response.output_item.added", {
      output_index: outputIndex,
      item: structuredClone(item),
    });
    const pending = held.join("");
    if (pending) this.callDelta(call.index, pending);
  }

  private closeCallItem(): void {
    const { outputIndex, item } = this.openCall!;
    this.openCall = null;
    item.status = this.closedStatus();
    const base = { item_id: item.id, output_index: outputIndex };
    if (item.type === "local_shell_call") {
      // The API has no argument events for a local shell call: its item carries the action.
    } else if (item.type === "custom_tool_call") {
      if (item.input)
        this.emit("response.custom_tool_call_input.delta", { ...base, delta: item.input });
      this.emit("response.custom_tool_call_input.done", { ...base, input: item.input });
    } else {
      this.emit("response.function_call_arguments.done", {
        ...base,
        name: item.name,
        arguments: item.arguments,
      });
    }
    this.emit("response.output_item.done", {
      output_index: outputIndex,
      item: structuredClone(item),
    });
  }

  private callDelta(index: number, delta: string): void {
    const { outputIndex, item } = this.openCall!;
    const rec = this.calls.get(index)!;
    rec.args += delta;
    setCallArguments(item, rec.args);
    // A custom call's input and a shell call's action are only known whole (class comment).
    if (item.type !== "function_call") return;
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
