/**
 * OpenAI Responses API ⇄ Chat Completions, as pure functions: agents that speak Responses
 * (`POST /v1/responses`) are served by an upstream that only speaks Chat Completions.
 *
 *   request.ts   Responses request → chat request (validation: 400s naming the field; stateful
 *                features refused)
 *   input.ts     the request's `input` items → chat messages
 *   tools.ts     function, custom, local_shell and namespace tools → chat functions, and back
 *   response.ts  chat completion → Responses `response` (usage, status, item ids)
 *   stream.ts    chat chunks → Responses events, on the shared ChatBlockStream
 *   types.ts     the output shapes
 *
 * Shapes follow the `openai` npm client's types (resources/responses/responses.d.ts); the tests
 * replay our streams through that client's own accumulator.
 */
export { responsesRequestToChat } from "./request.js";
export { chatToResponsesResponse, chatUsageToResponses, type ResponsesIds } from "./response.js";
export { ResponsesStreamTranslator } from "./stream.js";
export type {
  ResponsesCallItem,
  ResponsesCustomToolCallItem,
  ResponsesFunctionCallItem,
  ResponsesItemStatus,
  ResponsesLocalShellCallItem,
  ResponsesMessageItem,
  ResponsesOutputItem,
  ResponsesOutputText,
  ResponsesReasoningItem,
  ResponsesResponse,
  ResponsesStatus,
  ResponsesUsage,
} from "./types.js";
