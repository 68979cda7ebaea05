/**
 * The local model's chat format: ChatML with Hermes tool calls (src/chat/chatml.ts) in the byte
 * tokenizer's ids. The sampler renders prompts with it and the trainer renders SFT rows with it;
 * being one implementation is what keeps the two from disagreeing by a single newline, which would
 * silently train the model on a format it never sees.
 *
 * Every `<|…|>`, `<think>`, `<tool_call>` of the format is one special token; all else is bytes,
 * and contents are never scanned for special-token strings, so text cannot forge a turn boundary.
 *
 * Token-in/token-out: rendering a conversation that ends with an assistant turn equals the prompt
 * that produced it + the sampled ids (ending in `<|im_end|>`) + `\n`, provided the assistant
 * message is `parseAssistant` of the sampled text in its canonical shape. That lets multi-turn
 * steps merge into one training row.
 */
import {
  type ChatMLPiece,
  type ChatMLSegment,
  type ChatMLSpecial,
  chatMLSegments,
  IM_END,
  IM_START,
  type RenderOptions,
  THINK_CLOSE,
  THINK_OPEN,
  TOOL_CALL_CLOSE,
  TOOL_CALL_OPEN,
} from "../../chat/chatml.js";
import type { ChatMessage } from "../../types/index.js";
import {
  byteTokenizer,
  IM_END_ID,
  IM_START_ID,
  THINK_END_ID,
  THINK_START_ID,
  TOOL_CALL_END_ID,
  TOOL_CALL_START_ID,
} from "./tokenizer.js";

export { parseAssistant } from "../../chat/chatml.js";

export interface SftRow {
  ids: number[];
  /** 1 where the model is trained to produce the token (assistant bodies and their `<|im_end|>`). */
  lossMask: number[];
}

/** The ids that follow a sampled `<|im_end|>` in a rendered conversation: the newline. */
export const TURN_SEPARATOR_IDS: readonly number[] = [0x0a];

const SPECIAL_IDS: Readonly<Record<ChatMLSpecial, number>> = {
  [IM_START]: IM_START_ID,
  [IM_END]: IM_END_ID,
  [THINK_OPEN]: THINK_START_ID,
  [THINK_CLOSE]: THINK_END_ID,
  [TOOL_CALL_OPEN]: TOOL_CALL_START_ID,
  [TOOL_CALL_CLOSE]: TOOL_CALL_END_ID,
};

/** A piece's ids: a special tag is its one token, any other text its bytes. */
function pieceIds(p: ChatMLPiece, out: number[]): void {
  if (p.kind === "special") out.push(SPECIAL_IDS[p.text]);
  else for (const id of byteTokenizer.encode(p.text, { allowSpecial: false })) out.push(id);
}

function segmentIds(s: ChatMLSegment): number[] {
  const ids: number[] = [];
  for (const p of s.pieces) pieceIds(p, ids);
  return ids;
}

/** Token ids of a conversation in the local model's chat format. */
export function renderChat(
  messages: readonly ChatMessage[],
  options: RenderOptions = {},
): number[] {
  return chatMLSegments(messages, options).flatMap(segmentIds);
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
  for (const s of chatMLSegments(messages, options)) {
    for (const id of segmentIds(s)) {
      ids.push(id);
      lossMask.push(s.trained ? 1 : 0);
    }
  }
  return { ids, lossMask };
}
