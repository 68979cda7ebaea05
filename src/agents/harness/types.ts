/**
 * A CLI harness: a coding agent that is a whole program (Claude Code, Codex, opencode, Qwen Code,
 * Gemini CLI), run unchanged inside the task's sandbox with its model calls pointed at the
 * session's gateway. One definition per CLI says what the runner (agent.ts) cannot know:
 *
 *   package@version      what `rllm harness install NAME` installs into
 *                        $RLLM_HOME/harnesses/NAME/ (install.ts)
 *   bin                  the executable, relative to that install dir
 *   dialect              the gateway endpoint the CLI calls (for the docs and the tests' checks)
 *   configure(ctx)       files under the sandbox's HOME + environment variables that point the
 *                        CLI at ctx.sessionURL / ctx.baseURL with ctx.apiKey and ctx.model, and
 *                        keep it quiet (no telemetry, update checks or other network)
 *   command(ctx)         the argv that runs it non-interactively on ctx.instruction in ctx.cwd,
 *                        with every permission granted (the sandbox is the boundary)
 *   finalMessage(out)    optional: the CLI's last answer read from its stdout (its JSON output)
 *
 * Edge cases, decided once:
 * - configure() and command() are pure: they read ctx only, touch no files and start nothing; the
 *   runner writes the files (paths relative to ctx.home, no `..`, no leading `/`) and runs argv[0]
 *   as given (an absolute path inside the sandbox, normally `${ctx.installDir}/${bin}`).
 * - The token is passed in env or a config file the definition picks, never on the command line
 *   (argv is visible to every process of the sandbox and lands in logs).
 * - finalMessage returns undefined when stdout holds no answer (a crash, a non-JSON mode); it never
 *   throws.
 */

/** The gateway endpoint a CLI speaks (src/gateway/adapters/). */
export type HarnessDialect =
  /** POST /v1/chat/completions (streaming). */
  | "chat-completions"
  /** POST /v1/messages (Anthropic Messages, streaming). */
  | "anthropic-messages"
  /** POST /v1/responses (OpenAI Responses, streaming). */
  | "responses"
  /** POST /v1beta/models/{model}:streamGenerateContent (Gemini API). */
  | "gemini";

/** What a definition knows of the episode it configures. All paths are absolute, inside the sandbox. */
export interface HarnessContext {
  /** The session URL without /v1 (what ANTHROPIC_BASE_URL / GOOGLE_GEMINI_BASE_URL take). */
  sessionURL: string;
  /** The session's OpenAI-style base URL, ending in /v1. */
  baseURL: string;
  /** The session token: the CLI's API key. */
  apiKey: string;
  /** The model name the CLI asks for (the gateway serves it whatever it is called). */
  model: string;
  /** The task's instruction text: the prompt. */
  instruction: string;
  /** The directory the CLI works in (the task's cwd). */
  cwd: string;
  /** HOME of the CLI's process: a private, writable dir; configure()'s files go under it. */
  home: string;
  /** Where the CLI's package is installed (the same path on the host and in the sandbox). */
  installDir: string;
  /** Wall-clock limit of the CLI's run, seconds (for CLIs that take their own limit). */
  timeoutS: number;
}

/** A file configure() asks for, relative to ctx.home. */
export interface HarnessFile {
  path: string;
  content: string;
  /** Unix permission bits; default 0o600 (config files hold the token). */
  mode?: number;
}

export interface HarnessSetup {
  files: HarnessFile[];
  /** Added to the sandbox's environment for the CLI's run (HOME and PATH are the runner's). */
  env: Record<string, string>;
}

export interface HarnessDefinition {
  /** The --harness name: lowercase, `-` between words ("claude-code"). */
  readonly name: string;
  /** The npm package and its pinned version: what `rllm harness install` installs. */
  readonly package: string;
  readonly version: string;
  /** The executable relative to the install dir, e.g. "node_modules/.bin/claude". */
  readonly bin: string;
  readonly dialect: HarnessDialect;
  configure(ctx: HarnessContext): HarnessSetup;
  command(ctx: HarnessContext): string[];
  finalMessage?(stdout: string): string | undefined;
}
