/**
 * The `sandbox` config section: which backend runs untrusted code, and the limits, network and pool
 * every sandbox of a run gets. One strict schema per backend (a discriminated union on `backend`),
 * as the training backends do, so a knob of another backend is an unknown key naming it. This
 * module holds zod and types only; the registry (`registry.ts`) imports implementations lazily.
 */
import { z } from "zod";
import type { SandboxBackend, SandboxCapabilities } from "./types.js";

/** A sandbox backend as the registry knows it: its config section and how to start it. */
export interface SandboxBackendDefinition<C extends { backend: string } = { backend: string }> {
  name: C["backend"];
  configSchema: z.ZodType<C>;
  /** What it enforces: the config's limits are checked against it before a run starts. */
  capabilities: SandboxCapabilities;
  /** Starts the backend; imports the implementation only now. */
  create(config: C): Promise<SandboxBackend>;
}

export const SandboxLimitsSchema = z.strictObject({
  memoryMb: z.number().positive().optional(),
  cpuSeconds: z.number().positive().optional(),
  pids: z.number().int().positive().optional(),
  diskMb: z.number().positive().optional(),
  fileMb: z.number().positive().optional(),
  openFiles: z.number().int().positive().optional(),
});

/** Keys every backend's section has. */
export const common = {
  /** Limits of every sandbox (missing keys: the protocol's DEFAULT_LIMITS). */
  limits: SandboxLimitsSchema.default({}),
  /** Network inside sandboxes (default off). */
  network: z.boolean().default(false),
  /** Sandboxes kept created and ready, for graders and agents running at once. */
  poolSize: z.number().int().min(0).max(256).default(2),
};

export const BwrapSandboxConfigSchema = z.strictObject({
  backend: z.literal("bwrap"),
  ...common,
  /** The bubblewrap program. */
  bwrap: z.string().min(1).default("bwrap"),
  /**
   * How limits are enforced: a cgroup per sandbox (memory and processes of the whole sandbox; needs
   * a writable cgroup hierarchy), rlimits per process, or cgroup where it can and rlimits elsewhere.
   */
  limitsBy: z.enum(["auto", "cgroup", "rlimit"]).default("auto"),
  /** Host directories sandboxes see read-only (a Python or Node installed outside /usr). */
  hostPaths: z.array(z.string().min(1)).default([]),
});
export type BwrapSandboxConfig = z.infer<typeof BwrapSandboxConfigSchema>;

/** bwrap enforces every limit, runs the host's tools (no image) and measures CPU per command. */
export const BWRAP_CAPABILITIES: SandboxCapabilities = {
  limits: ["memoryMb", "cpuSeconds", "pids", "diskMb", "fileMb", "openFiles"],
  network: true,
  hostPaths: true,
  image: false,
  cpuSeconds: true,
  links: true,
};
