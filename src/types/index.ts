export * from "./chat.js";
export * from "./core.js";
export * from "./errors.js";
export * from "./harbor.js";
export * from "./session-routes.js";
export * from "./tokens.js";
