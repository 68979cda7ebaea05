/**
 * What a sampler's HTTP front end (backends/serving/) needs of a model's tokenizer and chat format.
 * The local backend's ByteTokenizer and chat-format.ts are one implementation; a Hugging Face
 * model directory (hf/serving.ts) is another. Here, at the bottom, so that both the front end and
 * the directory reader can name them without either importing the other.
 */
import type { ChatMessage, Tool } from "./chat.js";

/** The model's tokenizer, as the front end needs it (the local ByteTokenizer is one). */
export interface ServingTokenizer {
  readonly vocabSize: number;
  /** Ids that end a sequence unless `ignore_eos`; reported with stop_reason null. */
  readonly eosTokenIds: readonly number[];
  /** Caller text (prompts, stop strings): special-token strings map to their ids. */
  encode(text: string): number[];
  decode(ids: readonly number[], options?: { skipSpecialTokens?: boolean }): string;
  /** Text of ids fed as they are sampled, never splitting a character. */
  decodeStream(options?: { skipSpecialTokens?: boolean }): {
    push(ids: readonly number[]): string;
    flush(): string;
  };
  /** One token's text and bytes, as a logprob entry shows them. */
  tokenText(id: number): string;
  tokenBytes(id: number): number[];
}

/** Chat messages (and tools) → prompt ids in the model's chat format; throws on what it cannot render. */
export type ChatRenderer = (
  messages: readonly ChatMessage[],
  options: { addGenerationPrompt: boolean; tools?: Tool[] },
) => number[];
