/**
 * The docker sandbox backend's registry entry: its config section and how to start it (the
 * implementation is imported when a run uses it).
 */
import type { SandboxBackend } from "../types.js";
import { type DockerSandboxConfig, DockerSandboxConfigSchema } from "./config.js";

export { type DockerSandboxConfig, DockerSandboxConfigSchema } from "./config.js";

export const dockerSandbox = {
  name: "docker" as const,
  configSchema: DockerSandboxConfigSchema,
  async create(config: DockerSandboxConfig): Promise<SandboxBackend> {
    const { DockerBackend } = await import("./backend.js");
    return DockerBackend.start(config);
  },
};
