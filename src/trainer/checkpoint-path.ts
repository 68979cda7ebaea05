/**
 * What `--checkpoint PATH` means (rllm train, eval, sft and model serve): a user passes whichever
 * directory of a run they have at hand, and gets the backend checkpoint inside it.
 *
 *   PATH/rllm.json                  a backend checkpoint (what save() writes): PATH itself
 *   PATH/backend/rllm.json          a training step, RUN/checkpoints/step-N: its backend/
 *   PATH/checkpoints/latest.json    a training run: its latest complete checkpoint's backend/
 *   PATH/model/rllm.json            an `rllm sft` run: its final model
 *
 * Anything else is an error that names what was looked for.
 */
import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { CheckpointError, MANIFEST_FILE } from "../backends/checkpoint/checkpoint.js";
import { SFT_MODEL_DIR } from "./sft.js";
import { checkpointsDir, readLatest, STEP_BACKEND_DIR } from "./state.js";

/** The backend checkpoint directory that `path` names (see the forms above). */
export function resolveCheckpoint(path: string): string {
  const dir = resolve(path);
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new CheckpointError(
      `no checkpoint at ${dir}: the directory does not exist; pass a checkpoint, a training step (RUN/checkpoints/step-N) or a run directory`,
    );
  const isCheckpoint = (d: string) => existsSync(join(d, MANIFEST_FILE));
  if (isCheckpoint(dir)) return dir;
  const step = join(dir, STEP_BACKEND_DIR);
  if (isCheckpoint(step)) return step;
  if (existsSync(checkpointsDir(dir))) {
    const latest = readLatest(dir);
    if (latest) return join(latest.dir, STEP_BACKEND_DIR);
  }
  const sft = join(dir, SFT_MODEL_DIR);
  if (isCheckpoint(sft)) return sft;
  const runHint = existsSync(checkpointsDir(dir))
    ? `; it looks like a run with no complete checkpoint yet (${join("checkpoints", "latest.json")} is missing)`
    : "";
  throw new CheckpointError(
    `${dir} is not an rllm checkpoint, a training step or a run directory: looked for ${MANIFEST_FILE}, ${join(STEP_BACKEND_DIR, MANIFEST_FILE)}, ${join("checkpoints", "latest.json")} and ${join(SFT_MODEL_DIR, MANIFEST_FILE)} in it${runHint}`,
  );
}
