export * from "./chat-agent.js";
export * from "./episode.js";
export * from "./load.js";
export * from "./process.js";
export * from "./rollout.js";
