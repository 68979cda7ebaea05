import assert from "node:assert/strict";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { test } from "node:test";
import { ownedTempDir, sweepOwnedTempDirs } from "./owned-dirs.js";

test("the sweep removes the dirs of dead processes only, and only under its prefix", () => {
  const prefix = `rllm-owned-test-${process.pid}-`;
  let dead = 4_000_000; // above pid_max's largest value: never a live process
  while (existsSync(`/proc/${dead}`)) dead++;
  const mine = ownedTempDir(prefix);
  assert.ok(basename(mine).startsWith(`${prefix}${process.pid}-`));
  const orphan = join(tmpdir(), `${prefix}${dead}-abc123`);
  const other = join(tmpdir(), `rllm-owned-other-${dead}-abc123`);
  const unnamed = join(tmpdir(), `${prefix}not-a-pid`);
  for (const d of [orphan, other, unnamed]) mkdirSync(d, { recursive: true });
  try {
    sweepOwnedTempDirs(prefix);
    assert.equal(existsSync(orphan), false, "a dead owner's dir is removed");
    assert.equal(existsSync(mine), true, "this process's dir stays");
    assert.equal(existsSync(other), true, "another prefix is not touched");
    assert.equal(existsSync(unnamed), true, "a name without an owner pid is not touched");
  } finally {
    for (const d of [mine, orphan, other, unnamed]) rmSync(d, { recursive: true, force: true });
  }
});
