/** Anthropic's error body and stream events (`error`, `ping`), from the gateway's HTTP errors. */
import type { SseEvent } from "../sse.js";
import type { AnthropicErrorBody, AnthropicErrorType } from "./types.js";

const ERROR_TYPES = new Set<string>([
  "invalid_request_error",
  "authentication_error",
  "billing_error",
  "permission_error",
  "not_found_error",
  "request_too_large",
  "rate_limit_error",
  "timeout_error",
  "api_error",
  "overloaded_error",
]);

function errorTypeForStatus(status: number): AnthropicErrorType {
  switch (status) {
    case 400:
    case 422:
      return "invalid_request_error";
    case 401:
      return "authentication_error";
    case 402:
      return "billing_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 413:
      return "request_too_large";
    case 429:
      return "rate_limit_error";
    case 504:
      return "timeout_error";
    // An unavailable upstream is what Anthropic reports as overloaded (529); clients retry it.
    case 503:
    case 529:
      return "overloaded_error";
    default:
      return status >= 400 && status < 500 ? "invalid_request_error" : "api_error";
  }
}

/**
 * The Anthropic error body `{type: "error", error: {type, message}, request_id}`. A `type` that is
 * already an Anthropic error type wins; otherwise (e.g. the gateway's OpenAI-style
 * "upstream_error") the type follows the status as Anthropic's API maps them.
 */
export function anthropicErrorBody(err: {
  status: number;
  message: string;
  type?: string;
  requestId?: string | null;
}): AnthropicErrorBody {
  const type =
    err.type && ERROR_TYPES.has(err.type)
      ? (err.type as AnthropicErrorType)
      : errorTypeForStatus(err.status);
  return {
    type: "error",
    error: { type, message: err.message },
    request_id: err.requestId ?? null,
  };
}

/** The same error as a stream event (`event: error`), for failures after the stream began. */
export function anthropicErrorEvent(err: {
  status: number;
  message: string;
  type?: string;
}): SseEvent {
  return { event: "error", data: anthropicErrorBody(err) };
}

/** A keep-alive event; SDK clients skip it. */
export function anthropicPingEvent(): SseEvent {
  return { event: "ping", data: { type: "ping" } };
}
