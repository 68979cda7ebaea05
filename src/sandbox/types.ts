/**
 * The sandbox protocol: where untrusted code runs. One contract for every backend — bubblewrap on
 * this machine, a Docker daemon, a hosted sandbox service — so graders and tool-using agents are
 * written once:
 *
 *   backend.create(spec)   → a Sandbox: a private, writable work dir (`/work`), its limits, env,
 *                            network off unless asked
 *   sandbox.exec(cmd, o)   → one command: stdin in, stdout/stderr out (streamed to o.onStdout /
 *                            o.onStderr and kept up to o.maxOutputBytes), a wall-clock timeout
 *   sandbox.upload(files)  → files into the work dir; sandbox.download(path) → a file's bytes
 *   sandbox.close()        → every process of the sandbox killed (detached ones included) and its
 *                            files gone
 *
 * Edge cases, decided once for every backend:
 * - A command that cannot start (not found, not executable) is an ExecResult with exitCode 127 or
 *   126 and the shell's message on stderr, as `sh -c` reports it; never a throw. What the caller
 *   got wrong is a SandboxError, and nothing runs: a malformed argv or options (spec.ts's
 *   checkExec), a cwd with `..` or a leading `/`, a cwd that is not a directory of the work dir.
 * - An exit status 128 + n (n 1..31) reads as killed by signal n, on every backend (statusOf).
 * - An AbortSignal already aborted when exec is called kills the command at once (limit "timeout",
 *   timedOut false, signal SIGKILL).
 * - close() while a command runs resolves that exec as killed (exitCode null, signal SIGKILL,
 *   stderr ending with `[rllm sandbox: the sandbox ended: …]`), as does a sandbox that ends under
 *   it; other calls after close() throw SandboxClosedError.
 * - A limit that stops a command is named in `limit`: "timeout" (wall clock; also `timedOut`),
 *   "cpu" (RLIMIT_CPU's SIGXCPU/SIGKILL), "memory" (the memory limit's kill or allocation failure
 *   the backend can attribute), "output" (more than maxOutputBytes: the command is killed),
 *   "pids" (a fork refused), "disk" (a write refused with EFBIG/ENOSPC). null: it ended by itself.
 * - Output is bytes decoded as UTF-8 (invalid sequences replaced); `stdoutTruncated` says whether
 *   more was produced than kept.
 * - Paths given to upload/download are relative to the work dir, with no `..` component and no
 *   leading `/`; anything else is an error naming the path. Transfers move regular files of the
 *   work dir only: a path the sandboxed code made into a symlink out of it, a FIFO or a device is
 *   an error, never followed (and never on the host).
 * - Calls on a closed sandbox throw SandboxClosedError; close() twice is a no-op.
 */

/** The resource limits of a sandbox; each backend says which it enforces (`capabilities`). */
export interface SandboxLimits {
  /** Memory of all the sandbox's processes together (its files in the work dir included where the work dir is memory-backed), MiB. */
  memoryMb: number;
  /** CPU seconds per process (RLIMIT_CPU). */
  cpuSeconds: number;
  /** Processes and threads alive at once. */
  pids: number;
  /** Size of the writable dirs together (the work dir, /tmp, /dev/shm), MiB. */
  diskMb: number;
  /** Largest file a process may write, MiB. */
  fileMb: number;
  /** Open files per process. */
  openFiles: number;
}

export const DEFAULT_LIMITS: SandboxLimits = {
  memoryMb: 1024,
  cpuSeconds: 60,
  pids: 128,
  diskMb: 256,
  fileMb: 64,
  openFiles: 256,
};

/** An exec's wall-clock limit when it gives none, seconds. */
export const DEFAULT_EXEC_TIMEOUT_S = 30;
/** The longest exec timeout, seconds: node's timers hold at most 2^31 - 1 ms (longer fire at once). */
export const MAX_EXEC_TIMEOUT_S = 2147483;
/** Bytes of stdout (and of stderr) an exec keeps when it gives no maxOutputBytes. */
export const DEFAULT_MAX_OUTPUT_BYTES = 1 << 20;

