/**
 * A Hugging Face model directory: its chat template + tokenizer for the gateway's token-in/
 * token-out rendering (prompt extension over sampled ids, the Qwen/Hermes completion parser) and,
 * through `loadServing`, as a sampler's tokenizer and chat renderer.
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
export { loadServing, type ServingDirectory } from "./serving.js";
export { ChatTemplate, type NamedTemplate, strftime } from "./template.js";
