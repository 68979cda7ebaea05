/**
 * What every backend checks before it creates a sandbox, and the path rule of upload/download:
 * one place, so that the backends cannot disagree.
 */
import { constants as osConstants } from "node:os";
import {
  DEFAULT_EXEC_TIMEOUT_S,
  DEFAULT_LIMITS,
  DEFAULT_MAX_OUTPUT_BYTES,
  type ExecOptions,
  type ExecResult,
  MAX_EXEC_TIMEOUT_S,
  type SandboxCapabilities,
  SandboxError,
  type SandboxLimitName,
  type SandboxLimits,
  type SandboxSpec,
} from "./types.js";

/**
 * The spec's limits over the defaults. A limit the caller set that `backend` does not enforce, an
 * image where it runs host tools (or host paths where it runs images), network where it has none:
 * each is an error naming the knob, never a silent no-op.
 */
export function resolveSpec(
  backend: string,
  capabilities: SandboxCapabilities,
  spec: SandboxSpec = {},
): SandboxLimits {
  const asked = spec.limits ?? {};
  for (const [key, value] of Object.entries(asked)) {
    if (!Object.hasOwn(DEFAULT_LIMITS, key)) {
      throw new SandboxError(
        `unknown sandbox limit "${key}"; the limits are ${Object.keys(DEFAULT_LIMITS).join(", ")}`,
      );
    }
    if (value === undefined) continue;
    if (!Number.isFinite(value) || value <= 0) {
      throw new SandboxError(`sandbox limit ${key} must be a positive number, got ${value}`);
    }
    if (!capabilities.limits.includes(key as keyof SandboxLimits)) {
      throw new SandboxError(
        `the ${backend} sandbox backend cannot enforce limit ${key}; it enforces ${capabilities.limits.join(", ")}. Remove ${key} or use another backend.`,
      );
    }
  }
  if (spec.image !== undefined && !capabilities.image) {
    throw new SandboxError(
      `the ${backend} sandbox backend runs the host's tools and takes no image (got image "${spec.image}"); remove it or use the docker backend`,
    );
  }
  if (spec.hostPaths?.length && !capabilities.hostPaths) {
    throw new SandboxError(
      `the ${backend} sandbox backend cannot mount host paths (got ${spec.hostPaths.join(", ")}); put the tools in its image`,
    );
  }
  if (spec.network && !capabilities.network) {
    throw new SandboxError(`the ${backend} sandbox backend cannot give a sandbox network access`);
  }
  if (spec.links && Object.keys(spec.links).length && !capabilities.links) {
    throw new SandboxError(
      `the ${backend} sandbox backend cannot make path links (asked for ${Object.keys(spec.links).join(", ")}); use the bwrap backend`,
    );
  }
  const limits = { ...DEFAULT_LIMITS };
  for (const key of Object.keys(DEFAULT_LIMITS) as (keyof SandboxLimits)[]) {
    const value = asked[key];
    if (value !== undefined) limits[key] = value;
  }
  return limits;
}

/**
 * A path relative to the work dir, checked: not empty, not absolute, no `..`, `.` or empty
 * component, no NUL. Returns it with its components joined by `/`.
 */
export function workPath(path: string): string {
  if (typeof path !== "string" || path.length === 0) {
    throw new SandboxError("a sandbox file path must be a non-empty string");
  }
  if (path.includes("\0"))
    throw new SandboxError(`sandbox file path ${JSON.stringify(path)} contains NUL`);
  if (path.startsWith("/")) {
    throw new SandboxError(
      `sandbox file path ${JSON.stringify(path)} is absolute; give it relative to the work dir`,
    );
  }
  const parts = path.split("/");
  if (parts.some((p) => p === ".." || p === "." || p === "")) {
    throw new SandboxError(
      `sandbox file path ${JSON.stringify(path)} has a "..", "." or empty component; give a plain relative path`,
    );
  }
  return parts.join("/");
}

/**
 * spec.links checked: each path absolute, without `.`, `..` or empty components, not `/`, not at,
 * under or above a path in `reserved` (the backend's own mounts: the work dir, /tmp, the system
 * dirs) and not under another link; each target a workPath. Returns the links sorted by path.
 */
