/**
 * The task environment: where an agent that acts does its work. Every such agent — the tool agent,
 * every CLI harness — opens one per episode, so a task's files, its fixed paths and its verifier
 * work the same for all of them:
 *
 *   const env = await openTaskEnvironment(task, { sandboxes, spec, signal })
 *   try { … run the agent in env.sandbox, from env.cwd, on env.instruction …
 *         const result = await env.verify?.(signal) }      // → episode info.verifier
 *   finally { await env.release() }
 *
 * Two kinds of task:
 * - plain: `data.instruction` (or `question`) is the instruction; `data.files`, an optional object
 *   of relative path → text, is written into the work dir; cwd is the sandbox's work dir; no
 *   verifier. Without options.spec the sandbox is a warm one of the pool (the files are uploaded,
 *   not given as a snapshot: a spec of its own would make the pool create one on demand).
 * - Harbor (`data.harbor`, types/harbor.ts, read from a task dir by benchmarks/harbor.ts): the
 *   sandbox gets links from the task's WORKDIR (cwd, e.g. /app) and Harbor's fixed paths
 *   (HARBOR_PATHS: /tests, /logs/verifier, …) into its work dir, the Dockerfile's ENV and
 *   [environment].env, and the limits the task sets (memory → memoryMb, storage → diskMb; a
 *   backend that cannot hold one refuses it, naming it); the environment's files go under the
 *   workdir. `verify()` runs the task's verifier as Harbor's Verifier.verify does (harbor
 *   `src/harbor/verifier/verifier.py`, read at 15735640198/harbor@4e55c49): tests/ uploaded to
 *   /tests (test.sh made executable), `bash /tests/test.sh` run from the workdir with
 *   [verifier].env under [verifier].timeout_sec, its exit code ignored, its stdout and stderr to
 *   /logs/verifier/test-stdout.txt (so long output is kept up to the sandbox's fileMb, never a
 *   reason to stop it); then the reward from
 *   /logs/verifier/reward.json (an object; its numeric, non-boolean values are the rewards; without
 *   a `reward` key, reward.txt supplies it when present) else reward.txt (one number). The reward
 *   is `reward`, or the only value. Before the tests go in, every process the agent left running
 *   is killed (Harbor leaves them: a detached loop could rewrite reward.txt under test.sh) and
 *   /tests and /logs/verifier are emptied, so nothing the agent put there (a reward file, a
 *   conftest.py) counts; a workdir the agent removed is made again (empty), so test.sh still runs
 *   there and rewards what is left rather than failing.
 * A reward file missing, empty or unparseable (a reward.json value past a double's range included)
 * is a VerifierError naming the file (never reward 0);
 * so is a timeout of test.sh with no reward written. A malformed task is an Error naming the task
 * and the field; the sandbox is released before any error leaves openTaskEnvironment.
 */

import { z } from "zod";
import { type SandboxSource, sharedSandboxes } from "../sandbox/shared.js";
import {
  type Sandbox,
  SandboxError,
  type SandboxFile,
  type SandboxSpec,
} from "../sandbox/types.js";
import { HARBOR_PATHS, type HarborTask, HarborTaskSchema, type Task } from "../types/index.js";

export interface TaskEnvironment {
  readonly sandbox: Sandbox;
  /** Absolute dir the agent works in (Harbor: the Dockerfile's WORKDIR, e.g. /app; else sandbox.workdir). */
  readonly cwd: string;
  /** The task's instruction text (Harbor: instruction.md; else task.data.instruction ?? question). */
  readonly instruction: string;
  /** The sandbox's links (absolute path → work dir path), so tools can map a model's path. */
  readonly links: Readonly<Record<string, string>>;
  /** Seconds the task gives the agent (Harbor: [agent].timeout_sec), when it sets them. */
  readonly timeoutSec?: number;
  /** Runs the task's verifier in this sandbox after the agent (Harbor: tests/test.sh); absent when the task has none. */
  verify?(signal?: AbortSignal): Promise<VerifierResult>;
  release(): Promise<void>;
}

export interface VerifierResult {
  reward: number;
  /** Every numeric value of reward.json (or {reward} from reward.txt). */
  rewards?: Record<string, number>;
  /** test.sh's exit code (ignored for the reward, as Harbor does); null when a signal ended it. */
  exitCode: number | null;
  /** test.sh's stdout and stderr as they came (test-stdout.txt), clipped to VERIFIER_OUTPUT_CHARS (head and tail). */
  output: string;
  timedOut: boolean;
  seconds: number;
}

