export * from "./load.js";
export * from "./provider.js";
export * from "./schema.js";
