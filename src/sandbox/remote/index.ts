/**
 * The daytona sandbox backend's registry entry: its config section and how to start it (the
 * implementation is imported when a run uses it).
 */
import type { SandboxBackendDefinition } from "../config.js";
import {
  DAYTONA_CAPABILITIES,
  type DaytonaSandboxConfig,
  DaytonaSandboxConfigSchema,
} from "./config.js";

export {
  DAYTONA_CAPABILITIES,
  type DaytonaSandboxConfig,
  DaytonaSandboxConfigSchema,
} from "./config.js";

export const daytonaSandbox: SandboxBackendDefinition<DaytonaSandboxConfig> = {
  name: "daytona",
  configSchema: DaytonaSandboxConfigSchema,
  capabilities: DAYTONA_CAPABILITIES,
  async create(config) {
    const { DaytonaBackend } = await import("./daytona.js");
    return DaytonaBackend.start(config);
  },
};
