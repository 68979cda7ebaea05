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
    const [{ loadLocalCheckpoint }, { LocalSampler }] = await Promise.all([
      import("./weights.js"),
      import("./sampler.js"),
    ]);
    const ck = await loadLocalCheckpoint(checkpoint);
    const sampler = await LocalSampler.start({
      config: ck.config,
      params: ck.params,
      weightVersion: ck.checkpoint.weightVersion,
      modelName: sc.modelName,
      workers: sc.workers,
      maxBatch: sc.maxBatch,
      batchWindowMs: sc.batchWindowMs,
      host: sc.host,
      port: sc.port,
    });
    return {
      baseURL: sampler.baseURL,
      model: sampler.modelName,
      weightVersion: ck.checkpoint.weightVersion,
      kind: "vllm",
      close: () => sampler.close(),
    };
  },
};
