/**
 * The docker sandbox backend's registry entry: its config section and how to start it (the
 * implementation is imported when a run uses it).
 */
import type { SandboxBackendDefinition } from "../config.js";
import {
  DOCKER_CAPABILITIES,
  type DockerSandboxConfig,
  DockerSandboxConfigSchema,
} from "./config.js";

export { type DockerSandboxConfig, DockerSandboxConfigSchema } from "./config.js";

export const dockerSandbox: SandboxBackendDefinition<DockerSandboxConfig> = {
  name: "docker",
  configSchema: DockerSandboxConfigSchema,
  capabilities: DOCKER_CAPABILITIES,
  async create(config) {
    const { DockerBackend } = await import("./backend.js");
    return DockerBackend.start(config);
  },
};
