/**
 * The contract between the gateway core and an upstream adapter (vLLM, SGLang, hosted OpenAI API).
 * An adapter takes a canonical Chat Completions (or Completions) request and returns the full
 * result with whatever token ids and logprobs the upstream can give; when `onChunk` is set it
 * streams canonical chunks as they arrive and still returns the folded result at the end.
 */
import { EventEmitter } from "node:events";
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionRequest,
  ChatMessage,
  TokenSource,
} from "../../types/index.js";
import type { Upstream } from "./upstream.js";

/**
 * What cancels an upstream call: a DOM AbortSignal, or the gateway's CallAbort. Both say whether
 * (and why) the call was aborted; the upstream client (client.ts) listens to either.
 */
export type CallSignal = AbortSignal | CallAbort;

/**
 * The abort signal of one agent call, as an EventEmitter: listening to it with `once` costs a
 * fraction of `addEventListener` on an AbortSignal (an EventTarget), per call.
 */
export class CallAbort extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.emit("abort");
  }
}

export interface ChoiceTokens {
  completionIds: number[] | null;
  /** Log-probability of each sampled token, aligned with completionIds. */
  logprobs: number[] | null;
}

/** What the previous call of a session sent and sampled: the base of the next prompt's ids. */
export interface PromptState {
  messages: ChatMessage[];
  promptIds: number[];
  choices: { completionIds: number[]; message: ChatCompletion["choices"][number]["message"] }[];
  /** What the prompt was rendered with (tools, template options), from ChatOutcome.renderKey. */
  renderKey?: string;
}

export interface ChatCall {
  request: ChatCompletionRequest;
  /** Model name to send upstream. */
  model: string | undefined;
  onChunk?: (chunk: ChatCompletionChunk) => void;
  signal: CallSignal;
  /** The session's previous call, for token-in/token-out prompt building. */
  previous?: PromptState | undefined;
}

export interface ChatOutcome {
  /** The completion with every field the upstream returned (token ids, logprobs included). */
  completion: ChatCompletion;
  promptIds: number[] | null;
  choices: ChoiceTokens[];
  tokenSource: TokenSource;
  /** How the prompt ids were built, for the trace (e.g. "extended previous prompt"). */
  promptNote?: string;
  /** An adapter's key for what the prompt was rendered with; handed back in the next PromptState. */
  renderKey?: string;
}

export interface CompletionRequest {
  model?: string;
  prompt: string | string[] | number[] | number[][];
  stream?: boolean;
  n?: number;
  logprobs?: number | null;
  echo?: boolean;
  [k: string]: unknown;
}

export interface CompletionChoice {
  index: number;
  text: string;
  finish_reason: string | null;
  logprobs?: {
    tokens?: string[];
    token_logprobs?: (number | null)[];
    top_logprobs?: (Record<string, number> | null)[] | null;
    text_offset?: number[];
  } | null;
  token_ids?: number[] | null;
  prompt_token_ids?: number[] | null;
  [k: string]: unknown;
}

export interface Completion {
  id: string;
  object: "text_completion";
  created: number;
  model: string;
  choices: CompletionChoice[];
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number } | null;
  [k: string]: unknown;
}

export interface CompletionCall {
  request: CompletionRequest;
  model: string | undefined;
  onChunk?: (chunk: Completion) => void;
  signal: CallSignal;
}

export interface CompletionOutcome {
  completion: Completion;
  promptIds: number[] | null;
  choices: ChoiceTokens[];
  tokenSource: TokenSource;
}

export interface UpstreamAdapter {
  chat(u: Upstream, call: ChatCall): Promise<ChatOutcome>;
  completions(u: Upstream, call: CompletionCall): Promise<CompletionOutcome>;
}
