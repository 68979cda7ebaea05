/**
 * SFT rows in a Hugging Face model directory's own chat format: a conversation rendered with the
 * directory's chat template into ids, and a loss mask that is 1 on the tokens each assistant turn
 * adds — what the model must produce after the generation prompt — and 0 on everything else.
 *
 *   const render = await loadSftRenderer("/models/Qwen3-0.6B");
 *   const { ids, lossMask } = render(messages, tools);
 *
 * The prefix method (TRL's assistant masks, without template markers): for assistant message i,
 *
 *   whole  = render(messages,        addGenerationPrompt: false)      the row's ids
 *   start  = render(messages[:i],    addGenerationPrompt: true).length
 *   end    = one past the first end-of-turn (e.g. <|im_end|>) at or after start; a template
 *            without one: render(messages[:i+1], addGenerationPrompt: false).length
 *   lossMask[start:end] = 1
 *
 * Decided here, once:
 *   - the generation prompt (`<|im_start|>assistant\n`) is out: the sampler supplies it; what the
 *     template writes after it for the turn is in — content, tool calls, the end-of-turn marker,
 *     and e.g. Qwen3's empty `<think>\n\n</think>\n\n` of a final turn, which the model produces
 *     there too; the separator after the end-of-turn (`\n`) is out, as in the local format;
 *   - the prefixes are compared as ids, not text, so a boundary that tokenizes differently in
 *     the whole conversation is caught; a template whose renders are not prefixes of each other
 *     (one that writes the turn count up front, say) is refused, naming the message, never
 *     guessed at;
 *   - an assistant turn with no end-of-turn marker in the whole rendering is refused.
 */
import type { ChatMessage, Tool } from "../types/chat.js";
import { loadRenderer } from "./load.js";
import type { ChatRenderer } from "./renderer.js";

/** One rendered SFT row: 1 in lossMask where the model is trained to produce the token. */
export interface HfSftRow {
  ids: number[];
  lossMask: number[];
}

export type HfSftRenderer = (messages: ChatMessage[], tools?: Tool[]) => HfSftRow;

export class SftTemplateError extends Error {
  override name = "SftTemplateError";
}

/** The SFT renderer of a model directory (its tokenizer.json and chat template). */
export async function loadSftRenderer(
  dir: string,
  templateKwargs?: Record<string, unknown>,
): Promise<HfSftRenderer> {
  const renderer = await loadRenderer(dir);
  return (messages, tools) => renderSftRow(renderer, messages, { tools, templateKwargs });
}

function isPrefix(prefix: readonly number[], ids: readonly number[]): boolean {
  if (prefix.length > ids.length) return false;
  for (let i = 0; i < prefix.length; i++) if (prefix[i] !== ids[i]) return false;
  return true;
}

/** Index of the first occurrence of `needle` in `ids` at or after `from`, or -1. */
function indexOf(ids: readonly number[], needle: readonly number[], from: number): number {
  outer: for (let i = from; i + needle.length <= ids.length; i++) {
    for (let j = 0; j < needle.length; j++) if (ids[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

/** A conversation's ids and assistant-token mask under `renderer`'s chat template. */
export function renderSftRow(
  renderer: ChatRenderer,
  messages: ChatMessage[],
  options: {
    tools?: Tool[] | undefined;
    templateKwargs?: Record<string, unknown> | undefined;
  } = {},
): HfSftRow {
  const render = (upTo: number, addGenerationPrompt: boolean) =>
    renderer.renderPrompt(messages.slice(0, upTo), { ...options, addGenerationPrompt }).ids;
  const ids = render(messages.length, false);
  const lossMask = ids.map(() => 0);
  const eot = renderer.endOfTurn;
  const notPrefix = (i: number, what: string) =>
    new SftTemplateError(
      `message ${i} (assistant): the chat template renders ${what} as ids that are not a prefix of the whole conversation's, so the assistant's tokens cannot be told apart; use a template whose earlier turns render the same whatever follows them`,
    );
  messages.forEach((m, i) => {
    if (m.role !== "assistant") return;
    const start = render(i, true);
    if (!isPrefix(start, ids)) throw notPrefix(i, `messages[:${i}] with the generation prompt`);
    let end: number;
    if (eot) {
      const at = indexOf(ids, eot.ids, start.length);
      if (at < 0)
        throw new SftTemplateError(
          `message ${i} (assistant): no end-of-turn ${JSON.stringify(eot.text)} follows it in the rendered conversation`,
        );
      end = at + eot.ids.length;
    } else if (i + 1 < messages.length) {
      const upTo = render(i + 1, false);
      if (!isPrefix(upTo, ids)) throw notPrefix(i, `messages[:${i + 1}]`);
      end = upTo.length;
    } else end = ids.length;
    for (let t = start.length; t < end; t++) lossMask[t] = 1;
  });
  return { ids, lossMask };
}
