/** ChatML rendering of a conversation, with assistant turns exactly as the fake model writes them. */
import type { ChatMessage } from "../../types/chat.js";
import { IM_END, IM_START } from "./tokenizer.js";

export function contentText(content: unknown): string {
  if (content == null) return "";
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  let s = "";
  for (const p of content) {
    if (p && typeof p === "object" && (p as { type?: unknown }).type === "text") {
      const t = (p as { text?: unknown }).text;
      if (typeof t === "string") s += t;
    }
  }
  return s;
}

function toolCallMarkup(name: string, args: string): string {
  return `<tool_call>\n{"name": ${JSON.stringify(name)}, "arguments": ${args}}\n</tool_call>`;
}

export function argsString(a: unknown): string {
  if (typeof a === "string") return a;
  return JSON.stringify(a ?? {});
}

/** ChatML rendering of a conversation (assistant turns rendered exactly as the fake generates them). */
export function renderChatML(messages: readonly ChatMessage[], addGenerationPrompt = true): string {
  let s = "";
  for (const m of messages) {
    let body = contentText(m.content);
    if (m.role === "assistant") {
      const r =
        typeof m.reasoning_content === "string"
          ? m.reasoning_content
          : typeof m.reasoning === "string"
            ? m.reasoning
            : null;
      const calls = Array.isArray(m.tool_calls) ? m.tool_calls : [];
      let tools = "";
      for (let t = 0; t < calls.length; t++) {
        const c = calls[t]!;
        tools +=
          (t > 0 || body ? "\n" : "") +
          toolCallMarkup(c.function?.name ?? "", argsString(c.function?.arguments));
      }
      body = (r != null ? `<think>\n${r}\n</think>\n\n` : "") + body + tools;
    }
    s += `${IM_START}${m.role}\n${body}${IM_END}\n`;
  }
  if (addGenerationPrompt) s += `${IM_START}assistant\n`;
  return s;
}
