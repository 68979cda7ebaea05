/**
 * The torch backend's entry in the registry: its config section, what it computes, and how to
 * start it. The implementation (a Python worker per model, the sampler's front end) is imported
 * only when a run starts or a checkpoint is served.
 */
import { z } from "zod";
import type { BackendDefinition } from "../spi.js";
import { TORCH_CAPABILITIES, TorchBackendConfigSchema } from "./config.js";

const TorchSectionSchema = TorchBackendConfigSchema.extend({ name: z.literal("torch") });

export const torchBackend: BackendDefinition<typeof TorchSectionSchema> = {
  name: "torch",
  configSchema: TorchSectionSchema,
  capabilities: TORCH_CAPABILITIES,
  async create({ name: _name, ...config }, ctx) {
    const { TorchBackend } = await import("./backend.js");
    return TorchBackend.create(config, ctx);
  },
  async serve(checkpoint, { name: _name, ...config }, ctx) {
    const { serveTorchCheckpoint } = await import("./serve.js");
    return serveTorchCheckpoint(checkpoint, config, ctx);
  },
};
