/**
 * An error with an HTTP status and an OpenAI-style error type, thrown anywhere below a route handler
 * and rendered by the server in the caller's API dialect (OpenAI or Anthropic).
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type: string = defaultType(status),
    readonly code: string | null = null,
  ) {
    super(message);
    this.name = "HttpError";
  }
}

function defaultType(status: number): string {
  if (status === 400 || status === 413 || status === 422) return "invalid_request_error";
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 429) return "rate_limit_error";
  if (status === 502 || status === 503 || status === 504) return "upstream_error";
  return "server_error";
}

/** A 400 built from a zod error: names each offending path so the caller knows what to fix. */
export function badRequestFromIssues(
  what: string,
  issues: readonly { path: readonly PropertyKey[]; message: string }[],
): HttpError {
  const parts = issues.slice(0, 5).map((i) => {
    const path = i.path.map(String).join(".");
    return path ? `${path}: ${i.message}` : i.message;
  });
  return new HttpError(400, `invalid ${what}: ${parts.join("; ")}`, "invalid_request_error");
}
