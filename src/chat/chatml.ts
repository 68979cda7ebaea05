/**
 * ChatML with Hermes tool calls (the Qwen2.5/Qwen3 chat format): the one writer and the one
 * whole-text reader of it. The local model renders its prompts and SFT rows with it (mapping each
 * special piece to its token id), the fake upstream writes its prompts and completions with it
 * (as text), and the gateway's streaming parser reads the same tags.
 *
 *     <|im_start|>system\n{system}<|im_end|>\n
 *     <|im_start|>user\n{content}<|im_end|>\n
 *     <|im_start|>assistant\n<think>\n{reasoning}\n</think>\n\n{content}\n<tool_call>\n{"name": "f", "arguments": {...}}\n</tool_call><|im_end|>\n
 *     <|im_start|>user\n<tool_response>\n{result}\n</tool_response>\n<tool_response>\n…\n</tool_response><|im_end|>\n
 *     <|im_start|>assistant\n            ← the generation prompt
 *
 * A rendering is a list of pieces, each tagged with what it is, so each user turns it into what it
 * needs without re-scanning text: token ids with `special` pieces as single tokens and all other
 * text as bytes (contents are never scanned for special-token strings, so text cannot forge a turn
 * boundary), plain text, or spans of reasoning / content / tool-call name and arguments.
 *
 * Decided once here:
 * - Tool-call arguments are written verbatim (callers normalise them first), so sampled bytes
 *   survive a re-render: rendering a conversation that ends with an assistant turn equals the
 *   prompt that produced it + the sampled text + `<|im_end|>\n` when the turn is
 *   `parseAssistant` of that text in its canonical shape.
 * - A newline separates content from the first tool call (none when there is no content) and
 *   each tool call from the next.
 * - Imports only types: backends, the gateway and testing may all import it.
 */
import type { ChatMessage, ContentPart, Tool, ToolCall } from "../types/index.js";

export const IM_START = "<|im_start|>";
export const IM_END = "<|im_end|>";
export const ENDOFTEXT = "<|endoftext|>";
export const THINK_OPEN = "<think>";
export const THINK_CLOSE = "</think>";
export const TOOL_CALL_OPEN = "<tool_call>";
export const TOOL_CALL_CLOSE = "</tool_call>";

/** The tags that are single special tokens in Qwen-style vocabularies. */
export type ChatMLSpecial =
  | typeof IM_START
  | typeof IM_END
  | typeof THINK_OPEN
  | typeof THINK_CLOSE
  | typeof TOOL_CALL_OPEN
  | typeof TOOL_CALL_CLOSE;

/**
 * One piece of a rendering. `special`: a tag that is one token; `layout`: text the format adds
 * (newlines, role names, JSON punctuation around a call); `text`: a message's own text outside an
 * assistant turn; `reasoning` / `content`: an assistant turn's; `toolName` (JSON-escaped, without
 * its quotes) and `toolArgs`: a call's. Every piece of an assistant turn's `tool`-th call (its
 * leading newline included) carries `tool`.
 */
export type ChatMLPiece = (
  | { kind: "special"; text: ChatMLSpecial }
  | { kind: "layout" | "text" | "reasoning" | "content" | "toolName" | "toolArgs"; text: string }
) & { tool?: number };

/** A run of pieces, and whether the assistant produced them (what SFT trains on). */
export interface ChatMLSegment {
  pieces: ChatMLPiece[];
  trained: boolean;
}

/** An assistant turn as the model writes it. */
export interface AssistantTurn {
  /** `null`: no `<think>` block at all; `""`: an empty one. */
  reasoning: string | null;
  content: string;
  /** Arguments are written as given (a JSON text). */
  toolCalls: readonly { name: string; arguments: string }[];
}

export interface RenderOptions {
  /** End with `<|im_start|>assistant\n`, the prompt for sampling the next assistant turn. */
  addGenerationPrompt?: boolean;
  /** Tool definitions, described in the system turn (Qwen's `# Tools` block). */
  tools?: Tool[];
}

interface ParsedAssistant {
  content: string | null;
  reasoning_content: string | null;
  tool_calls: ToolCall[];
}

const special = (text: ChatMLSpecial, tool?: number): ChatMLPiece =>
  tool === undefined ? { kind: "special", text } : { kind: "special", text, tool };
const layout = (text: string, tool?: number): ChatMLPiece =>
  tool === undefined ? { kind: "layout", text } : { kind: "layout", text, tool };

