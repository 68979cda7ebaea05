/** Errors of the renderer, each carrying what the caller needs to react (fix a file, fall back, 400). */
import { HttpError } from "../http.js";

/**
 * A model directory could not be turned into a renderer. Thrown at startup, so the message names
 * the file and says what to fix rather than being an HTTP error.
 */
export class RendererLoadError extends Error {
  constructor(
    message: string,
    /** The file at fault (absolute path), or the directory when a file is missing. */
    readonly file: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "RendererLoadError";
  }
}

/**
 * The chat template refused or failed to render a conversation. `raise_exception(...)` in the
 * template is the template's own input validation (e.g. "roles must alternate"), so it is the
 * caller's 400; any other failure is a template/engine incompatibility, a 500.
 */
export class ChatTemplateError extends HttpError {
  constructor(
    message: string,
    readonly raisedByTemplate: boolean,
    options?: { cause?: unknown },
  ) {
    super(
      raisedByTemplate ? 400 : 500,
      message,
      raisedByTemplate ? "invalid_request_error" : "server_error",
    );
    if (options?.cause !== undefined) this.cause = options.cause;
    this.name = "ChatTemplateError";
  }
}

/**
 * `extendPrompt` cannot append the new turns to the previous prompt because the chat template
 * renders the earlier conversation differently once the new turns follow it (beyond the reasoning
 * it is allowed to drop). The caller should render the whole conversation afresh instead, and
 * start a new training row there.
 */
export class PrefixMismatchError extends Error {
  constructor(
    message: string,
    /** Index of the first character at which the two renders differ, when known. */
    readonly divergenceAt: number | null = null,
  ) {
    super(message);
    this.name = "PrefixMismatchError";
  }
}
