export * from "./backend.js";
export * from "./load.js";
export * from "./provider.js";
export * from "./schema.js";
export * from "./trainer.js";
