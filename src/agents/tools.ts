/**
 * The built-in agent's tools, as OpenAI function tools whose calls run in the episode's sandbox:
 *
 *   bash {command}              one shell line (`bash -lc`, or `sh -c` with shell "sh"), under a
 *                               per-call timeout; the model sees the exit code and both streams
 *   read_file {path}            a file of the work dir, as UTF-8 text
 *   write_file {path, content}  a file of the work dir (parents made), replaced whole
 *   submit {answer}             ends the episode; the answer is what the grader scores
 *
 * Edge cases, decided once:
 * - A call the agent cannot run — an unknown tool, arguments that are not JSON, arguments that do
 *   not match the tool's schema — is an `invalid` outcome: its message goes back to the model as
 *   the tool's answer, and the agent counts it; it never throws.
 * - Commands start in `cwd` (the task environment's: the work dir, or a Harbor task's WORKDIR such
 *   as /app, a link into the work dir). A path is relative to `cwd`, or absolute under the work
 *   dir (`/work/a.py`) or under one of the sandbox's `links` (`/app/a.py`, /app → app: `app/a.py`);
 *   the sandbox refuses anything else (`..`, another absolute path) and a file that is not there:
 *   the refusal is the tool's answer (`failed`), not an error of the episode.
 * - A command that exits non-zero, times out or hits a limit is a normal answer (the exit code and
 *   the limit are in it). Only an exec that throws — a sandbox that has ended or was closed — is
 *   thrown on: the episode cannot go on without its sandbox.
 * - Output longer than `maxOutputChars` keeps its head and tail with a note of what was cut in
 *   between, per stream (so an error at the end of a long log still reaches the model).
 */
import { z } from "zod";
import type { Sandbox } from "../sandbox/types.js";
import { SandboxClosedError, SandboxError } from "../sandbox/types.js";
import type { ToolCall } from "../types/index.js";

export interface ToolContext {
  sandbox: Sandbox;
  /** Aborts a running command (the episode's deadline or the run's cancel). */
  signal: AbortSignal;
  /** Wall-clock seconds one command may run. */
  commandTimeoutS: number;
  /** Characters of a command's stdout (and of its stderr) or of a file the model is shown. */
  maxOutputChars: number;
  shell: "bash" | "sh";
  /** Absolute dir commands start in and paths are relative to; default the sandbox's work dir. */
  cwd?: string;
  /** The sandbox's links (absolute path → work dir path), for absolute paths under them. */
  links?: Readonly<Record<string, string>>;
}

/** What running one tool call gave. */
export type ToolOutcome =
  /** The tool ran; `content` is its answer to the model. */
  | { kind: "ok"; content: string }
  /** The tool ran and refused (no such file, a path outside the work dir); `content` says why. */
  | { kind: "failed"; content: string }
  /** The call could not be run (unknown tool, malformed or mismatched arguments). */
  | { kind: "invalid"; content: string }
  /** `submit`: the episode ends with `answer`. */
  | { kind: "submit"; content: string; answer: string };

interface ToolDefinition<A> {
  name: string;
  description: string;
  args: z.ZodType<A>;
  run(args: A, ctx: ToolContext): Promise<ToolOutcome>;
}

const define = <A>(t: ToolDefinition<A>): ToolDefinition<unknown> => t as ToolDefinition<unknown>;

const bash = define({
  name: "bash",
  description:
    "Run a shell command in the task's working directory and return its exit code, stdout and stderr. Each call starts a new shell; files persist between calls.",
  args: z.strictObject({ command: z.string().min(1).describe("The command line to run.") }),
  async run({ command }, ctx) {
    const argv = ctx.shell === "bash" ? ["bash", "-lc", command] : ["sh", "-c", command];
    const cwd = ctx.cwd === undefined ? undefined : workPathOf(ctx.cwd, ctx);
    const r = await ctx.sandbox.exec(argv, {
      timeoutS: ctx.commandTimeoutS,
      signal: ctx.signal,
      ...(cwd ? { cwd } : {}),
    });
    const stopped =
      r.limit === "timeout"
        ? `[the command was stopped: it ran past ${ctx.commandTimeoutS} s or the episode ended]\n`
        : r.limit
          ? `[the command was stopped by the sandbox's ${r.limit} limit]\n`
          : "";
    const status = r.exitCode !== null ? `exit code: ${r.exitCode}` : `killed by ${r.signal}`;
    return {
      kind: "ok",
      content:
        `${stopped}${status}\n` +
        `--- stdout ---\n${clip(r.stdout, ctx.maxOutputChars, r.stdoutTruncated)}\n` +
        `--- stderr ---\n${clip(r.stderr, ctx.maxOutputChars, r.stderrTruncated)}`,
    };
  },
});

const readFile = define({
  name: "read_file",
  description: "Read a text file of the working directory.",
  args: z.strictObject({
    path: z.string().min(1).describe("Relative to the working directory."),
  }),
  async run({ path }, ctx) {
    return transfer(async () => {
      const bytes = await ctx.sandbox.download(inWorkdir(path, ctx));
      return clip(new TextDecoder().decode(bytes), ctx.maxOutputChars, false);
    });
  },
});

