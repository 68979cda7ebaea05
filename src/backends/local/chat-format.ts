/**
 * The ChatML (Qwen-style) chat template of the local model. The sampler renders prompts with it
 * and the trainer renders SFT rows with it; being one implementation is what keeps the two from
 * disagreeing by a single newline, which would silently train the model on a format it never sees.
 *
 * Shape (every `<|…|>`, `<think>`, `<tool_call>` below is one special token; all else is bytes):
 *
 *     <|im_start|>system\n{system}<|im_end|>\n
 *     <|im_start|>user\n{content}<|im_end|>\n
 *     <|im_start|>assistant\n<think>\n{reasoning}\n</think>\n\n{content}\n<tool_call>\n{"name": "f", "arguments": {...}}\n</tool_call><|im_end|>\n
 *     <|im_start|>user\n<tool_response>\n{result}\n</tool_response>\n<tool_response>\n…\n</tool_response><|im_end|>\n
 *     <|im_start|>assistant\n            ← the generation prompt
 *
 * Token-in/token-out: rendering a conversation that ends with an assistant turn equals the prompt
 * that produced it + the sampled ids (ending in `<|im_end|>`) + `\n`, provided the assistant
 * message is `parseAssistant` of the sampled text in its canonical shape. That lets multi-turn
 * steps merge into one training row. Contents are never scanned for special-token strings, so
 * text cannot forge a turn boundary.
 */
import type { ChatMessage, ContentPart, Tool, ToolCall } from "../../types/index.js";
import {
  byteTokenizer,
  IM_END_ID,
  IM_START_ID,
  THINK_END_ID,
  THINK_START_ID,
  TOOL_CALL_END_ID,
  TOOL_CALL_START_ID,
} from "./tokenizer.js";

export interface RenderOptions {
  /** End with `<|im_start|>assistant\n`, the prompt for sampling the next assistant turn. */
  addGenerationPrompt?: boolean;
  /** Tool definitions, described in the system turn (Qwen's `# Tools` block). */
  tools?: Tool[];
}

export interface SftRow {
  ids: number[];
  /** 1 where the model is trained to produce the token (assistant bodies and their `<|im_end|>`). */
  lossMask: number[];
}

export interface ParsedAssistant {
  content: string | null;
  reasoning_content: string | null;
  tool_calls: ToolCall[];
}

/** The ids that follow a sampled `<|im_end|>` in a rendered conversation: the newline. */
export const TURN_SEPARATOR_IDS: readonly number[] = [0x0a];

const NL = 0x0a;

interface Segment {
  ids: number[];
  /** Whether the assistant produced these tokens (what SFT trains on). */
  trained: boolean;
}

function text(s: string): number[] {
  return byteTokenizer.encode(s, { allowSpecial: false });
}

