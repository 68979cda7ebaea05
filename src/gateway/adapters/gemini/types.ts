/**
 * The subset of the Gemini API's object model this translator produces, as the public reference
 * defines it (https://ai.google.dev/api/generate-content#generatecontentresponse, and
 * https://ai.google.dev/api/caching#Content for Content and Part).
 */

/** A part of a model turn: thought text, answer text, or a function call. */
export type GeminiPart =
  | { text: string; thought?: true; thoughtSignature?: string }
  | { functionCall: GeminiFunctionCall; thoughtSignature?: string };

export interface GeminiFunctionCall {
  /** The call's id, echoed by the client's functionResponse. */
  id: string;
  name: string;
  args: Record<string, unknown>;
}

export interface GeminiContent {
  role: "model";
  parts: GeminiPart[];
}

/** Candidate.finishReason values this translator produces. */
export type GeminiFinishReason =
  | "STOP"
  | "MAX_TOKENS"
  | "SAFETY"
  | "MALFORMED_FUNCTION_CALL"
  | "OTHER";

export interface GeminiCandidate {
  content: GeminiContent;
  finishReason?: GeminiFinishReason;
  index: number;
}

export interface GeminiUsage {
  promptTokenCount: number;
  /** Tokens of the answer, thoughts excluded (the API counts thoughts apart). */
  candidatesTokenCount: number;
  totalTokenCount: number;
  thoughtsTokenCount?: number;
  cachedContentTokenCount?: number;
}

export interface GeminiResponse {
  candidates: GeminiCandidate[];
  usageMetadata?: GeminiUsage;
  modelVersion: string;
  responseId: string;
}

/** Google's error body (https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes). */
export interface GeminiErrorBody {
  error: { code: number; message: string; status: string };
}
