/**
 * The local backend's entry in the registry: its config section, what it computes, and how to
 * start it. The implementation (worker threads, wasm kernels) is imported only when a run starts.
 */
import { z } from "zod";
import type { BackendDefinition } from "../spi.js";
import { LOCAL_CAPABILITIES, LocalBackendConfigSchema } from "./config.js";

const LocalSectionSchema = LocalBackendConfigSchema.extend({ name: z.literal("local") });

export const localBackend: BackendDefinition<typeof LocalSectionSchema> = {
  name: "local",
  configSchema: LocalSectionSchema,
  capabilities: LOCAL_CAPABILITIES,
  async create({ name: _name, ...options }) {
    const { LocalBackend } = await import("./backend.js");
    return LocalBackend.create(options);
  },
  async serve(checkpoint, { sampler: sc }) {
    const [{ loadLocalCheckpoint }, { serveLocalWeights }] = await Promise.all([
      import("./weights.js"),
      import("./sampler.js"),
    ]);
    const ck = await loadLocalCheckpoint(checkpoint);
    return serveLocalWeights(ck.config, ck.params, ck.checkpoint.weightVersion, sc);
  },
};
