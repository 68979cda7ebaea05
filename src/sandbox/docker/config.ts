/**
 * The `sandbox` section of the docker backend: the keys every backend has (`../config.ts`'s
 * common keys: limits, network, poolSize) and how to reach the daemon and which
 * image sandboxes run.
 */
import { z } from "zod";
import { common } from "../config.js";
import type { SandboxCapabilities } from "../types.js";

/** `unix:///var/run/docker.sock` (DOCKER_HOST style) or a plain path: the socket's path. */
const SocketSchema = z
  .string()
  .min(1)
  .transform((s, ctx) => {
    const path = s.startsWith("unix://") ? s.slice("unix://".length) : s;
    if (!path.startsWith("/")) {
      ctx.addIssue({
        code: "custom",
        message: `sandbox.socket must be the Docker daemon's Unix socket, an absolute path or unix:///path (got "${s}"); tcp:// and ssh:// daemons are not supported`,
      });
      return z.NEVER;
    }
    return path;
  });

export const DockerSandboxConfigSchema = z.strictObject({
  backend: z.literal("docker"),
  ...common,
  /** The Docker Engine API's Unix socket: a path or `unix:///path` (as DOCKER_HOST writes it). */
  socket: SocketSchema.default("/var/run/docker.sock"),
  /** The image sandboxes run when a spec names none; it needs `sh`, `sleep`, `tar` and `cat`. */
  image: z.string().min(1).default("python:3.12-slim"),
  /** An image the daemon does not have: pulled ("missing") or an error naming it ("never"). */
  pull: z.enum(["missing", "never"]).default("missing"),
  /** The Engine API version every request names (`/v1.43/containers/...`). */
  apiVersion: z
    .string()
    .regex(/^v1\.\d+$/, 'sandbox.apiVersion is an Engine API version such as "v1.43"')
    .default("v1.43"),
});
export type DockerSandboxConfig = z.infer<typeof DockerSandboxConfigSchema>;

/** Every limit (each enforced by the kernel through HostConfig), images, no host paths. */
export const DOCKER_CAPABILITIES: SandboxCapabilities = {
  limits: ["memoryMb", "cpuSeconds", "pids", "diskMb", "fileMb", "openFiles"],
  network: true,
  hostPaths: false,
  image: true,
  cpuSeconds: false,
  /** no links: the container root is read-only (ReadonlyRootfs), so no symlink can be made outside /work and /tmp. */
  links: false,
};
