export * from "./engine.js";
export * from "./episode.js";
export * from "./eval.js";
export * from "./gateway.js";
export * from "./progress.js";