export interface SandboxSpec {
  /** Limits; missing keys take DEFAULT_LIMITS. */
  limits?: Partial<SandboxLimits>;
  /** Network inside the sandbox; default off (a loopback of its own only). */
  network?: boolean;
  /** Environment every command sees (nothing of the host's leaks in; PATH, HOME, LANG are set). */
  env?: Record<string, string>;
  /**
   * Host directories that the sandbox sees read-only at the same path, beyond the system dirs
   * (a Python or Node installed outside /usr). Backends with an image ignore none: they refuse it.
   */
  hostPaths?: string[];
  /** A container image (docker, remote backends); bwrap refuses it (it runs the host's tools). */
  image?: string;
  /** Files the work dir starts with (a snapshot): restored before the sandbox is handed out. */
  snapshot?: SandboxSnapshot;
  /**
   * Absolute paths outside the work dir that lead into it: path → dir relative to the work dir
   * (`{"/app": "app", "/logs/verifier": "logs/verifier"}`), for tasks written against fixed paths
   * (Harbor's /app, /tests, /logs/verifier). Each dir is made in the work dir (again after every
   * reset) and the path is a symlink to it that commands cannot remove. spec.ts's checkLinks
   * decides what is a valid link; a backend that cannot make them refuses (`capabilities.links`).
   */
  links?: Record<string, string>;
}

/** A prepared work dir, reused by every attempt of a task: file path → bytes and mode. */
export interface SandboxSnapshot {
  files: SandboxFile[];
}

export interface SandboxFile {
  /** Relative to the work dir. */
  path: string;
  content: Uint8Array | string;
  /** Unix permission bits; default 0o644 (0o755 makes it executable). */
  mode?: number;
}

export interface ExecOptions {
  /** Bytes on the command's stdin; default none (stdin is /dev/null). */
  stdin?: Uint8Array | string;
  /** Wall-clock limit, seconds; default 30, at most MAX_EXEC_TIMEOUT_S. */
  timeoutS?: number;
  /** Working dir inside the sandbox, relative to the work dir; default the work dir. */
  cwd?: string;
  /** Extra environment for this command. */
  env?: Record<string, string>;
  /** Bytes of stdout (and separately of stderr) kept; more is cut and kills the command. Default 1 MiB. */
  maxOutputBytes?: number;
  /** Streaming: each chunk as it arrives (before truncation is applied to the result). */
  onStdout?: (chunk: Uint8Array) => void;
  onStderr?: (chunk: Uint8Array) => void;
  /** Aborting kills the command; the result then says limit "timeout" with timedOut false. */
  signal?: AbortSignal;
}

export type SandboxLimitName = "timeout" | "cpu" | "memory" | "output" | "pids" | "disk";

/** What `exec` returns and what `rllm sandbox run` prints. */
export interface ExecResult {
  /** The exit code; null when a signal ended it. */
  exitCode: number | null;
  /** The signal that ended it ("SIGKILL"), or null. */
  signal: string | null;
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  timedOut: boolean;
  /** The limit that stopped the command, or null (see the header). */
  limit: SandboxLimitName | null;
  wallSeconds: number;
  /** CPU seconds (user + system) of the command and the processes it waited for; null where the backend cannot tell. */
  cpuSeconds: number | null;
}

export interface Sandbox {
  readonly id: string;
  /** The absolute path of the work dir inside the sandbox. */
  readonly workdir: string;
  /** Run `command` (argv; use ["sh", "-c", line] for a shell line). */
  exec(command: string[], options?: ExecOptions): Promise<ExecResult>;
  upload(files: SandboxFile[]): Promise<void>;
  download(path: string): Promise<Uint8Array>;
  /** The work dir's regular files (relative paths, sorted), for a snapshot or a listing. */
  snapshot(): Promise<SandboxSnapshot>;
  /**
   * Back to the state create() gave: every process killed, the writable dirs emptied, the spec's
   * snapshot restored; so a pool hands it to the next user without making a new one. It throws
   * when it cannot vouch for that (e.g. a command left something behind that the backend cannot
   * undo); the sandbox is then still open, and the pool closes it and makes a new one. Optional:
   * a pool closes and recreates sandboxes of backends without it.
   */
  reset?(): Promise<void>;
  close(): Promise<void>;
}

export interface SandboxCapabilities {
  /** The limits this backend enforces; asking for another is a startup error naming it. */
  limits: (keyof SandboxLimits)[];
  network: boolean;
  hostPaths: boolean;
  image: boolean;
  /** Per-command CPU seconds in ExecResult. */
  cpuSeconds: boolean;
  /** Makes `spec.links`. */
  links: boolean;
}

export interface SandboxBackend {
  readonly name: string;
  readonly capabilities: SandboxCapabilities;
  create(spec?: SandboxSpec): Promise<Sandbox>;
  /** Release what the backend holds (cgroups, daemons' connections); sandboxes already closed. */
  close(): Promise<void>;
}

export class SandboxError extends Error {
  override name = "SandboxError";
}

export class SandboxClosedError extends SandboxError {
  override name = "SandboxClosedError";
  constructor(id: string) {
    super(`sandbox ${id} is closed`);
  }
}
