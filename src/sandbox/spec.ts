/**
 * What every backend checks before it creates a sandbox, and the path rule of upload/download:
 * one place, so that the backends cannot disagree.
 */
import {
  DEFAULT_LIMITS,
  type SandboxCapabilities,
  SandboxError,
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