function contentText(content: ChatMessage["content"], index: number): string {
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

function toolsPreamble(tools: Tool[]): string {
  // Qwen2.5/Qwen3 wording, so a model trained here sees the prompts the wider world uses.
  return (
    "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n" +
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>" +
    tools.map((t) => `\n${JSON.stringify(t)}`).join("") +
    "\n</tools>\n\nFor each function call, return a json object with function name and arguments " +
    'within <tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, ' +
    '"arguments": <args-json-object>}\n</tool_call>'
  );
}

/** `{"name": "f", "arguments": ARGS}` with ARGS verbatim, so sampled bytes survive a re-render. */
function toolCallBody(call: ToolCall): string {
  const args = call.function.arguments.trim() === "" ? "{}" : call.function.arguments;
  return `{"name": ${JSON.stringify(call.function.name)}, "arguments": ${args}}`;
}

function assistantBody(m: ChatMessage, index: number): number[] {
  const ids: number[] = [];
  if (typeof m.reasoning_content === "string") {
    ids.push(THINK_START_ID, NL, ...text(m.reasoning_content), NL, THINK_END_ID, NL, NL);
  }
  const content = contentText(m.content, index);
  ids.push(...text(content));
  (m.tool_calls ?? []).forEach((call, i) => {
    if (i > 0 || content !== "") ids.push(NL);
    ids.push(TOOL_CALL_START_ID, NL, ...text(toolCallBody(call)), NL, TOOL_CALL_END_ID);
  });
  ids.push(IM_END_ID);
  return ids;
}

function header(role: string): number[] {
  return [IM_START_ID, ...text(`${role}\n`)];
}

function renderSegments(messages: readonly ChatMessage[], options: RenderOptions): Segment[] {
  const segs: Segment[] = [];
  const push = (ids: number[], trained = false) => segs.push({ ids, trained });
  let start = 0;
  const first = messages[0];
  const firstIsSystem = first?.role === "system" || first?.role === "developer";
  if (options.tools && options.tools.length > 0) {
    const sys = firstIsSystem ? `${contentText(first.content, 0)}\n\n` : "";
    push([...header("system"), ...text(sys + toolsPreamble(options.tools)), IM_END_ID, NL]);
    if (firstIsSystem) start = 1;
  }
  for (let i = start; i < messages.length; i++) {
    const m = messages[i]!;
    switch (m.role) {
      case "system":
      case "developer":
      case "user": {
        const role = m.role === "user" ? "user" : "system";
        push([...header(role), ...text(contentText(m.content, i)), IM_END_ID, NL]);
        break;
      }
      case "assistant":
        push(header("assistant"));
        push(assistantBody(m, i), true);
        push([NL]);
        break;
      case "tool":
      case "function": {
        // Consecutive tool results share one user turn, as in Qwen's template.
        const ids = [IM_START_ID, ...text("user")];
        let j = i;
        for (; j < messages.length; j++) {
          const t = messages[j]!;
          if (t.role !== "tool" && t.role !== "function") break;
          ids.push(...text(`\n<tool_response>\n${contentText(t.content, j)}\n</tool_response>`));
        }
        ids.push(IM_END_ID, NL);
        push(ids);
        i = j - 1;
        break;
      }
      default:
        throw new Error(
          `message ${i} has role ${JSON.stringify((m as { role: unknown }).role)}; expected system, developer, user, assistant or tool`,
        );
    }
  }
  if (options.addGenerationPrompt) push(header("assistant"));
  return segs;
}

/** Token ids of a conversation in the local model's chat format. */
export function renderChat(
  messages: readonly ChatMessage[],
  options: RenderOptions = {},
): number[] {
  return renderSegments(messages, options).flatMap((s) => s.ids);
}

/**
 * An SFT row: the rendered conversation and a mask that is 1 exactly on the tokens an assistant
 * turn produces — reasoning, content, tool calls and the closing `<|im_end|>` — and 0 on the
 * `<|im_start|>assistant\n` header (the sampler supplies it) and everything else.
 */
export function renderSft(
  messages: readonly ChatMessage[],
  options: Omit<RenderOptions, "addGenerationPrompt"> = {},
): SftRow {
  const ids: number[] = [];
  const lossMask: number[] = [];
  for (const s of renderSegments(messages, options)) {
    for (const id of s.ids) {
      ids.push(id);
      lossMask.push(s.trained ? 1 : 0);
    }
  }
  return { ids, lossMask };
}

const CANONICAL_CALL = /^\{"name": ("(?:[^"\\]|\\.)*"), "arguments": ([\s\S]*)\}$/;

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
 * Split the model's decoded output (special tokens included as text) into reasoning, content and
 * tool calls. A trailing `<|im_end|>`/`<|endoftext|>` is dropped. A `<tool_call>` block that is not
 * JSON with a string `name` stays in the content, so nothing the model wrote is lost.
 */
export function parseAssistant(raw: string): ParsedAssistant {
  let rest = raw.replace(/(<\|im_end\|>|<\|endoftext\|>)+$/, "");
  let reasoning: string | null = null;
  if (rest.startsWith("<think>")) {
    const end = rest.indexOf("</think>");
    if (end >= 0) {
      reasoning = rest.slice("<think>".length, end);
      if (reasoning.startsWith("\n")) reasoning = reasoning.slice(1);
      if (reasoning.endsWith("\n")) reasoning = reasoning.slice(0, -1);
      rest = rest.slice(end + "</think>".length);
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