export function checkLinks(
  links: Record<string, string> | undefined,
  reserved: readonly string[],
): [path: string, target: string][] {
  if (links === undefined) return [];
  if (typeof links !== "object" || links === null || Array.isArray(links)) {
    throw new SandboxError("sandbox links must be an object of absolute path → work dir path");
  }
  const entries = Object.entries(links).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const within = (a: string, b: string) => a === b || a.startsWith(`${b}/`);
  for (const [path, target] of entries) {
    const parts = path.split("/").slice(1);
    if (
      !path.startsWith("/") ||
      path === "/" ||
      parts.some((p) => p === "" || p === "." || p === "..") ||
      path.includes("\0")
    ) {
      throw new SandboxError(
        `sandbox link ${JSON.stringify(path)} must be an absolute path without ".", ".." or empty components (e.g. "/app")`,
      );
    }
    const clash = reserved.find((r) => within(path, r) || within(r, path));
    if (clash) {
      throw new SandboxError(
        `sandbox link ${path} would shadow or sit inside the sandbox's own ${clash}; pick another path`,
      );
    }
    const outer = entries.find(([other]) => other !== path && within(path, other));
    if (outer)
      throw new SandboxError(`sandbox link ${path} is inside link ${outer[0]}; give only one`);
    if (typeof target !== "string") {
      throw new SandboxError(
        `sandbox link ${path}: its target must be a path relative to the work dir`,
      );
    }
    try {
      workPath(target);
    } catch (error) {
      throw new SandboxError(`sandbox link ${path}: ${(error as Error).message}`);
    }
  }
  return entries.map(([path, target]) => [path, workPath(target)]);
}

/** Bytes of a file's content. */
export function contentBytes(content: Uint8Array | string): Uint8Array {
  return typeof content === "string" ? new TextEncoder().encode(content) : content;
}

/** The standard signals by number (1..31), for exit statuses a shell or Docker reports as 128 + n. */
const SIGNALS = new Map(
  Object.entries(osConstants.signals)
    .filter(([, n]) => n >= 1 && n <= 31)
    .map(([name, n]) => [n, name] as const),
);

/**
 * An exit status as the protocol reports it. Shells and Docker report a process killed by signal
 * n (1..31) as status 128 + n; so is it read here, by every backend: a program that itself exits
 * with 129..159 reads as killed by that signal (rare, and no backend can tell the two apart).
 */
export function statusOf(code: number): { exitCode: number | null; signal: string | null } {
  const signal = code > 128 ? SIGNALS.get(code - 128) : undefined;
  return signal ? { exitCode: null, signal } : { exitCode: code, signal: null };
}

/** An exec's argv and options checked, with the protocol's defaults filled in. */
export function checkExec(
  command: unknown,
  o: ExecOptions,
): { timeoutS: number; maxOutputBytes: number } {
  if (
    !Array.isArray(command) ||
    command.length === 0 ||
    command.some((a) => typeof a !== "string")
  ) {
    throw new SandboxError(
      'exec needs a command: a non-empty array of strings (argv; ["sh", "-c", line] for a shell line)',
    );
  }
  const timeoutS = o.timeoutS ?? DEFAULT_EXEC_TIMEOUT_S;
  if (!(typeof timeoutS === "number" && timeoutS > 0 && timeoutS <= MAX_EXEC_TIMEOUT_S)) {
    throw new SandboxError(
      `exec timeoutS must be a positive number of seconds up to ${MAX_EXEC_TIMEOUT_S} (24.8 days), got ${timeoutS}`,
    );
  }
  const maxOutputBytes = o.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  if (!(Number.isInteger(maxOutputBytes) && maxOutputBytes >= 0)) {
    throw new SandboxError(`exec maxOutputBytes must be an integer ≥ 0, got ${maxOutputBytes}`);
  }
  return { timeoutS, maxOutputBytes };
}

/**
 * The limit that stopped a command that failed (exit code ≠ 0 or a signal; a command that
 * succeeded was stopped by nothing). In order:
 * - `known`: what the backend itself saw (a cgroup's OOM or fork-refusal counter, Docker's
 *   OOMKilled);
 * - SIGXCPU, or SIGKILL after cpuLimit CPU seconds: RLIMIT_CPU ("cpu"); SIGXFSZ: RLIMIT_FSIZE
 *   ("disk");
 * - the messages the C library, shells, Python and Node print when an allocation ("memory"), a
 *   write ("disk") or a fork ("pids") is refused.
 * Every backend calls this one function, so the same program's failure names the same limit.
 */
