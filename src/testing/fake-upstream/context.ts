/**
 * What every endpoint of one fake upstream reads: its kind and the dialect that kind speaks, the
 * model, the runtime settings, and the ids and timestamps responses carry.
 */
import { randomBytes } from "node:crypto";
import type { ChatMessage } from "../../types/chat.js";
import { Engine, LazyPrompt, RequestInfo } from "./engine.js";
import { contentText } from "./render.js";
import type {
  FakeRequestInfo,
  FakeRespond,
  FakeUpstreamConfig,
  FakeUpstreamKind,
  FakeUpstreamOptions,
} from "./types.js";
import { fakeWeights } from "./weight-state.js";

export type Json = Record<string, unknown>;

/** How a kind's responses differ where the endpoints are shared. */
interface Dialect {
  /** vLLM: `return_token_ids` is honoured. */
  tokenIds: boolean;
  /** The field thinking text goes in. */
  reasoning: "reasoning" | "reasoning_content" | "both";
  /** Hosted OpenAI: `refusal`, usage details, `system_fingerprint`, `service_tier`. */
  openaiExtras: boolean;
  /** Self-hosted servers end a finished completion with the EOS id. */
  appendEos: boolean;
  /** SGLang: `matched_stop` on a finished choice. */
  matchedStop: boolean;
}

export interface FakeServer {
  readonly kind: FakeUpstreamKind;
  readonly model: string;
  readonly options: FakeUpstreamOptions;
  readonly engine: Engine;
  readonly respond: FakeRespond;
  readonly dialect: Dialect;
  /** Mutable runtime settings, shared with the handle the caller gets. */
  readonly config: FakeUpstreamConfig;
  /** The weight-update state (option `weightSync`, vllm and sglang). */
  readonly weights: ReturnType<typeof fakeWeights> | undefined;
  readonly maxModelLen: number;
  /** Seed of the logprobs when a request has none. */
  readonly defaultSeed: number;
  /** Random per server: ids of different servers never collide. */
  readonly idBase: string;
  /** A fresh hex id of `len` digits. */
  nextHex(len: number): string;
  /** `created` in seconds, read from the clock at most once a second. */
  created(): number;
}

export function fakeServer(opts: FakeUpstreamOptions): FakeServer {
  const kind = opts.kind;
  const idBase = randomBytes(4).toString("hex");
  let seq = 0;
  let createdCache = 0;
  let createdAt = 0;
  return {
    kind,
    model: opts.model ?? "fake-model",
    options: opts,
    engine: new Engine(opts.tokenizer, opts.eosTokenId),
    respond: opts.respond ?? defaultRespond,
    dialect: {
      tokenIds: kind === "vllm",
      reasoning: opts.reasoningField ?? (kind === "vllm" ? "reasoning" : "reasoning_content"),
      openaiExtras: kind === "openai",
      appendEos: kind !== "openai",
      matchedStop: kind === "sglang",
    },
    config: {
      latencyMs: opts.latencyMs ?? 0,
      tokenDelayMs: opts.tokenDelayMs ?? 0,
      tokensPerChunk: Math.max(1, opts.tokensPerChunk ?? 1),
      weightVersion: opts.weightVersion ?? "default",
      healthy: true,
    },
    weights: opts.weightSync && kind !== "openai" ? fakeWeights() : undefined,
    maxModelLen: opts.maxModelLen ?? 32768,
    defaultSeed: opts.seed ?? 0,
    idBase,
    nextHex: (len) => idBase + (++seq).toString(16).padStart(len - idBase.length, "0"),
    created() {
      const now = Date.now();
      if (now - createdAt >= 1000) {
        createdAt = now;
        createdCache = Math.floor(now / 1000);
      }
      return createdCache;
    },
  };
}

/**
 * The `FakeRequestInfo` of each choice of one prompt; the prompt's ids are encoded once, on first
 * use.
 */
export function requestInfos(
  s: FakeServer,
  endpoint: FakeRequestInfo["endpoint"],
  base: { messages?: ChatMessage[]; tools?: unknown[]; promptText: string; promptIds?: number[] },
  params: Json,
  promptIndex: number,
): (choiceIndex: number) => FakeRequestInfo {
  const prompt = new LazyPrompt(s.engine, base.promptText, base.promptIds);
  return (choiceIndex: number) =>
    new RequestInfo(
      s.kind,
      endpoint,
      base.messages,
      base.tools,
      prompt,
      params,
      choiceIndex,
      promptIndex,
    );
}

/** Sets the thinking text under the field(s) the dialect uses. */
export function setReasoning(dialect: Dialect, target: Json, v: string | null): void {
  if (dialect.reasoning === "reasoning_content") target.reasoning_content = v;
  else {
    target.reasoning = v;
    if (dialect.reasoning === "both") target.reasoning_content = v;
  }
}

/** The default model: `Echo: <last user text>` (chat) or the prompt's last 64 characters. */
function defaultRespond(info: FakeRequestInfo): string {
  let src = "";
  if (info.messages) {
    for (let i = info.messages.length - 1; i >= 0; i--) {
      const m = info.messages[i]!;
      if (m.role === "user") {
        src = contentText(m.content);
        break;
      }
    }
  } else {
    src = info.promptText.length > 64 ? info.promptText.slice(-64) : info.promptText;
  }
  return info.choiceIndex === 0 ? `Echo: ${src}` : `Echo ${info.choiceIndex}: ${src}`;
}