export interface OpenTaskEnvironmentOptions {
  /** Where the sandbox comes from (default: the process's shared pool). */
  sandboxes?: SandboxSource;
  /** Extra spec a harness needs (hostPaths for its install dir, network, env). */
  spec?: SandboxSpec;
  signal?: AbortSignal;
}

/** The verifier could not produce a reward (no reward file, an unparseable one). */
export class VerifierError extends Error {
  override name = "VerifierError";
}

/** Characters of test.sh's output a VerifierResult keeps. */
export const VERIFIER_OUTPUT_CHARS = 8000;

/** What an agent puts in its episode's info after verifying: the result, or the error as text. */
export type Verified = { verifier: VerifierResult } | { verifierError: string };

/**
 * Runs the environment's verifier for an agent that has finished: its result, or its failure as
 * `verifierError` (which the verifier evaluator reports); an abort of `signal` is thrown.
 */
export async function runVerifier(env: TaskEnvironment, signal: AbortSignal): Promise<Verified> {
  if (!env.verify) throw new Error("this task environment has no verifier");
  try {
    return { verifier: await env.verify(signal) };
  } catch (err) {
    if (signal.aborted) throw err;
    return { verifierError: err instanceof Error ? err.message : String(err) };
  }
}

/** What openTaskEnvironment reads of a plain task. */
const PlainDataSchema = z.looseObject({
  instruction: z.string().optional(),
  question: z.string().optional(),
  files: z.record(z.string(), z.string()).optional(),
});

export async function openTaskEnvironment(
  task: Task,
  options: OpenTaskEnvironmentOptions = {},
): Promise<TaskEnvironment> {
  const sandboxes = options.sandboxes ?? sharedSandboxes;
  const prepared =
    task.data.harbor !== undefined
      ? harborSetup(task, options.spec)
      : plainSetup(task, options.spec);
  options.signal?.throwIfAborted();
  const sandbox = await sandboxes.acquire(prepared.spec).catch((err: Error) => {
    throw new Error(`task ${task.id}: ${err.message}`, { cause: err });
  });
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    await sandboxes.release(sandbox);
  };
  try {
    if (prepared.files.length) {
      await sandbox.upload(prepared.files).catch((err: Error) => {
        throw new Error(`task ${task.id}: ${prepared.filesField}: ${err.message}`, { cause: err });
      });
    }
    options.signal?.throwIfAborted();
  } catch (err) {
    await release();
    throw err;
  }
  const harbor = prepared.harbor;
  // The sandbox's own processes (its init, a container's keep-alive), spared when the agent's end.
  const spared = harbor
    ? await sandboxPids(sandbox).catch(async (err: Error) => {
        await release();
        throw new Error(`task ${task.id}: ${err.message}`, { cause: err });
      })
    : [];
  return {
    sandbox,
    cwd: harbor ? harbor.workdir : sandbox.workdir,
    instruction: prepared.instruction,
    links: prepared.spec?.links ?? {},
    ...(harbor?.agentTimeoutSec !== undefined ? { timeoutSec: harbor.agentTimeoutSec } : {}),
    ...(harbor
      ? { verify: (signal?: AbortSignal) => verifyHarbor(sandbox, harbor, spared, signal) }
      : {}),
    release,
  };
}

interface Setup {
  instruction: string;
  spec: SandboxSpec | undefined;
  files: SandboxFile[];
  filesField: string;
  harbor?: HarborTask;
}

