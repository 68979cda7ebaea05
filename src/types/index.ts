export * from "./chat.js";
export * from "./core.js";
