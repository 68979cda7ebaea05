/**
 * The fake model's chat prompts: ChatML (src/chat/chatml.ts) under a simpler template than
 * Qwen's, as a test upstream wants it: every role is written as it is (no tools block, tool
 * results as `tool` turns), non-text parts are skipped rather than refused, and thinking text is
 * read from `reasoning_content` or vLLM's `reasoning`. Assistant turns are written exactly as the
 * fake model generates them, so a multi-turn prompt extends the previous prompt + completion.
 */
import {
  type AssistantTurn,
  assistantBody,
  chatMLText,
  IM_END,
  turnHeader,
} from "../../chat/chatml.js";
import type { ChatMessage } from "../../types/chat.js";

/** The text parts of a message's content, whatever else the (unvalidated) request holds. */
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

/** Tool-call arguments as written: a string verbatim, anything else JSON-encoded. */
export function argsString(a: unknown): string {
  if (typeof a === "string") return a;
  return JSON.stringify(a ?? {});
}

function assistantTurnOf(m: ChatMessage): AssistantTurn {
  const reasoning =
    typeof m.reasoning_content === "string"
      ? m.reasoning_content
      : typeof m.reasoning === "string"
        ? m.reasoning
        : null;
  const calls = Array.isArray(m.tool_calls) ? m.tool_calls : [];
  return {
    reasoning,
    content: contentText(m.content),
    toolCalls: calls.map((c) => ({
      name: c.function?.name ?? "",
      arguments: argsString(c.function?.arguments),
    })),
  };
}

/** ChatML rendering of a conversation (assistant turns rendered exactly as the fake generates them). */
export function renderChatML(messages: readonly ChatMessage[], addGenerationPrompt = true): string {
  let s = "";
  for (const m of messages) {
    const body =
      m.role === "assistant"
        ? chatMLText(assistantBody(assistantTurnOf(m)))
        : contentText(m.content);
    s += `${chatMLText(turnHeader(m.role))}${body}${IM_END}\n`;
  }
  if (addGenerationPrompt) s += chatMLText(turnHeader("assistant"));
  return s;
}
