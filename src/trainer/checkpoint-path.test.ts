import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { resolveCheckpoint } from "./checkpoint-path.js";
import { TRAINER_STATE_FORMAT, writeCheckpoint } from "./state.js";

const root = mkdtempSync(join(tmpdir(), "rllm-checkpoint-path-"));
after(() => rmSync(root, { recursive: true, force: true }));

/** A directory holding a (stand-in) backend checkpoint manifest. */
function fakeCheckpoint(dir: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "rllm.json"), "{}");
  return dir;
}

/** A training run with checkpoints at `steps`, written as the trainer writes them. */
async function fakeRun(name: string, steps: number[]): Promise<string> {
  const run = join(root, name);
  for (const step of steps)
    await writeCheckpoint(
      run,
      {
        format: TRAINER_STATE_FORMAT,
        version: 1,
        step,
        weightVersion: step,
        loader: { frontier: 0, beyond: [] },
        seed: 0,
        elapsedSeconds: 0,
        savedAt: new Date(0).toISOString(),
      },
      async (dir) => void fakeCheckpoint(dir),
    );
  return run;
}

test("a backend checkpoint directory is itself", () => {
  const ck = fakeCheckpoint(join(root, "ck"));
  assert.equal(resolveCheckpoint(ck), ck);
});

test("a training step's directory gives its backend checkpoint", async () => {
  const run = await fakeRun("run-step", [2]);
  const step = join(run, "checkpoints", "step-2");
  assert.equal(resolveCheckpoint(step), join(step, "backend"));
});

test("a run directory gives its latest checkpoint's backend checkpoint", async () => {
  const run = await fakeRun("run-latest", [2, 4]);
  assert.equal(resolveCheckpoint(run), join(run, "checkpoints", "step-4", "backend"));
  const sft = join(root, "sft-run");
  fakeCheckpoint(join(sft, "model"));
  assert.equal(resolveCheckpoint(sft), join(sft, "model"), "an rllm sft run: its final model");
});

test("anything else is an error naming what was looked for", () => {
  assert.throws(
    () => resolveCheckpoint(join(root, "nope")),
    /no checkpoint at .*nope: the directory does not exist/,
  );
  const empty = join(root, "empty");
  mkdirSync(empty);
  assert.throws(
    () => resolveCheckpoint(empty),
    /empty is not an rllm checkpoint, a training step or a run directory: looked for rllm\.json, backend\/rllm\.json, checkpoints\/latest\.json and model\/rllm\.json in it$/,
  );
  const unfinished = join(root, "unfinished");
  mkdirSync(join(unfinished, "checkpoints"), { recursive: true });
  assert.throws(() => resolveCheckpoint(unfinished), /a run with no complete checkpoint yet/);
});
