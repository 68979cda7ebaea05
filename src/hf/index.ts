/**
 * Token-in/token-out rendering for the gateway: chat template + tokenizer of a model directory,
 * prompt extension over sampled ids, and the Qwen/Hermes completion parser.
 */
export { ChatTemplateError, PrefixMismatchError, RendererLoadError } from "./errors.js";
export { type LoadRendererOptions, loadRenderer, loadRendererSync } from "./load.js";
export {
  collectDeltas,
  createStreamParser,
  type Delta,
  newToolCallId,
  type ParsedCompletion,
  type ParseOptions,
  parseCompletion,
  promptOpensReasoning,
  type StreamParser,
  type StreamToolCall,
} from "./parse.js";
export { pythonJsonDumps } from "./pyjson.js";
export type {
  ChatRenderer,
  ExtendedPrompt,
  PreviousCall,
  RenderedPrompt,
  RenderOptions,
} from "./renderer.js";
export { ChatTemplate, type NamedTemplate, strftime } from "./template.js";
