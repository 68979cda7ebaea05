/**
 * Gemini API ⇄ Chat Completions, as pure functions: agents that speak Google's Gemini API
 * (`POST /v1beta/models/{model}:generateContent` and `:streamGenerateContent?alt=sse`, e.g. Gemini
 * CLI through the @google/genai client) are served by an upstream that only speaks Chat
 * Completions.
 *
 *   request.ts   Gemini request → chat request (validation: 400s naming the field)
 *   response.ts  chat completion → GenerateContentResponse (parts, finish reason, usage); errors
 *   stream.ts    chat chunks → the SSE stream of GenerateContentResponse chunks
 *   types.ts     the output shapes
 *
 * Shapes follow the public API reference (https://ai.google.dev/api/generate-content); the
 * tests check them field by field, and the real Gemini CLI runs against them
 * (src/agents/harness/codex-gemini.test.ts).
 */
export { type GeminiCall, geminiRequestToChat, toJsonSchema } from "./request.js";
export {
  chatToGeminiResponse,
  chatUsageToGemini,
  type GeminiIds,
  geminiErrorBody,
  geminiFinishReason,
} from "./response.js";
export { GeminiStreamTranslator } from "./stream.js";
export type {
  GeminiCandidate,
  GeminiContent,
  GeminiErrorBody,
  GeminiFinishReason,
  GeminiFunctionCall,
  GeminiPart,
  GeminiResponse,
  GeminiUsage,
} from "./types.js";
