/**
 * Commands rllm runs in the foreground for the user (`rllm worker`'s torchrun, `rllm sampler
 * launch`'s server) and the shell line it prints for them.
 *
 * Decided here, once:
 *   - a word is quoted for a POSIX shell only when it needs it (single quotes; a quote inside as
 *     '\'' );
 *   - the command runs in a process group of its own with stdin closed: a terminal's Ctrl-C
 *     reaches rllm alone, which passes SIGINT, SIGTERM and SIGHUP on once (a server or torchrun
 *     stopping twice could cut its own cleanup short), and Node exiting sends it SIGTERM;
 *   - its exit code is rllm's, a death by signal N is 128 + N (as a shell reports it), and once it
 *     has exited (or failed to start) rllm stops listening for those signals.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { constants } from "node:os";

/** `s` as one word of a POSIX shell line. */
export function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`;
}

export interface ForegroundCommand {
  /** The program, then its arguments. */
  argv: string[];
  /** Its whole environment. */
  env: NodeJS.ProcessEnv;
}

export interface ForegroundOptions {
  /** Its stdout and stderr (default inherit; tests: ignore). */
  stdio?: "inherit" | "ignore";
  /** The error when the program is not found (default: "<program> was not found"). */
  notFound?: string;
}

/** The signals that reach rllm and are passed on to the command. */
const FORWARDED = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/**
 * Starts `cmd` in the foreground (see the header); `exited` is its exit code, or rejects when it
 * cannot start.
 */
export function runForeground(
  cmd: ForegroundCommand,
  options: ForegroundOptions = {},
): { child: ChildProcess; exited: Promise<number> } {
  const [program, ...args] = cmd.argv;
  if (!program) throw new Error("runForeground: an empty command");
  const stdio = options.stdio ?? "inherit";
  const child = spawn(program, args, {
    stdio: ["ignore", stdio, stdio],
    env: cmd.env,
    detached: true,
  });
  const forward = (sig: NodeJS.Signals) => child.kill(sig);
  const onExit = () => child.kill("SIGTERM"); // rllm going away stops it too
  for (const sig of FORWARDED) process.on(sig, forward);
  process.on("exit", onExit);
  const exited = new Promise<number>((ok, err) => {
    const done = () => {
      for (const sig of FORWARDED) process.off(sig, forward);
      process.off("exit", onExit);
    };
    child.once("error", (e: NodeJS.ErrnoException) => {
      done();
      err(e.code === "ENOENT" ? new Error(options.notFound ?? `${program} was not found`) : e);
    });
    child.once("exit", (code, signal) => {
      done();
      ok(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0));
    });
  });
  return { child, exited };
}
