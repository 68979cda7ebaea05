/**
 * The sandbox backends by name. Each hands the registry its strict config section and how to start
 * it; the implementation is imported when a run needs it. The config's `sandbox` section, the
 * CLI's `--sandbox` choices and the backend graders and agents get all come from this list.
 */
import { z } from "zod";
import {
  BWRAP_CAPABILITIES,
  type BwrapSandboxConfig,
  BwrapSandboxConfigSchema,
  type SandboxBackendDefinition,
} from "./config.js";
import { dockerSandbox } from "./docker/index.js";
import { daytonaSandbox } from "./remote/index.js";
import { resolveSpec } from "./spec.js";
import type { SandboxBackend } from "./types.js";

export type { SandboxBackendDefinition } from "./config.js";

const bwrapSandbox: SandboxBackendDefinition<BwrapSandboxConfig> = {
  name: "bwrap",
  configSchema: BwrapSandboxConfigSchema,
  capabilities: BWRAP_CAPABILITIES,
  async create(config) {
    const { BwrapBackend } = await import("./bwrap.js");
    return BwrapBackend.start(config);
  },
};

/** The backends; the first is the default (`sandbox.backend` omitted). */
export const SANDBOX_BACKENDS = [bwrapSandbox, dockerSandbox, daytonaSandbox] as const;

type SandboxConfigOf<D> = D extends SandboxBackendDefinition<infer C> ? C : never;
export type SandboxConfig = SandboxConfigOf<(typeof SANDBOX_BACKENDS)[number]>;

export const sandboxBackendNames = SANDBOX_BACKENDS.map((d) => d.name) as [string, ...string[]];

/** The `sandbox` section: one strict schema per backend, told apart by `backend` (default bwrap). */
export const SandboxConfigSchema: z.ZodType<SandboxConfig> = z.preprocess(
  (v) =>
    typeof v === "object" && v !== null && !Array.isArray(v) && !("backend" in v)
      ? { ...v, backend: sandboxBackendNames[0] }
      : v,
  z.discriminatedUnion(
    "backend",
    SANDBOX_BACKENDS.map((d) => d.configSchema) as unknown as [
      z.ZodObject<{ backend: z.ZodLiteral<string> }>,
    ],
    {
      error: (issue) =>
        issue.code === "invalid_union"
          ? `unknown sandbox backend ${JSON.stringify((issue.input as { backend?: unknown }).backend)}; the sandbox backends are ${sandboxBackendNames.join(", ")}`
          : undefined,
    },
  ),
) as unknown as z.ZodType<SandboxConfig>;

/** The definition `config` names. */
function definitionOf(config: SandboxConfig): SandboxBackendDefinition<SandboxConfig> {
  const definition = SANDBOX_BACKENDS.find((d) => d.name === config.backend);
  if (!definition) {
    throw new Error(
      `unknown sandbox backend "${config.backend}"; the sandbox backends are ${sandboxBackendNames.join(", ")}`,
    );
  }
  return definition as SandboxBackendDefinition<SandboxConfig>;
}

/**
 * The section's limits and network checked against what its backend enforces, without starting
 * it: a run refuses `sandbox.limits.pids` on a backend without a process limit before it begins.
 */
export function checkSandboxConfig(config: SandboxConfig): void {
  const { capabilities } = definitionOf(config);
  resolveSpec(config.backend, capabilities, { limits: config.limits, network: config.network });
}

/** Start the backend `config` names. */
export function createSandboxBackend(config: SandboxConfig): Promise<SandboxBackend> {
  checkSandboxConfig(config);
  return definitionOf(config).create(config);
}
