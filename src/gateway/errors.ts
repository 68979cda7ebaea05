/**
 * The gateway's errors: {@link HttpError} (src/http.ts, shared with the sampler front end), thrown
 * anywhere below a route handler and rendered by the server in the caller's API dialect (OpenAI or
 * Anthropic).
 */
import { HttpError } from "../http.js";

export { HttpError };

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
