/** The fake upstream's public types: its options, the scripted model's inputs and outputs, faults. */
import type { IncomingHttpHeaders } from "node:http";
import type { ChatMessage } from "../../types/chat.js";

export type FakeUpstreamKind = "vllm" | "sglang" | "openai";

export interface FakeTokenizer {
  encode(text: string): number[];
  decode(ids: number[]): string;
}

export interface FakeToolCall {
  name: string;
  /** A JSON string, or an object that is JSON-encoded. */
  arguments: string | Record<string, unknown>;
  id?: string;
}

export interface FakeCompletion {
  text: string;
  /** Thinking text; rendered as `<think>\n…\n</think>\n\n` before the text. */
  reasoning?: string;
  toolCalls?: FakeToolCall[];
  /** "stop" (default): the model ends with EOS. "length": it would go on (no EOS). */
  finishReason?: "stop" | "length";
}

export interface FakeRequestInfo {
  kind: FakeUpstreamKind;
  endpoint: "chat" | "completions" | "generate";
  messages?: ChatMessage[];
  tools?: unknown[];
  /** Chat: the ChatML-rendered prompt. Completions/generate: the prompt text (decoded if ids). */
  promptText: string;
  /** The prompt token ids (computed on first access). */
  readonly promptIds: number[];
  /** The request body (chat/completions) or the sampling params merged over the body (generate). */
  params: Record<string, unknown>;
  choiceIndex: number;
  promptIndex: number;
}

export type FakeRespond = (req: FakeRequestInfo) => string | FakeCompletion;

interface FaultBase {
  /** Only a request to this exact path consumes the fault (default: any generation request). */
  path?: string;
}
export type FakeFault = FaultBase &
  (
    | { kind: "status"; status: number; body?: unknown; headers?: Record<string, string> }
    | { kind: "garbage"; status?: number; body?: string }
    | { kind: "destroy" }
    | { kind: "destroy-mid-stream"; afterChunks: number }
    | { kind: "hang" }
    | { kind: "delay"; ms: number }
  );

export interface FakeUpstreamOptions {
  kind: FakeUpstreamKind;
  port?: number;
  host?: string;
  /** Served model name (default "fake-model"). */
  model?: string;
  /** Reject requests naming another model with 404, as vLLM does (default false). */
  checkModel?: boolean;
  respond?: FakeRespond;
  tokenizer?: FakeTokenizer;
  /** Appended to token ids when the model finishes on its own (default: 2 with the byte tokenizer). */
  eosTokenId?: number;
  /** Default seed for logprobs when the request has none (default 0). */
  seed?: number;
  /** Delay before answering each generation request. */
  latencyMs?: number;
  /** Delay between streamed chunks. */
  tokenDelayMs?: number;
  /** Tokens per streamed chunk (vLLM's stream interval; default 1). */
  tokensPerChunk?: number;
  /** Record requests (default true). */
  record?: boolean;
  /** Cap on `requests` (default 1000; oldest dropped). */
  maxRecorded?: number;
  /** Field name for thinking text in chat messages/deltas (vllm default "reasoning"; else "reasoning_content"). */
  reasoningField?: "reasoning" | "reasoning_content" | "both";
  /** vLLM error body: "nested" (v0.10.1+, default) or "legacy" (flat `object: "error"`). */
  errorFormat?: "nested" | "legacy";
  /** SGLang `--incremental-streaming-output`: stream deltas instead of cumulative outputs. */
  sglangIncrementalStreaming?: boolean;
  /** openai kind: reject vLLM-only params such as `return_token_ids` with 400 (default: ignore). */
  rejectUnknownParams?: boolean;
  maxModelLen?: number;
  /** SGLang `meta_info.weight_version` (default "default"). */
  weightVersion?: string;
  /**
   * Answer a generation request whose path and body were seen before with the bytes it got the
   * first time (one write), without generating again: a bare TCP front before the fake
   * (replay-front.ts, which says what it leaves out). For benchmarks, where the fake shares a core
   * with what is measured and stands for a GPU server that costs the gateway's machine nothing: it
   * then costs little more than its socket reads and writes. Ids and timestamps repeat. Off by
   * default; not used while faults are queued or a latency is set.
   */
  replay?: boolean;
  /**
   * vllm/sglang: serve the weight-update admin routes (weights.ts): runtime LoRA, pause/resume,
   * full-weight reloads, with their state; the directories they are given are checked in Python.
   */
  weightSync?: {
    /** The model directory LoRA adapters are checked against (needed to load any adapter). */
    baseModel?: string;
    /**
     * vllm: started with --weight-transfer-config '{"backend":"disk"}' (default true); false:
     * the weight-transfer routes answer vLLM's 500 "Weight transfer not configured".
     */
    weightTransfer?: boolean;
    /**
     * sglang: --max-loaded-loras, a load beyond it is refused (vLLM has no such refusal: its
     * --max-cpu-loras is a cache that evicts). Default: no limit.
     */
    maxLoadedAdapters?: number;
  };
}

/** A fake server's weight state (option `weightSync`). */
export interface FakeWeights {
  /** Loaded LoRA adapters: name → directory. */
  readonly adapters: Map<string, string>;
  /** vLLM: generation waits while paused (/pause until /resume). */
  paused: boolean;
  /** The directory of the last full-weight load, or null. */
  modelPath: string | null;
  /** Every admin call, in order. */
  readonly calls: {
    route: string;
    query: Record<string, string>;
    body: unknown;
    status: number;
    at: number;
  }[];
  /**
   * vLLM's weight transfer (disk backend): whether /init_weight_transfer_engine ran (set false
   * to play a server restart); `active`, the worker's flag of an open update (start sets it,
   * finish or a failed update clears it); `session`, the disk engine's own update (`path`: the
   * checkpoint /update_weights loaded), else null.
   */
  readonly transfer: {
    initialized: boolean;
    active: boolean;
    session: { path: string | null } | null;
  };
  /** The next `times` calls of `route` fail with `message`, in the server's error shape. */
  failNext(route: string, times: number, message: string): void;
  /** The next call of `route` answers `ms` milliseconds late (a client's timeout). */
  slowNext(route: string, ms: number): void;
}

export interface RecordedRequest {
  method: string;
  path: string;
  body: unknown;
  headers: IncomingHttpHeaders;
  at: number;
}

export interface FakeUpstreamConfig {
  latencyMs: number;
  tokenDelayMs: number;
  tokensPerChunk: number;
  weightVersion: string;
  healthy: boolean;
}

export interface FakeUpstream {
  readonly kind: FakeUpstreamKind;
  readonly url: string;
  readonly port: number;
  readonly model: string;
  /** Received requests (newest last), capped by `maxRecorded`. */
  readonly requests: RecordedRequest[];
  /** Faults to inject, consumed one per generation request in order. Push to it freely. */
  readonly faults: FakeFault[];
  /** Mutable runtime settings. */
  readonly config: FakeUpstreamConfig;
  readonly inFlight: number;
  readonly totalRequests: number;
  /** The weight state (option `weightSync`), else undefined. */
  readonly weights: FakeWeights | undefined;
  setHealthy(healthy: boolean): void;
  clearRequests(): void;
  close(): Promise<void>;
}
