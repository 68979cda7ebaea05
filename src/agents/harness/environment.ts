/**
 * STAND-IN for src/agents/environment.ts (issue 18, contract 1; the harbor branch writes it):
 * the same TaskEnvironment shape, for plain tasks only — a sandbox from `sandboxes` made with the
 * caller's spec, `task.data.files` (relative path → text) uploaded into its work dir, the
 * instruction from `task.data.instruction ?? task.data.question`, cwd = the work dir, no verifier.
 * When the harbor branch lands, agent.ts imports openTaskEnvironment from ../environment.js and
 * this file goes.
 */
import { z } from "zod";
import type { SandboxSource } from "../../sandbox/shared.js";
import type { Sandbox, SandboxSpec } from "../../sandbox/types.js";
import type { Task } from "../../types/index.js";

export interface VerifierResult {
  reward: number;
  rewards?: Record<string, number>;
  exitCode: number | null;
  output: string;
  timedOut: boolean;
  seconds: number;
}

export interface TaskEnvironment {
  readonly sandbox: Sandbox;
  readonly cwd: string;
  readonly instruction: string;
  verify?(signal?: AbortSignal): Promise<VerifierResult>;
  release(): Promise<void>;
}

const TaskDataSchema = z.looseObject({
  instruction: z.string().optional(),
  question: z.string().optional(),
  files: z.record(z.string(), z.string()).optional(),
});

export async function openTaskEnvironment(
  task: Task,
  options: { sandboxes: SandboxSource; spec?: SandboxSpec; signal?: AbortSignal },
): Promise<TaskEnvironment> {
  const data = TaskDataSchema.safeParse(task.data);
  if (!data.success) {
    const why = data.error.issues.map((i) => `data.${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`task ${task.id}: ${why}`);
  }
  const instruction = data.data.instruction ?? data.data.question;
  if (instruction === undefined) {
    throw new Error(`task ${task.id}: neither data.instruction nor data.question is set`);
  }
  const sandbox = await options.sandboxes.acquire(options.spec);
  try {
    const files = Object.entries(data.data.files ?? {}).map(([path, content]) => ({
      path,
      content,
    }));
    if (files.length) await sandbox.upload(files);
  } catch (err) {
    await options.sandboxes.release(sandbox);
    throw new Error(`task ${task.id}: data.files: ${(err as Error).message}`, { cause: err });
  }
  return {
    sandbox,
    cwd: sandbox.workdir,
    instruction,
    release: () => options.sandboxes.release(sandbox),
  };
}
