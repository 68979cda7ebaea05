/**
 * `rllm/gateway`: the HTTP gateway between agents and model servers, on its own — start one,
 * point agents at its session URLs, read the traces it stored. Also the seam for a new kind of
 * model server: an `UpstreamAdapter` passed in `GatewayOptions.adapters`.
 *
 * The gateway imports neither the engine nor the trainer, and neither does this entry point.
 */
export type { GatewayConfig, UpstreamConfig, UpstreamKind } from "../config/schema.js";
export { Gateway, type GatewayOptions, startGateway } from "../gateway/server.js";
export type {
  CallSignal,
  ChatCall,
  ChatOutcome,
  ChoiceTokens,
  Completion,
  CompletionCall,
  CompletionChoice,
  CompletionOutcome,
  CompletionRequest,
  PromptState,
  UpstreamAdapter,
} from "../gateway/upstreams/types.js";
export type { Upstream } from "../gateway/upstreams/upstream.js";
export {
  type ChatRenderer,
  type LoadRendererOptions,
  loadRenderer,
  RendererLoadError,
} from "../hf/index.js";
export {
  type SessionRow,
  Store,
  type StoredTrace,
  type StoreOptions,
  type TraceQuery,
} from "../store/sqlite.js";
export type { TraceRecord } from "../types/core.js";
