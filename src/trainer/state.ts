/**
 * The trainer's checkpoint state and the file operations under a run directory (run-dir.ts lays
 * the directory out): an atomic checkpoint write, the latest checkpoint, the partial checkpoints
 * a kill left.
 *
 * A checkpoint directory is built under a temporary name and renamed into place, and latest.json
 * is replaced atomically after it, so a kill at any moment leaves the previous checkpoint intact.
 */
import { existsSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeJsonAtomic } from "../engine/eval.js";
import type { LoaderState } from "./loader.js";

export const TRAINER_STATE_FORMAT = "rllm-trainer-state";

export interface TrainerState {
  format: typeof TRAINER_STATE_FORMAT;
  version: 1;
  /** Steps completed. */
  step: number;
  weightVersion: number;
  loader: LoaderState;
  /** Ids of the tasks whose last trained group was settled (trainer.skipSettled); absent: none. */
  settled?: string[];
  /** Seed of the run; every random choice of step s derives from (seed, s). */
  seed: number;
  /** Seconds of training before this checkpoint (across resumes). */
  elapsedSeconds: number;
  savedAt: string;
}

export interface Latest {
  step: number;
  dir: string;
}

/** The sub-directory of a training step (checkpoints/step-N) that holds the backend's checkpoint. */
export const STEP_BACKEND_DIR = "backend";

export function checkpointsDir(output: string): string {
  return join(output, "checkpoints");
}

/** Writes checkpoint step-N: `saveBackend(dir)` fills DIR/backend, then trainer.json; atomic. */
export async function writeCheckpoint(
  output: string,
  state: TrainerState,
  saveBackend: (dir: string) => Promise<void>,
): Promise<string> {
  const root = checkpointsDir(output);
  const name = `step-${state.step}`;
  const final = join(root, name);
  const tmp = join(root, `.${name}.tmp-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  await saveBackend(join(tmp, STEP_BACKEND_DIR));
  writeJsonAtomic(join(tmp, "trainer.json"), state);
  rmSync(final, { recursive: true, force: true });
  renameSync(tmp, final);
  writeJsonAtomic(join(root, "latest.json"), { step: state.step, dir: name } satisfies Latest);
  return final;
}

/** The latest complete checkpoint of a run, or undefined when it has none. */
export function readLatest(output: string): { dir: string; state: TrainerState } | undefined {
  const root = checkpointsDir(output);
  const file = join(root, "latest.json");
  if (!existsSync(file)) return undefined;
  let latest: Latest;
  try {
    latest = JSON.parse(readFileSync(file, "utf8")) as Latest;
  } catch (e) {
    throw new Error(`${file} is not valid JSON (${(e as Error).message}); the run is damaged`);
  }
  const dir = join(root, latest.dir);
  const statePath = join(dir, "trainer.json");
  if (!existsSync(statePath))
    throw new Error(`${file} points at ${dir}, which has no trainer.json; the run is damaged`);
  const state = JSON.parse(readFileSync(statePath, "utf8")) as TrainerState;
  if (state.format !== TRAINER_STATE_FORMAT || state.version !== 1)
    throw new Error(`${statePath} is not an rllm trainer state (format ${state.format})`);
  return { dir, state };
}

/** Removes temporary checkpoint directories a killed run left behind. */
export function cleanPartialCheckpoints(output: string): void {
  const root = checkpointsDir(output);
  if (!existsSync(root)) return;
  for (const name of readdirSync(root))
    if (name.startsWith(".") && name.includes(".tmp-"))
      rmSync(join(root, name), { recursive: true, force: true });
}
