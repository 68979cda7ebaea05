export { BwrapSandboxConfigSchema, SandboxLimitsSchema } from "./config.js";
export { SandboxPool, type SandboxPoolOptions } from "./pool.js";
export {
  createSandboxBackend,
  SANDBOX_BACKENDS,
  type SandboxBackendDefinition,
  type SandboxConfig,
  SandboxConfigSchema,
  sandboxBackendNames,
} from "./registry.js";
export {
  closeSharedSandboxes,
  configureSandboxes,
  type SandboxSource,
  sharedSandboxes,
  sharedSandboxPool,
} from "./shared.js";
export { checkLinks, resolveSpec, workPath } from "./spec.js";
export * from "./types.js";