export function attributeLimit(end: {
  exitCode: number | null;
  signal: string | null;
  stderr: string;
  cpuSeconds?: number | null;
  cpuLimit?: number;
  known?: SandboxLimitName | null;
}): SandboxLimitName | null {
  if (end.exitCode === 0 && end.signal === null) return null;
  if (end.known) return end.known;
  if (end.signal === "SIGXCPU") return "cpu";
  if (end.signal === "SIGXFSZ") return "disk";
  if (
    end.signal === "SIGKILL" &&
    end.cpuSeconds != null &&
    end.cpuLimit !== undefined &&
    end.cpuSeconds >= end.cpuLimit
  ) {
    return "cpu";
  }
  const tail = end.stderr.slice(-4000);
  if (
    /MemoryError|Cannot allocate memory|std::bad_alloc|heap out of memory|out of memory/i.test(tail)
  ) {
    return "memory";
  }
  if (/No space left on device|File too large|Disk quota exceeded/.test(tail)) return "disk";
  if (
    /\b(Cannot|can't) fork\b|fork: retry|BlockingIOError/i.test(tail) ||
    (/fork/i.test(tail) && /Resource temporarily unavailable/.test(tail))
  ) {
    return "pids";
  }
  return null;
}

/**
 * The ExecResult of a command that has ended, the same way on every backend: the backend's own
 * stop (timeout, output) names the limit first, else attributeLimit; a sandbox that ended under
 * the command adds a line saying why to stderr.
 */
export function execResult(
  out: OutputCollector,
  status: { exitCode: number | null; signal: string | null },
  end: {
    started: number;
    stop: SandboxLimitName | null;
    timedOut: boolean;
    /** Why the sandbox ended under the command, if it did. */
    endedBecause?: string | null;
    cpuSeconds?: number | null;
    cpuLimit?: number;
    known?: SandboxLimitName | null;
  },
): ExecResult {
  const stderr =
    out.text(2) +
    (end.endedBecause ? `\n[rllm sandbox: the sandbox ended: ${end.endedBecause}]` : "");
  const cpuSeconds = end.cpuSeconds ?? null;
  return {
    ...status,
    stdout: out.text(1),
    stderr,
    stdoutTruncated: out.truncated(1),
    stderrTruncated: out.truncated(2),
    timedOut: end.timedOut,
    limit:
      end.stop ??
      attributeLimit({ ...status, stderr, cpuSeconds, cpuLimit: end.cpuLimit, known: end.known }),
    wallSeconds: (performance.now() - end.started) / 1000,
    cpuSeconds,
  };
}

/**
 * stdout and stderr of one command: each kept up to `max` bytes, every chunk passed on to the
 * stream callbacks first. add() says when a stream has just gone past `max` (the caller stops the
 * command, once).
 */
export class OutputCollector {
  private readonly kept: Record<1 | 2, Buffer[]> = { 1: [], 2: [] };
  private readonly sizes: Record<1 | 2, number> = { 1: 0, 2: 0 };
  private readonly over: Record<1 | 2, boolean> = { 1: false, 2: false };

  constructor(
    private readonly max: number,
    private readonly onStdout?: (chunk: Uint8Array) => void,
    private readonly onStderr?: (chunk: Uint8Array) => void,
  ) {}

  add(fd: 1 | 2, chunk: Uint8Array): boolean {
    (fd === 1 ? this.onStdout : this.onStderr)?.(chunk);
    const room = this.max - this.sizes[fd];
    if (chunk.length <= room) {
      this.kept[fd].push(Buffer.from(chunk));
      this.sizes[fd] += chunk.length;
      return false;
    }
    if (room > 0) this.kept[fd].push(Buffer.from(chunk.subarray(0, room)));
    this.sizes[fd] = this.max;
    const first = !this.over[fd];
    this.over[fd] = true;
    return first;
  }

  bytes(fd: 1 | 2): Buffer {
    return Buffer.concat(this.kept[fd]);
  }

  text(fd: 1 | 2): string {
    return this.bytes(fd).toString("utf8");
  }

  truncated(fd: 1 | 2): boolean {
    return this.over[fd];
  }
}