function plainSetup(task: Task, spec: SandboxSpec | undefined): Setup {
  const data = PlainDataSchema.safeParse(task.data);
  if (!data.success) {
    const why = data.error.issues.map((i) => `data.${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`task ${task.id}: ${why}`);
  }
  const instruction = data.data.instruction ?? data.data.question;
  if (instruction === undefined)
    throw new Error(`task ${task.id}: neither data.instruction nor data.question is set`);
  const files = Object.entries(data.data.files ?? {}).map(([path, content]) => ({ path, content }));
  return { instruction, spec, files, filesField: "data.files" };
}

/** A Harbor task's links: its workdir and Harbor's fixed paths, each to the same path in the work dir. */
export function harborLinks(workdir: string): Record<string, string> {
  return Object.fromEntries([workdir, ...HARBOR_PATHS].map((p) => [p, p.slice(1)]));
}

function harborSetup(task: Task, extra: SandboxSpec | undefined): Setup {
  const parsed = HarborTaskSchema.safeParse(task.data.harbor);
  if (!parsed.success) {
    const why = parsed.error.issues
      .map((i) => `data.harbor.${i.path.join(".")}: ${i.message}`)
      .join("; ");
    throw new Error(`task ${task.id}: ${why} (load Harbor tasks with harbor:DIR)`);
  }
  const harbor = parsed.data;
  if (typeof task.data.instruction !== "string")
    throw new Error(`task ${task.id}: a Harbor task needs data.instruction (its instruction.md)`);
  const dir = harbor.workdir.slice(1);
  return {
    instruction: task.data.instruction,
    spec: {
      ...extra,
      env: { ...harbor.env, ...extra?.env },
      limits: { ...harbor.limits, ...extra?.limits },
      links: { ...harborLinks(harbor.workdir), ...extra?.links },
    },
    files: harbor.files.map((f) => ({
      path: `${dir}/${f.path}`,
      content: fromBase64(f.base64),
      mode: f.mode,
    })),
    filesField: `data.harbor.files (the environment's files under ${harbor.workdir})`,
    harbor,
  };
}

/** Harbor's verifier in `sandbox` (see the header). */
async function verifyHarbor(
  sandbox: Sandbox,
  harbor: HarborTask,
  spared: string[],
  signal?: AbortSignal,
): Promise<VerifierResult> {
  const started = performance.now();
  await endAgentProcesses(sandbox, harbor.dir, spared, signal);
  // A fresh /tests and /logs/verifier: what the agent left there (a planted conftest.py, a reward
  // file) is not the verifier's.
  const fresh = [`${sandbox.workdir}/tests`, `${sandbox.workdir}/logs/verifier`];
  // The workdir made again if the agent removed it: test.sh runs there (and rewards what is left).
  const workdir = `${sandbox.workdir}${harbor.workdir}`;
  const clear = await sandbox.exec(
    ["sh", "-c", 'rm -rf -- "$@" && mkdir -p -- "$@" "$0"', workdir, ...fresh],
    { signal },
  );
  if (clear.exitCode !== 0)
    throw new VerifierError(
      `${harbor.dir}: cannot empty /tests and /logs/verifier: ${clear.stderr.trim()}`,
    );
  await sandbox.upload(
    harbor.tests.map((f) => ({
      path: `tests/${f.path}`,
      content: fromBase64(f.base64),
      mode: f.path === "test.sh" ? f.mode | 0o755 : f.mode,
    })),
  );
  // Its output goes to a file, as Harbor's does (an exec's output past its limit kills it).
  const run = await sandbox.exec(
    ["sh", "-c", 'exec bash /tests/test.sh > "$1" 2>&1', "sh", `${sandbox.workdir}/${STDOUT_FILE}`],
    {
      cwd: harbor.workdir.slice(1),
      env: harbor.verifier.env,
      timeoutS: harbor.verifier.timeoutSec,
      signal,
    },
  );
  const output = clipOutput(
    (await readOptional(sandbox, STDOUT_FILE).catch((e: Error) => `[${e.message}]`)) ?? "",
  );
  const how = run.timedOut
    ? `test.sh timed out after ${harbor.verifier.timeoutSec} s ([verifier].timeout_sec)`
    : `test.sh exited ${run.exitCode ?? run.signal}`;
  const rewards = await readRewards(sandbox, harbor.dir, how, output);
  return {
    reward: rewardOf(rewards, harbor.dir),
    rewards,
    exitCode: run.exitCode,
    output,
    timedOut: run.timedOut,
    seconds: (performance.now() - started) / 1000,
  };
}

/** The pids of the sandbox's processes but the listing's own (its shell and the exec's wrapper). */
const LIST_PIDS = `for d in /proc/[0-9]*; do p=\${d#/proc/}; [ "$p" = $$ ] || [ "$p" = $PPID ] || echo "$p"; done`;

/**
 * SIGKILL to every live process but pid 1, itself, its parent and the pids given, round after
 * round until a round finds none (zombies are dead: they write nothing); exits 1 naming what is
 * left after 500 rounds 10 ms apart (5 s). The pause matters: a SIGKILLed process still shows as
 * running until the kernel schedules its exit, which on a loaded machine outlasted 100 rounds
 * taken back to back.
 */
const KILL_OTHERS = `spare=" 1 $$ $PPID $* "; n=0
while :; do
  left=
  for d in /proc/[0-9]*; do
    p=\${d#/proc/}
    case $spare in *" $p "*) continue;; esac
    s=
    while IFS= read -r l; do case $l in State:*) s=$l; break;; esac; done 2>/dev/null < "$d/status"
    case $s in ""|*Z*|*X*) continue;; esac
    kill -9 "$p" 2>/dev/null; left="$left $p"
  done
  [ -z "$left" ] && exit 0
  n=$((n + 1)); [ $n -lt 500 ] || { echo "$left"; exit 1; }
  sleep 0.01
done`;

async function sandboxPids(sandbox: Sandbox): Promise<string[]> {
  const r = await sandbox.exec(["sh", "-c", LIST_PIDS], { timeoutS: 10 });
  if (r.exitCode !== 0) throw new Error(`cannot list the sandbox's processes: ${r.stderr.trim()}`);
  return r.stdout.split("\n").filter(Boolean);
}

/** Every process the agent left running killed (see the header); only test.sh writes the reward. */
async function endAgentProcesses(
  sandbox: Sandbox,
  dir: string,
  spared: string[],
  signal?: AbortSignal,
): Promise<void> {
  const r = await sandbox.exec(["sh", "-c", KILL_OTHERS, "sh", ...spared], {
    timeoutS: 30,
    signal,
  });
  if (r.exitCode !== 0)
    throw new VerifierError(
      `${dir}: the processes the agent left running could not be killed before the verifier (${r.stdout.trim() || r.stderr.trim() || `exit ${r.exitCode ?? r.signal}`})`,
    );
}

const JSON_FILE = "logs/verifier/reward.json";
const STDOUT_FILE = "logs/verifier/test-stdout.txt";
const TEXT_FILE = "logs/verifier/reward.txt";

/** reward.json, else reward.txt, as Harbor's Verifier reads them. */
async function readRewards(
  sandbox: Sandbox,
  dir: string,
  how: string,
  output: string,
): Promise<Record<string, number>> {
  const json = await readOptional(sandbox, JSON_FILE);
  const text = await readOptional(sandbox, TEXT_FILE);
  if (json !== undefined) {
    const rewards = parseRewardJson(json, dir);
    if (!("reward" in rewards) && text !== undefined) {
      try {
        rewards.reward = parseRewardText(text, dir);
      } catch {
        // Harbor too keeps reward.json's values when reward.txt is no scalar fallback.
      }
    }
    return rewards;
  }
  if (text !== undefined) return { reward: parseRewardText(text, dir) };
  throw new VerifierError(
    `${dir}: the verifier wrote no reward: neither /logs/verifier/reward.json nor /logs/verifier/reward.txt exists after tests/test.sh (${how}); its output:\n${output}`,
  );
}

/** The file's text, or undefined when it does not exist. */
async function readOptional(sandbox: Sandbox, path: string): Promise<string | undefined> {
  try {
    return new TextDecoder().decode(await sandbox.download(path));
  } catch (err) {
    if (err instanceof SandboxError && /ENOENT|No such file/i.test(err.message)) return undefined;
    throw err;
  }
}

export function parseRewardJson(text: string, dir: string): Record<string, number> {
  const where = `${dir}: /logs/verifier/reward.json`;
  if (text.length === 0) throw new VerifierError(`${where} is empty`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new VerifierError(
      `${where} is not JSON (${(err as Error).message}): ${text.slice(0, 200)}`,
    );
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw new VerifierError(
      `${where} must be a JSON object of name → number, got ${text.slice(0, 200)}`,
    );
  const rewards = Object.entries(parsed).filter(
    (e): e is [string, number] => typeof e[1] === "number",
  );
  const infinite = rewards.find(([, v]) => !Number.isFinite(v));
  if (infinite)
    throw new VerifierError(`${where}: ${JSON.stringify(infinite[0])} is not a finite number`);
  return Object.fromEntries(rewards);
}

export function parseRewardText(text: string, dir: string): number {
  const where = `${dir}: /logs/verifier/reward.txt`;
  if (text.length === 0) throw new VerifierError(`${where} is empty`);
  const value = text.trim() === "" ? Number.NaN : Number(text.trim());
  if (!Number.isFinite(value))
    throw new VerifierError(
      `${where} must hold one number, got ${JSON.stringify(text.slice(0, 200))}`,
    );
  return value;
}

function rewardOf(rewards: Record<string, number>, dir: string): number {
  if (rewards.reward !== undefined) return rewards.reward;
  const values = Object.entries(rewards);
  if (values.length === 1) return values[0]![1];
  throw new VerifierError(
    `${dir}: /logs/verifier/reward.json has no "reward" key and ${values.length} numeric values (${values.map(([k]) => k).join(", ") || "none"}); write "reward" (or one value)`,
  );
}

function clipOutput(text: string): string {
  const max = VERIFIER_OUTPUT_CHARS;
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  return `${text.slice(0, half)}\n[… ${text.length - 2 * half} characters cut …]\n${text.slice(-half)}`;
}

function fromBase64(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, "base64"));
}