const writeFile = define({
  name: "write_file",
  description:
    "Write a text file of the working directory (replacing it; parent directories are created).",
  args: z.strictObject({
    path: z.string().min(1).describe("Relative to the working directory."),
    content: z.string().describe("The whole new content of the file."),
  }),
  async run({ path, content }, ctx) {
    return transfer(async () => {
      await ctx.sandbox.upload([{ path: inWorkdir(path, ctx), content }]);
      return `wrote ${Buffer.byteLength(content)} bytes to ${path}`;
    });
  },
});

const submit = define({
  name: "submit",
  description: "Submit the final answer and end the task. Call it once, when you are done.",
  args: z.strictObject({ answer: z.string().describe("The final answer.") }),
  async run({ answer }) {
    return { kind: "submit", content: "submitted", answer };
  },
});

/** The tools in the order the model is shown them. */
export const TOOLS: readonly ToolDefinition<unknown>[] = [bash, readFile, writeFile, submit];
const byName = new Map(TOOLS.map((t) => [t.name, t]));

/** One entry of the `tools` field of a Chat Completions request. */
export interface ToolSpec {
  type: "function";
  function: { name: string; description?: string; parameters: Record<string, unknown> };
}

/** The `tools` field of a Chat Completions request. */
export function toolSpecs(): ToolSpec[] {
  return TOOLS.map((t) => {
    const { $schema: _, ...parameters } = z.toJSONSchema(t.args) as Record<string, unknown>;
    return { type: "function", function: { name: t.name, description: t.description, parameters } };
  });
}

/**
 * Runs one tool call of the model (see the header for what is an outcome and what throws).
 * `offered`: every tool name the model was shown (MCP tools too), for the unknown-tool answer.
 */
export async function runToolCall(
  call: ToolCall,
  ctx: ToolContext,
  offered: readonly string[] = TOOLS.map((t) => t.name),
): Promise<ToolOutcome> {
  const tool = byName.get(call.function.name);
  if (!tool) {
    return invalid(`unknown tool "${call.function.name}"; the tools are ${offered.join(", ")}`);
  }
  const json = parseArguments(call);
  if (!json.ok) return json.outcome;
  const parsed = tool.args.safeParse(json.value);
  if (!parsed.success) {
    const why = parsed.error.issues
      .map((i) => `${i.path.join(".") || "(arguments)"}: ${i.message}`)
      .join("; ");
    return invalid(`the arguments of ${tool.name} do not match its schema: ${why}`);
  }
  return tool.run(parsed.data, ctx);
}

/** A call's arguments as JSON (an empty string is `{}`), or the `invalid` answer saying why not. */
export function parseArguments(
  call: ToolCall,
): { ok: true; value: unknown } | { ok: false; outcome: ToolOutcome } {
  try {
    return { ok: true, value: JSON.parse(call.function.arguments || "{}") };
  } catch (err) {
    return {
      ok: false,
      outcome: invalid(
        `the arguments of ${call.function.name} are not valid JSON (${(err as Error).message}); send a JSON object`,
      ),
    };
  }
}

/** The answer to a call the agent cannot run. */
export function invalid(message: string): ToolOutcome {
  return { kind: "invalid", content: `error: ${message}` };
}

/** A file transfer: the sandbox's refusal is the tool's answer; a closed sandbox is thrown on. */
async function transfer(fn: () => Promise<string>): Promise<ToolOutcome> {
  try {
    return { kind: "ok", content: await fn() };
  } catch (err) {
    if (err instanceof SandboxClosedError || !(err instanceof SandboxError)) throw err;
    return { kind: "failed", content: `error: ${err.message}` };
  }
}

/** A model's path as the sandbox takes it: relative to the work dir (see the header). */
function inWorkdir(path: string, ctx: ToolContext): string {
  if (path.startsWith("/")) return workPathOf(path, ctx);
  const base = ctx.cwd === undefined ? "" : workPathOf(ctx.cwd, ctx);
  return base ? `${base}/${path}` : path;
}

/**
 * An absolute path under the work dir or one of the links, relative to the work dir ("" for the
 * work dir itself); any other path is returned as it is, for the sandbox to refuse.
 */
function workPathOf(path: string, ctx: ToolContext): string {
  const under = (root: string) => path === root || path.startsWith(`${root}/`);
  const root = ctx.sandbox.workdir.replace(/\/+$/, "");
  if (under(root)) return path.slice(root.length + 1);
  for (const [link, target] of Object.entries(ctx.links ?? {})) {
    if (under(link)) return `${target}${path.slice(link.length)}`;
  }
  return path;
}

/** `text` cut to its first and last `max / 2` characters, with a note of what was cut. */
export function clip(text: string, max: number, truncatedBefore: boolean): string {
  const more = truncatedBefore ? " (and the sandbox kept only part of the output)" : "";
  if (text.length <= max) return truncatedBefore ? `${text}\n[output truncated${more}]` : text;
  const half = Math.floor(max / 2);
  return `${text.slice(0, half)}\n[… ${text.length - 2 * half} characters cut${more} …]\n${text.slice(text.length - half)}`;
}

/** The tools of an episode: what the model is shown, and how a call of one of them runs. */
export interface Toolbox {
  readonly specs: readonly ToolSpec[];
  run(call: ToolCall, ctx: ToolContext): Promise<ToolOutcome>;
}

/** The built-in tools alone (schemas made once). */
export const builtinToolbox: Toolbox = {
  specs: toolSpecs(),
  run: (call, ctx) => runToolCall(call, ctx),
};
