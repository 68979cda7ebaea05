/** Chat Completions chunk stream → Anthropic Messages event stream. */
import type { ChatCompletionChunk } from "../../../types/chat.js";
import { base62Id, parseArgsObject, type SseEvent, str } from "../sse.js";
import { type BlockSink, ChatBlockStream } from "../stream-blocks.js";
import { anthropicErrorEvent, anthropicPingEvent } from "./errors.js";
import { type AnthropicIds, chatUsageToAnthropic, stopReason } from "./response.js";
import type { AnthropicContentBlock, AnthropicMessage } from "./types.js";

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
