/**
 * The model APIs a session URL serves (`<gateway>/sessions/<id>/…`), as path patterns: the
 * gateway routes by them, and the harness tunnel (agents/harness/tunnel.ts) passes on exactly
 * what they match, so a sandbox reaches its session's model API and nothing else of the gateway.
 */

/** The OpenAI- and Anthropic-shaped agent APIs: prefix (the session path), then the API. */
export const AGENT_API = /^(.*)\/v1\/(chat\/completions|completions|responses|messages|models)$/;
/** The Gemini API's generate methods: prefix, model (may hold `/`), method. */
export const GEMINI_API =
  /^(.*)\/(?:v1beta|v1)\/models\/(.+):(generateContent|streamGenerateContent)$/;
