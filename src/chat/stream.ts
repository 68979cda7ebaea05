/**
 * The streaming chat parse: what of a growing ChatML/Hermes completion (`<think>` reasoning,
 * content, `<tool_call>` blocks) is already certain under the final parse, so a stream can send it
 * and the streamed message equals the non-streamed one (the samplers' front end streams with it).
 */
import type { ToolCall } from "../types/chat.js";
import {
  TOOL_CALL_OPEN as CALL_OPEN,
  ENDOFTEXT,
  IM_END,
  parseAssistant,
  THINK_OPEN as THINK,
  THINK_CLOSE as THINK_END,
} from "./chatml.js";

interface AssistantSoFar {
  reasoning: string;
  content: string;
  calls: ToolCall[];
}

export function finalAssistant(raw: string): AssistantSoFar {
  const p = parseAssistant(raw);
  return { reasoning: p.reasoning_content ?? "", content: p.content ?? "", calls: p.tool_calls };
}

const TOOL_BLOCK = /<tool_call>\n?[\s\S]*?\n?<\/tool_call>/g;
const TRAILING_EOS = /(<\|im_end\|>|<\|endoftext\|>)+$/;

/** Length of the longest suffix of `s` that is a proper prefix of one of `patterns`. */
function heldSuffix(s: string, patterns: readonly string[]): number {
  let best = 0;
  for (const p of patterns)
    for (let k = Math.min(p.length - 1, s.length); k > best; k--)
      if (s.endsWith(p.slice(0, k))) {
        best = k;
        break;
      }
  return best;
}

/**
 * What of a still-growing completion is already certain under {@link parseAssistant}: reasoning,
 * content and complete tool calls that are prefixes of what the final parse will give, holding
 * back any text the rest could still change (a newline before `</think>` or `<tool_call>`, an
 * open tool-call block). Streaming sends the difference from step to step, so the streamed
 * message equals the non-streamed one — except when a `<think>` is never closed, where the final
 * parse turns everything into content after the reasoning was streamed (as vLLM's parsers do).
 */
export function partialAssistant(raw: string): AssistantSoFar {
  const none: AssistantSoFar = { reasoning: "", content: "", calls: [] };
  let contentStart = 0;
  if (raw.startsWith(THINK)) {
    const end = raw.indexOf(THINK_END);
    if (end < 0) {
      let r = raw.slice(THINK.length);
      if (r.startsWith("\n")) r = r.slice(1);
      return { ...none, reasoning: r.slice(0, r.length - heldSuffix(r, [`\n${THINK_END}`])) };
    }
    const after = end + THINK_END.length;
    const rest = raw.slice(after);
    if (rest === "" || rest === "\n") return { ...none, reasoning: finalAssistant(raw).reasoning };
    contentStart = rest.startsWith("\n\n") ? after + 2 : after;
  } else if (THINK.startsWith(raw)) return none;
  const region = raw.slice(contentStart);
  let stableEnd = 0;
  for (const m of region.matchAll(TOOL_BLOCK)) stableEnd = (m.index ?? 0) + m[0].length;
  const stable = finalAssistant(raw.slice(0, contentStart + stableEnd));
  const tail = region.slice(stableEnd);
  const open = tail.indexOf(CALL_OPEN);
  let tailContent: string;
  if (open >= 0) {
    const before = tail.slice(0, open);
    tailContent = stable.calls.length > 0 && before === "\n" ? "" : before.replace(/\n$/, "");
  } else {
    const t = tail.replace(TRAILING_EOS, "");
    tailContent = t.slice(
      0,
      t.length - heldSuffix(t, [`\n${CALL_OPEN}`, CALL_OPEN, IM_END, ENDOFTEXT]),
    );
  }
  return {
    reasoning: stable.reasoning,
    content: stable.content + tailContent,
    calls: stable.calls,
  };
}
