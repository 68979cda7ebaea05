/**
 * What every backend checks before it creates a sandbox, and the path rule of upload/download:
 * one place, so that the backends cannot disagree.
 */
import {
  DEFAULT_LIMITS,
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

/** Bytes of a file's content. */
export function contentBytes(content: Uint8Array | string): Uint8Array {
  return typeof content === "string" ? new TextEncoder().encode(content) : content;
}

/**
 * The limit that most likely stopped a command, from how it ended: SIGXCPU/SIGXFSZ are RLIMIT_CPU
 * and RLIMIT_FSIZE; a SIGKILL after cpuLimit CPU seconds is RLIMIT_CPU's hard limit; otherwise the
 * messages the C library, Python and Node print when an allocation, a write or a fork is refused.
 * Only a command that failed is attributed (exit code ≠ 0 or a signal).
 */
export function attributeLimit(end: {
  exitCode: number | null;
  signal: string | null;
  stderr: string;
  cpuSeconds: number | null;
  cpuLimit: number;
}): SandboxLimitName | null {
  if (end.exitCode === 0 && end.signal === null) return null;
  if (end.signal === "SIGXCPU") return "cpu";
  if (end.signal === "SIGXFSZ") return "disk";
  if (end.signal === "SIGKILL" && end.cpuSeconds !== null && end.cpuSeconds >= end.cpuLimit)
    return "cpu";
  const tail = end.stderr.slice(-4000);
  if (
    /MemoryError|Cannot allocate memory|std::bad_alloc|heap out of memory|out of memory/i.test(tail)
  ) {
    return "memory";
  }
  if (/No space left on device|File too large|Disk quota exceeded/.test(tail)) return "disk";
  if (
    /Resource temporarily unavailable|BlockingIOError|fork: retry|Cannot fork|can't fork/i.test(
      tail,
    )
  ) {
    return "pids";
  }
  return null;
}

/**
 * stdout and stderr of one command: each kept up to `max` bytes, every chunk passed on to the
 * stream callbacks first. add() says when a stream has gone past `max` (the caller stops the
 * command).
 */
export class OutputCollector {
  private readonly kept: Record<1 | 2, Buffer[]> = { 1: [], 2: [] };
  private readonly sizes: Record<1 | 2, number> = { 1: 0, 2: 0 };
  private readonly over: Record<1 | 2, boolean> = { 1: false, 2: false };

  constructor(
    private readonly max: number,
    private readonly onStdout?: (chunk: Uint8Array) => void,
    private readonly onStderr?: (chunk: Uint8Array) => void,
  ) {
    if (!(max >= 0)) throw new SandboxError(`maxOutputBytes must be ≥ 0, got ${max}`);
  }

  add(fd: 1 | 2, chunk: Buffer): boolean {
    (fd === 1 ? this.onStdout : this.onStderr)?.(chunk);
    const room = this.max - this.sizes[fd];
    if (chunk.length > room) {
      if (room > 0) this.kept[fd].push(chunk.subarray(0, room));
      this.sizes[fd] = this.max;
      this.over[fd] = true;
      return true;
    }
    this.kept[fd].push(chunk);
    this.sizes[fd] += chunk.length;
    return false;
  }

  text(fd: 1 | 2): string {
    return Buffer.concat(this.kept[fd]).toString("utf8");
  }

  truncated(fd: 1 | 2): boolean {
    return this.over[fd];
  }
}
