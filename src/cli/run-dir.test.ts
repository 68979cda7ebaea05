import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { defaultRunDir, runStamp } from "./run-dir.js";

test("run directories are named runs/<command>/<name>-YYYYMMDD-HHMMSS (UTC)", () => {
  const t = new Date("2025-03-04T05:06:07.890Z");
  assert.equal(runStamp(t), "20250304-050607");
  assert.equal(
    defaultRunDir("train", "countdown", runStamp(t)),
    join("runs", "train", "countdown-20250304-050607"),
  );
  assert.match(runStamp(), /^\d{8}-\d{6}$/);
});

test("a name with path or other characters (harbor:DIR) is one safe path component", () => {
  assert.equal(
    defaultRunDir("eval", "harbor:../tasks/my set", "20250304-050607"),
    join("runs", "eval", "harbor_.._tasks_my_set-20250304-050607"),
  );
});