/** The text of a rendering. */
export function chatMLText(pieces: Iterable<ChatMLPiece>): string {
  let s = "";
  for (const p of pieces) s += p.text;
  return s;
}

/** `<|im_start|>{role}\n`. */
export function turnHeader(role: string): ChatMLPiece[] {
  return [special(IM_START), layout(`${role}\n`)];
}

/**
 * The body of an assistant turn, up to (not including) its `<|im_end|>`: the reasoning block,
 * the content, then each tool call as `<tool_call>\n{"name": NAME, "arguments": ARGS}\n</tool_call>`.
 * Empty pieces are left out.
 */
export function assistantBody(turn: AssistantTurn): ChatMLPiece[] {
  const out: ChatMLPiece[] = [];
  const push = (p: ChatMLPiece) => {
    if (p.text !== "") out.push(p);
  };
  if (turn.reasoning !== null) {
    push(special(THINK_OPEN));
    push(layout("\n"));
    push({ kind: "reasoning", text: turn.reasoning });
    push(layout("\n"));
    push(special(THINK_CLOSE));
    push(layout("\n\n"));
  }
  push({ kind: "content", text: turn.content });
  turn.toolCalls.forEach((call, tool) => {
    if (tool > 0 || turn.content !== "") push(layout("\n", tool));
    push(special(TOOL_CALL_OPEN, tool));
    push(layout('\n{"name": "', tool));
    push({ kind: "toolName", text: JSON.stringify(call.name).slice(1, -1), tool });
    push(layout('", "arguments": ', tool));
    push({ kind: "toolArgs", text: call.arguments, tool });
    push(layout("}\n", tool));
    push(special(TOOL_CALL_CLOSE, tool));
  });
  return out;
}

/** Qwen2.5/Qwen3's tools block, so a model trained here sees the prompts the wider world uses. */
function toolsPreamble(tools: readonly Tool[]): string {
  return (
    "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n" +
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>" +
    tools.map((t) => `\n${JSON.stringify(t)}`).join("") +
    "\n</tools>\n\nFor each function call, return a json object with function name and arguments " +
    'within <tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, ' +
    '"arguments": <args-json-object>}\n</tool_call>'
  );
}

/** A message's text; a part other than text is an error naming the message. */
function textOnly(content: ChatMessage["content"], index: number): string {
  if (content === undefined || content === null) return "";
  if (typeof content === "string") return content;
  return content
    .map((part: ContentPart) => {
      if (part.type === "text" && typeof part.text === "string") return part.text;
      throw new Error(
        `message ${index} has a content part of type "${part.type}"; the local model reads text only — send text parts or use another backend`,
      );
    })
    .join("");
}

/** A message's assistant turn: reasoning from `reasoning_content`, empty arguments as `{}`. */
function assistantTurnOf(m: ChatMessage, index: number): AssistantTurn {
  return {
    reasoning: typeof m.reasoning_content === "string" ? m.reasoning_content : null,
    content: textOnly(m.content, index),
    toolCalls: (m.tool_calls ?? []).map((c) => ({
      name: c.function.name,
      arguments: c.function.arguments.trim() === "" ? "{}" : c.function.arguments,
    })),
  };
}

/**
 * A conversation in Qwen's template: system, developer (as system) and user turns as they are,
 * tools described in the system turn, consecutive tool results in one user turn of
 * `<tool_response>` blocks; an assistant turn's body and `<|im_end|>` are the trained segment.
 * Throws, naming the message, on a role outside the format or a non-text content part.
 */
