/**
 * Completion text → OpenAI message fields for the Qwen/Hermes output format:
 *
 *   <think>\nreasoning\n</think>\n\ncontent\n<tool_call>\n{"name": "f", "arguments": {...}}\n</tool_call>
 *
 * One incremental parser serves both the streaming and the whole-text path (`parseCompletion` is
 * push-everything-then-finish), so a streamed response always adds up to the non-streamed one.
 * The format is src/chat/chatml.ts's; this parser reads any model's output in it the way vLLM's
 * hermes parser does (arguments re-serialised as Python's json.dumps, random call ids, newlines
 * around blocks dropped), where `parseAssistant` there reads the local model's own output
 * verbatim so that a re-render reproduces its ids.
 */
import {
  THINK_CLOSE,
  THINK_OPEN,
  TOOL_CALL_CLOSE as TOOL_CLOSE,
  TOOL_CALL_OPEN as TOOL_OPEN,
} from "../chat/chatml.js";
import { secureRandomBytes } from "../random.js";
import type { ToolCall } from "../types/chat.js";
import { pythonJsonDumps } from "./pyjson.js";

export interface StreamToolCall {
  /** Position of this call among the completion's tool calls (OpenAI's `tool_calls[].index`). */
  index: number;
  id: string;
  name: string;
  /** The arguments object as a JSON string, serialised as Python's json.dumps does. */
  arguments: string;
}

export type Delta =
  | { content: string }
  | { reasoning_content: string }
  | { tool_call: StreamToolCall };

export interface ParseOptions {
  /**
   * The prompt already opened the reasoning block (it ends inside `<think>`), so the completion
   * starts with reasoning text and only `</think>` marks its end. See `promptOpensReasoning`.
   */
  startInReasoning?: boolean;
  /** Makes tool-call ids, e.g. for deterministic tests. Default: `call_` + 24 random characters. */
  newToolCallId?: () => string;
}

export interface ParsedCompletion {
  content: string | null;
  reasoning_content: string | null;
  tool_calls: ToolCall[];
}

export interface StreamParser {
  /** Feeds more completion text; returns what can be said for sure so far. */
  push(textDelta: string): Delta[];
  /** Ends the completion: flushes held-back text and any unclosed block. */
  finish(): Delta[];
}

export function createStreamParser(opts: ParseOptions = {}): StreamParser {
  return new HermesStreamParser(opts);
}

/** Parses a whole completion; equal to concatenating a stream parser's output on the same text. */
export function parseCompletion(text: string, opts: ParseOptions = {}): ParsedCompletion {
  const parser = createStreamParser(opts);
  return collectDeltas([...parser.push(text), ...parser.finish()]);
}

/** Folds deltas into message fields (empty text becomes null, as in OpenAI responses). */
export function collectDeltas(deltas: Iterable<Delta>): ParsedCompletion {
  let content = "";
  let reasoning = "";
  const toolCalls: ToolCall[] = [];
  for (const d of deltas) {
    if ("content" in d) content += d.content;
    else if ("reasoning_content" in d) reasoning += d.reasoning_content;
    else {
      const c = d.tool_call;
      toolCalls.push({
        id: c.id,
        type: "function",
        function: { name: c.name, arguments: c.arguments },
      });
    }
  }
  return {
    content: content === "" ? null : content,
    reasoning_content: reasoning === "" ? null : reasoning,
    tool_calls: toolCalls,
  };
}

/**
 * Whether a rendered prompt leaves a `<think>` block open, so the completion begins inside the
 * reasoning (e.g. QwQ, Qwen3-Thinking-2507 and DeepSeek-R1 templates add "<think>\n" to the
 * generation prompt; Qwen3 with enable_thinking=false closes it, which is not "open").
 */
export function promptOpensReasoning(promptText: string): boolean {
  const open = promptText.lastIndexOf(THINK_OPEN);
  return open >= 0 && promptText.indexOf(THINK_CLOSE, open) < 0;
}

export function newToolCallId(): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  const bytes = secureRandomBytes(24);
  let id = "call_";
  for (const b of bytes) id += alphabet[b % alphabet.length];
  return id;
}

type Mode = "start" | "reasoning" | "content" | "tool";

/**
 * Whitespace rules, mirroring what Qwen3's template does when it re-renders a message
 * (`reasoning.strip('\n')`, `content.lstrip('\n')`, and "\n" before each <tool_call>): newlines at
 * the start of reasoning or content are dropped, and trailing newlines are held back until more
 * text shows they are inner ones, so "\n" runs that only separate blocks never reach the client.
 */
class HermesStreamParser implements StreamParser {
  private mode: Mode;
  private buf = "";
  /** Where to resume looking for `</tool_call>` in `buf`, so long blocks are not rescanned. */
  private toolScanFrom = 0;
  private contentStarted = false;
  private contentPending = "";
  private reasoningStarted = false;
  private reasoningPending = "";
  private toolCount = 0;
  private finished = false;
  private readonly makeId: () => string;

  constructor(opts: ParseOptions) {
    this.mode = opts.startInReasoning ? "reasoning" : "start";
    this.makeId = opts.newToolCallId ?? newToolCallId;
  }

  push(textDelta: string): Delta[] {
    if (this.finished) throw new Error("StreamParser.push called after finish()");
    this.buf += textDelta;
    const out: Delta[] = [];
    this.run(out, false);
    return out;
  }

