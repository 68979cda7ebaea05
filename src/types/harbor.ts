/**
 * A Harbor task as rllm carries it in `task.data.harbor`: what `benchmarks/harbor.ts` reads from a
 * task directory and `agents/environment.ts` needs to prepare its sandbox and run its verifier.
 * Here, at the bottom, because both sides import it (benchmarks may not import agents).
 */
import { z } from "zod";

/** A file of the task: its bytes in base64 (exact, binary files included) and Unix mode. */
export const HarborFileSchema = z.strictObject({
  /** Relative (to the workdir for `files`, to tests/ for `tests`). */
  path: z.string().min(1),
  base64: z.string(),
  mode: z.number().int().min(0).max(0o7777),
});
export type HarborFile = z.infer<typeof HarborFileSchema>;

export const HarborTaskSchema = z.strictObject({
  /** The task directory on the host, for messages. */
  dir: z.string().min(1),
  /** Absolute: the Dockerfile's last WORKDIR, where the agent works (Harbor's convention: /app). */
  workdir: z.string().startsWith("/"),
  /** What the Dockerfile's COPY/ADD put under the workdir. */
  files: z.array(HarborFileSchema),
  /** The Dockerfile's ENV, then task.toml's [environment].env: every command's environment. */
  env: z.record(z.string(), z.string()),
  /** tests/ (test.sh among them), uploaded to /tests when the verifier runs. */
  tests: z.array(HarborFileSchema),
  verifier: z.strictObject({
    /** [verifier].timeout_sec (Harbor's default 600). */
    timeoutSec: z.number().positive(),
    /** [verifier].env, over `env`. */
    env: z.record(z.string(), z.string()),
  }),
  /** [agent].timeout_sec, when the task sets it (harnesses bound their run by it). */
  agentTimeoutSec: z.number().positive().optional(),
  /** [environment] memory_mb/memory and storage_mb/storage, when the task sets them. */
  limits: z.strictObject({
    memoryMb: z.number().positive().optional(),
    diskMb: z.number().positive().optional(),
  }),
});
export type HarborTask = z.infer<typeof HarborTaskSchema>;

/**
 * The fixed paths of a Harbor environment besides the workdir (Harbor's EnvironmentPaths): tests
 * are copied to /tests, the verifier writes /logs/verifier, agents may log to /logs/agent and
 * /logs/artifacts, the oracle's solution goes to /solution.
 */
export const HARBOR_PATHS = [
  "/tests",
  "/solution",
  "/logs/verifier",
  "/logs/agent",
  "/logs/artifacts",
] as const;
