export * from "./chat-agent.js";
export * from "./process.js";
export * from "./rollout.js";