  finish(): Delta[] {
    if (this.finished) return [];
    const out: Delta[] = [];
    this.run(out, true);
    this.finished = true;
    // Trailing newlines of either part are separators, not text.
    this.contentPending = "";
    this.reasoningPending = "";
    return out;
  }

  private run(out: Delta[], final: boolean): void {
    for (;;) {
      switch (this.mode) {
        case "start": {
          // `<think>` only counts at the very start (after whitespace): later in the content it
          // is text the model is writing about, not a reasoning block.
          const trimmed = this.buf.replace(/^\s+/, "");
          if (trimmed.startsWith(THINK_OPEN)) {
            this.buf = trimmed.slice(THINK_OPEN.length);
            this.mode = "reasoning";
            continue;
          }
          if (!final && THINK_OPEN.startsWith(trimmed)) return;
          this.mode = "content";
          continue;
        }
        case "reasoning": {
          const end = this.buf.indexOf(THINK_CLOSE);
          if (end >= 0) {
            this.emitReasoning(out, this.buf.slice(0, end));
            this.reasoningPending = "";
            this.buf = this.buf.slice(end + THINK_CLOSE.length);
            this.mode = "content";
            continue;
          }
          const keep = final ? 0 : partialTagSuffix(this.buf, THINK_CLOSE);
          this.emitReasoning(out, this.buf.slice(0, this.buf.length - keep));
          this.buf = this.buf.slice(this.buf.length - keep);
          return;
        }
        case "content": {
          const start = this.buf.indexOf(TOOL_OPEN);
          if (start >= 0) {
            this.emitContent(out, this.buf.slice(0, start));
            this.buf = this.buf.slice(start + TOOL_OPEN.length);
            this.toolScanFrom = 0;
            this.mode = "tool";
            continue;
          }
          const keep = final ? 0 : partialTagSuffix(this.buf, TOOL_OPEN);
          this.emitContent(out, this.buf.slice(0, this.buf.length - keep));
          this.buf = this.buf.slice(this.buf.length - keep);
          return;
        }
        case "tool": {
          const end = this.buf.indexOf(TOOL_CLOSE, this.toolScanFrom);
          if (end >= 0) {
            const body = this.buf.slice(0, end);
            this.buf = this.buf.slice(end + TOOL_CLOSE.length);
            this.mode = "content";
            this.emitToolBlock(out, body, true);
            continue;
          }
          if (final) {
            // An unclosed block (cut by max_tokens, or a stop string on "</tool_call>") is still
            // a call when its JSON is complete.
            const body = this.buf;
            this.buf = "";
            this.mode = "content";
            this.emitToolBlock(out, body, false);
            return;
          }
          this.toolScanFrom = Math.max(0, this.buf.length - TOOL_CLOSE.length + 1);
          return;
        }
      }
    }
  }

  private emitToolBlock(out: Delta[], body: string, closed: boolean): void {
    const call = parseToolCallBody(body);
    if (call) {
      // Newlines between the content and the call belong to the layout, not the content.
      this.contentPending = "";
      out.push({ tool_call: { index: this.toolCount++, id: this.makeId(), ...call } });
      return;
    }
    // Malformed JSON stays visible as text: the client (and the reward) see what the model wrote.
    this.emitContent(out, TOOL_OPEN + body + (closed ? TOOL_CLOSE : ""));
  }

  private emitContent(out: Delta[], text: string): void {
    const r = holdTrailingNewlines(this.contentStarted, this.contentPending, text);
    this.contentPending = r.pending;
    if (r.emit !== "") {
      this.contentStarted = true;
      out.push({ content: r.emit });
    }
  }

  private emitReasoning(out: Delta[], text: string): void {
    const r = holdTrailingNewlines(this.reasoningStarted, this.reasoningPending, text);
    this.reasoningPending = r.pending;
    if (r.emit !== "") {
      this.reasoningStarted = true;
      out.push({ reasoning_content: r.emit });
    }
  }
}

function holdTrailingNewlines(
  started: boolean,
  pending: string,
  text: string,
): { emit: string; pending: string } {
  const t = started ? text : text.replace(/^\n+/, "");
  if (t === "") return { emit: "", pending };
  const combined = pending + t;
  let cut = combined.length;
  while (cut > 0 && combined.charCodeAt(cut - 1) === 10) cut--;
  if (cut === 0) return { emit: "", pending: combined };
  return { emit: combined.slice(0, cut), pending: combined.slice(cut) };
}

/** Length of the longest suffix of `text` that is a proper prefix of `tag` (may still become it). */
function partialTagSuffix(text: string, tag: string): number {
  const max = Math.min(text.length, tag.length - 1);
  for (let n = max; n > 0; n--) {
    if (text.endsWith(tag.slice(0, n))) return n;
  }
  return 0;
}

/**
 * The JSON inside a <tool_call> block: {"name": string, "arguments": object | string}. Anything
 * else (bad JSON, no name) is not a call. "parameters" is accepted for "arguments" because some
 * Hermes-style fine-tunes write it.
 */
function parseToolCallBody(body: string): { name: string; arguments: string } | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return null;
  const obj = parsed as Record<string, unknown>;
  if (typeof obj["name"] !== "string" || obj["name"] === "") return null;
  const args = obj["arguments"] !== undefined ? obj["arguments"] : obj["parameters"];
  if (args === undefined || args === null) return { name: obj["name"], arguments: "{}" };
  if (typeof args === "string") return { name: obj["name"], arguments: args };
  if (typeof args !== "object" || Array.isArray(args)) return null;
  return { name: obj["name"], arguments: pythonJsonDumps(args) };
}