export function chatMLSegments(
  messages: readonly ChatMessage[],
  options: RenderOptions = {},
): ChatMLSegment[] {
  const segs: ChatMLSegment[] = [];
  const push = (pieces: ChatMLPiece[], trained = false) => segs.push({ pieces, trained });
  const textTurn = (role: string, text: string) =>
    push([...turnHeader(role), { kind: "text", text }, special(IM_END), layout("\n")]);
  let start = 0;
  const first = messages[0];
  const firstIsSystem = first?.role === "system" || first?.role === "developer";
  if (options.tools && options.tools.length > 0) {
    const sys = firstIsSystem ? `${textOnly(first.content, 0)}\n\n` : "";
    textTurn("system", sys + toolsPreamble(options.tools));
    if (firstIsSystem) start = 1;
  }
  for (let i = start; i < messages.length; i++) {
    const m = messages[i]!;
    switch (m.role) {
      case "system":
      case "developer":
      case "user":
        textTurn(m.role === "user" ? "user" : "system", textOnly(m.content, i));
        break;
      case "assistant":
        push(turnHeader("assistant"));
        push([...assistantBody(assistantTurnOf(m, i)), special(IM_END)], true);
        push([layout("\n")]);
        break;
      case "tool":
      case "function": {
        // Consecutive tool results share one user turn, as in Qwen's template.
        const pieces: ChatMLPiece[] = [special(IM_START), layout("user")];
        let j = i;
        for (; j < messages.length; j++) {
          const t = messages[j]!;
          if (t.role !== "tool" && t.role !== "function") break;
          pieces.push(
            layout("\n<tool_response>\n"),
            { kind: "text", text: textOnly(t.content, j) },
            layout("\n</tool_response>"),
          );
        }
        pieces.push(special(IM_END), layout("\n"));
        push(pieces);
        i = j - 1;
        break;
      }
      default:
        throw new Error(
          `message ${i} has role ${JSON.stringify((m as { role: unknown }).role)}; expected system, developer, user, assistant or tool`,
        );
    }
  }
  if (options.addGenerationPrompt) push(turnHeader("assistant"));
  return segs;
}

// ---------------------------------------------------------------------------------------------
// Reading an assistant turn back
// ---------------------------------------------------------------------------------------------

const CANONICAL_CALL = /^\{"name": ("(?:[^"\\]|\\.)*"), "arguments": ([\s\S]*)\}$/;
const TRAILING_EOS = /(<\|im_end\|>|<\|endoftext\|>)+$/;

function parseToolCall(body: string, index: number): ToolCall | null {
  const id = `call_${index}`;
  const canonical = CANONICAL_CALL.exec(body);
  if (canonical) {
    try {
      const name: unknown = JSON.parse(canonical[1]!);
      JSON.parse(canonical[2]!);
      if (typeof name === "string") {
        // Arguments kept verbatim (not re-serialized) so a re-render reproduces the sampled bytes.
        return { id, type: "function", function: { name, arguments: canonical[2]! } };
      }
    } catch {
      // fall through to the lenient parse
    }
  }
  try {
    const v: unknown = JSON.parse(body);
    if (v && typeof v === "object" && typeof (v as { name?: unknown }).name === "string") {
      const { name, arguments: args } = v as { name: string; arguments?: unknown };
      const argText = typeof args === "string" ? args : JSON.stringify(args ?? {});
      return { id, type: "function", function: { name, arguments: argText } };
    }
  } catch {
    // not JSON: the caller keeps the block as text
  }
  return null;
}

/**
 * Split a model's decoded output (special tokens included as text) into reasoning, content and
 * tool calls, the inverse of `assistantBody` on its canonical shape. A trailing
 * `<|im_end|>`/`<|endoftext|>` is dropped. A `<tool_call>` block that is not JSON with a string
 * `name` stays in the content, so nothing the model wrote is lost. Tool-call ids are `call_<i>`.
 */
export function parseAssistant(raw: string): ParsedAssistant {
  let rest = raw.replace(TRAILING_EOS, "");
  let reasoning: string | null = null;
  if (rest.startsWith(THINK_OPEN)) {
    const end = rest.indexOf(THINK_CLOSE);
    if (end >= 0) {
      reasoning = rest.slice(THINK_OPEN.length, end);
      if (reasoning.startsWith("\n")) reasoning = reasoning.slice(1);
      if (reasoning.endsWith("\n")) reasoning = reasoning.slice(0, -1);
      rest = rest.slice(end + THINK_CLOSE.length);
      if (rest.startsWith("\n\n")) rest = rest.slice(2);
    }
  }
  const toolCalls: ToolCall[] = [];
  let content = "";
  let cursor = 0;
  const block = /<tool_call>\n?([\s\S]*?)\n?<\/tool_call>/g;
  for (const m of rest.matchAll(block)) {
    const at = m.index ?? 0;
    const call = parseToolCall(m[1]!.trim(), toolCalls.length);
    const before = rest.slice(cursor, at);
    if (call) {
      // The newline the template puts before each <tool_call> is format, not content.
      content += toolCalls.length === 0 || before !== "\n" ? before.replace(/\n$/, "") : "";
      toolCalls.push(call);
    } else {
      content += before + m[0];
    }
    cursor = at + m[0].length;
  }
  content += rest.slice(cursor);
  return {
    content: content === "" && toolCalls.length > 0 ? null : content,
    reasoning_content: reasoning,
    tool_calls: toolCalls,
  };
}
