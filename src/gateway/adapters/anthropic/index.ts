/**
 * Anthropic Messages API ⇄ Chat Completions, as pure functions: agents that speak Anthropic
 * Messages (`POST /v1/messages`, e.g. Claude Code or the `@anthropic-ai/sdk` client) are served by
 * an upstream that only speaks Chat Completions.
 *
 *   request.ts   Anthropic request → chat request (validation: 400s naming the field)
 *   response.ts  chat completion → Anthropic `message` (usage, stop reason, tool input)
 *   stream.ts    chat chunks → Anthropic events, on the shared ChatBlockStream
 *   errors.ts    Anthropic error bodies and the `error` / `ping` events
 *   types.ts     the output shapes
 *
 * Shapes follow the `@anthropic-ai/sdk` types (resources/messages/messages.d.ts); the tests replay
 * our streams through that client's own MessageStream accumulator.
 */
export { anthropicErrorBody, anthropicErrorEvent, anthropicPingEvent } from "./errors.js";
export { anthropicRequestToChat } from "./request.js";
export {
  type AnthropicIds,
  chatToAnthropicResponse,
  chatUsageToAnthropic,
  toolInput,
} from "./response.js";
export { type AnthropicStreamOptions, AnthropicStreamTranslator } from "./stream.js";
export type {
  AnthropicContentBlock,
  AnthropicErrorBody,
  AnthropicErrorType,
  AnthropicMessage,
  AnthropicStopReason,
  AnthropicTextBlock,
  AnthropicThinkingBlock,
  AnthropicToolUseBlock,
  AnthropicUsage,
} from "./types.js";
