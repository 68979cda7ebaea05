export * from "./chat.js";
export * from "./core.js";
export * from "./harbor.js";
export * from "./tokens.js";
