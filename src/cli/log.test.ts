import assert from "node:assert/strict";
import { test } from "node:test";
import { createLog } from "./log.js";

test("a log writes the lines at or above its level", () => {
  const lines: string[] = [];
  const write = (l: string) => lines.push(l);
  for (const level of ["debug", "info", "warn", "error"] as const) {
    const log = createLog({ level, write });
    log.debug(`${level}:debug`);
    log.info(`${level}:info`);
    log.warn(`${level}:warn`);
    log.error(`${level}:error`);
  }
  assert.deepEqual(lines, [
    "debug:debug",
    "debug:info",
    "debug:warn",
    "debug:error",
    "info:info",
    "info:warn",
    "info:error",
    "warn:warn",
    "warn:error",
    "error:error",
  ]);
});
