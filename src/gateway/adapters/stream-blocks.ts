/**
 * The core both stream translators (Anthropic Messages, Responses) share: a Chat Completions
 * chunk stream of reasoning, text and tool-call deltas turned into a strictly sequential run of
 * blocks, each opened, fed and closed once. The dialect only says what each of those steps looks
 * like on its wire (a `BlockSink`); it never sees a chat chunk.
 *
 * The rules, decided here for both:
 * - Only choice 0 is read: neither dialect has `n`. Its parts are taken in the order the
 *   non-streaming translations lay them out: reasoning, text, tool calls, then the finish. Empty
 *   text is dropped (upstreams open a stream with `content: ""`, which must not open an empty
 *   text block ahead of the reasoning).
 * - One block is open at a time; opening another closes it. A text or reasoning delta of another
 *   kind than the open block opens a new block.
 * - A tool call opens once its name is known (the dialects announce it on opening); until then
 *   its id, name and argument fragments are held. The name is what arrived before the call
 *   opened (some upstreams repeat it on every delta). Fragments of the open call are passed on
 *   as they come; fragments of a call already closed (interleaved parallel calls, which no known
 *   upstream sends) go to `lateCallArgs`.
 * - The finish (or the end of the stream) closes the open block, then opens and closes, in index
 *   order, every call that never got a name.
 */
import type { ChatCompletionChunk, ChatCompletionChunkChoice, Usage } from "../../types/chat.js";
import { reasoningOf } from "./sse.js";

/** One tool-call fragment of a chat chunk's delta. */
type ToolCallDelta = NonNullable<ChatCompletionChunkChoice["delta"]["tool_calls"]>[number];

export type TextKind = "text" | "reasoning";

/** A tool call as known so far: its chat `index`, the first id sent, the name as announced. */
export interface StreamCall {
  readonly index: number;
  id: string;
  name: string;
}

/** What a dialect writes for each step of the block run. */
export interface BlockSink {
  openText(kind: TextKind): void;
  textDelta(kind: TextKind, delta: string): void;
  closeText(kind: TextKind): void;
  /** `held`: the non-empty argument fragments that arrived before the call opened, in order. */
  openCall(call: StreamCall, held: readonly string[]): void;
  /** A non-empty argument fragment of the open call. */
  callArgs(call: StreamCall, delta: string): void;
  closeCall(call: StreamCall): void;
  /** A non-empty argument fragment of a call already closed. */
  lateCallArgs(call: StreamCall, delta: string): void;
}

interface CallState extends StreamCall {
  held: string[];
  opened: boolean;
  closed: boolean;
}

type OpenBlock = { kind: TextKind } | { kind: "call"; call: CallState };

export class ChatBlockStream {
  /** The finish reason of choice 0, once it arrived. */
  finishReason: string | null = null;
  /** vLLM's `stop_reason`: the stop string or token id that ended choice 0. */
  stopReason: unknown = null;
  /** The last usage an upstream chunk carried. */
  usage: Usage | null = null;
  /** Whether any tool-call delta arrived. */
  sawToolCalls = false;
  /** Blocks opened so far. */
  blocks = 0;
  private open: OpenBlock | null = null;
  private readonly calls = new Map<number, CallState>();

  constructor(private readonly sink: BlockSink) {}

  /** Feeds one chunk: its usage, then choice 0's parts. */
  push(chunk: ChatCompletionChunk): void {
    if (chunk.usage) this.usage = chunk.usage;
    const choice = chunk.choices?.find((c) => c.index === 0);
    if (!choice) return;
    const d = choice.delta ?? {};
    const reasoning = reasoningOf(d);
    if (reasoning) this.text("reasoning", reasoning);
    if (typeof d.content === "string" && d.content) this.text("text", d.content);
    for (const tc of d.tool_calls ?? []) this.toolCall(tc);
    if (choice.finish_reason) {
      this.finishReason = choice.finish_reason;
      this.stopReason = choice.stop_reason;
      this.closeAll();
    }
  }

  /** Appends text of `kind`, opening a block of that kind first if another is open. */
  text(kind: TextKind, delta: string): void {
    if (this.open?.kind !== kind) {
      this.closeOpen();
      this.open = { kind };
      this.blocks++;
      this.sink.openText(kind);
    }
    if (delta) this.sink.textDelta(kind, delta);
  }

  /** Closes the open block and opens and closes each call that never got a name. */
  closeAll(): void {
    this.closeOpen();
    for (const [, call] of [...this.calls].sort((a, b) => a[0] - b[0])) {
      if (call.opened) continue;
      this.openCall(call);
      this.closeOpen();
    }
  }

  private toolCall(tc: ToolCallDelta): void {
    this.sawToolCalls = true;
    let call = this.calls.get(tc.index);
    if (!call) {
      call = { index: tc.index, id: "", name: "", held: [], opened: false, closed: false };
      this.calls.set(tc.index, call);
    }
    if (tc.id && !call.id) call.id = tc.id;
    if (tc.function?.name && !call.opened) call.name += tc.function.name;
    const delta = tc.function?.arguments ?? "";
    if (call.closed) {
      if (delta) this.sink.lateCallArgs(call, delta);
      return;
    }
    if (call.opened) {
      if (delta) this.sink.callArgs(call, delta);
      return;
    }
    if (delta) call.held.push(delta);
    if (call.name) this.openCall(call);
  }

  private openCall(call: CallState): void {
    this.closeOpen();
    call.opened = true;
    this.open = { kind: "call", call };
    this.blocks++;
    const held = call.held;
    call.held = [];
    this.sink.openCall(call, held);
  }

  private closeOpen(): void {
    const open = this.open;
    if (!open) return;
    this.open = null;
    if (open.kind === "call") {
      open.call.closed = true;
      this.sink.closeCall(open.call);
    } else this.sink.closeText(open.kind);
  }
}
