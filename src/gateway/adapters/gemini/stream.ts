/**
 * Chat Completions chunk stream → Gemini `streamGenerateContent?alt=sse` stream: `data:` events,
 * each a GenerateContentResponse with one candidate (no `[DONE]`; the stream ends with the body).
 *
 * - Reasoning and text deltas are sent as they arrive, each as a one-part chunk (`thought: true`
 *   on reasoning), as the API streams them.
 * - The API sends a function call whole, never its arguments in pieces: calls are held and sent
 *   in the last chunk, with the finishReason and usageMetadata (response.ts decides the parts, a
 *   malformed call, and the mappings).
 * - The reasoning's thoughtSignature (response.ts) goes on the first call in the last chunk, else
 *   on an empty text part there.
 * - A failure after the stream began ends it with `data: {"error": {code, message, status}}`.
 *
 * Which deltas are text, reasoning or call fragments is ChatBlockStream's (stream-blocks.ts).
 */
import type { ChatCompletionChunk, ToolCall } from "../../../types/chat.js";
import type { SseEvent } from "../sse.js";
import { ChatBlockStream, type StreamCall, type TextKind } from "../stream-blocks.js";
import {
  callParts,
  chatUsageToGemini,
  type GeminiIds,
  geminiErrorBody,
  geminiFinishReason,
  newResponseId,
  reasoningSignature,
} from "./response.js";
import type { GeminiCandidate, GeminiPart, GeminiResponse } from "./types.js";

export class GeminiStreamTranslator {
  private readonly responseId: string;
  private readonly blocks: ChatBlockStream;
  private readonly calls = new Map<number, ToolCall>();
  private model = "";
  private sentParts = 0;
  private reasoning = "";
  private done = false;
  private ev: SseEvent[] = [];

  constructor(model: string, ids: GeminiIds = {}) {
    this.model = model;
    this.responseId = ids.responseId ?? newResponseId();
    this.blocks = new ChatBlockStream({
      openText: () => {},
      textDelta: (kind, delta) => this.textDelta(kind, delta),
      closeText: () => {},
      openCall: (call, held) => this.callFragment(call, held.join("")),
      callArgs: (call, delta) => this.callFragment(call, delta),
      closeCall: () => {},
      lateCallArgs: (call, delta) => this.callFragment(call, delta),
    });
  }

  push(chunk: ChatCompletionChunk): SseEvent[] {
    if (this.done) return [];
    if (chunk.model) this.model = chunk.model;
    this.blocks.push(chunk);
    return this.take();
  }

  /** The last chunk: held calls, finishReason, usage. Call once the chat stream ended. */
  finish(): SseEvent[] {
    if (this.done) return [];
    this.blocks.closeAll();
    this.done = true;
    const signature = this.reasoning ? reasoningSignature(this.reasoning) : undefined;
    const calls = callParts(
      [...this.calls.entries()].sort((a, b) => a[0] - b[0]).map(([, c]) => c),
      signature,
    );
    const parts = calls.parts;
    if (parts.length === 0 && signature) parts.push({ text: "", thoughtSignature: signature });
    if (parts.length === 0 && this.sentParts === 0) parts.push({ text: "" });
    const candidate: GeminiCandidate = {
      content: { role: "model", parts },
      finishReason: calls.malformed
        ? "MALFORMED_FUNCTION_CALL"
        : geminiFinishReason(this.blocks.finishReason),
      index: 0,
    };
    this.emit(candidate, chatUsageToGemini(this.blocks.usage));
    return this.take();
  }

  /** Ends the stream with Google's error body (e.g. the upstream broke off mid-stream). */
  fail(error: { status: number; message: string }): SseEvent[] {
    if (this.done) return [];
    this.done = true;
    return [{ data: geminiErrorBody(error) }];
  }

  private take(): SseEvent[] {
    const ev = this.ev;
    this.ev = [];
    return ev;
  }

  private emit(candidate: GeminiCandidate, usage?: GeminiResponse["usageMetadata"]): void {
    const res: GeminiResponse = {
      candidates: [candidate],
      modelVersion: this.model,
      responseId: this.responseId,
    };
    if (usage) res.usageMetadata = usage;
    this.ev.push({ data: res });
  }

  private textDelta(kind: TextKind, delta: string): void {
    if (kind === "reasoning") this.reasoning += delta;
    const part: GeminiPart =
      kind === "reasoning" ? { text: delta, thought: true } : { text: delta };
    this.sentParts++;
    this.emit({ content: { role: "model", parts: [part] }, index: 0 });
  }

  private callFragment(call: StreamCall, delta: string): void {
    let c = this.calls.get(call.index);
    if (!c) {
      c = {
        id: call.id || `call_${call.index}`,
        type: "function",
        function: { name: call.name, arguments: "" },
      };
      this.calls.set(call.index, c);
    }
    c.function.arguments += delta;
  }
}
